import { Args, Context, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { PRIVACY_MUTATION_PERMISSIONS as PERMISSION } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { callerOf } from '../common/caller';
import { PrivacyService } from './privacy.service';
import { DataPolicy, PayloadCapture, PayloadPurge, SetDataPolicyInput } from './privacy.types';

/**
 * Payload privacy: tenant data policies and the captures they allow. Reads
 * need read (capture listings are metadata only); changing a policy or
 * purging captures needs administer, like accounts and tokens.
 */
@Resolver()
export class PrivacyResolver {
  constructor(private readonly service: PrivacyService) {}

  @RequirePermission('read')
  @Query(() => [DataPolicy], { description: 'Every configured tenant data policy, by tenant id.' })
  dataPolicies(): Promise<DataPolicy[]> {
    return this.service.dataPolicies();
  }

  @RequirePermission('read')
  @Query(() => DataPolicy, {
    description: "A tenant's data policy; the default (configured: false) when nobody set one.",
  })
  dataPolicy(@Args('tenantId') tenantId: string): Promise<DataPolicy> {
    return this.service.dataPolicy(tenantId);
  }

  @RequirePermission(PERMISSION.setDataPolicy)
  @Mutation(() => DataPolicy, {
    description:
      "Sets a tenant's data policy (audited with before and after); the gateway applies it within a refresh.",
  })
  setDataPolicy(
    @Args('input') input: SetDataPolicyInput,
    @Context() ctx: GraphQLContext,
  ): Promise<DataPolicy> {
    return this.service.setDataPolicy(input, callerOf(ctx));
  }

  @RequirePermission('read')
  @Query(() => [PayloadCapture], {
    description: 'Kept payloads, newest first, as metadata only (never the text); of one tenant when given.',
  })
  payloadCaptures(
    @Args('tenantId', { type: () => String, nullable: true }) tenantId: string | null,
    @Args('limit', { type: () => Int, nullable: true }) limit: number | null,
  ): Promise<PayloadCapture[]> {
    return this.service.payloadCaptures(tenantId, limit);
  }

  @RequirePermission(PERMISSION.purgePayloadCaptures)
  @Mutation(() => PayloadPurge, {
    description:
      'Deletes every kept payload of a tenant now (RetentionExpiry in purge mode), with payload.delete receipts.',
  })
  purgePayloadCaptures(
    @Args('tenantId') tenantId: string,
    @Args('idempotencyKey', { type: () => String, nullable: true }) idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<PayloadPurge> {
    return this.service.purgePayloadCaptures(tenantId, idempotencyKey, callerOf(ctx));
  }
}
