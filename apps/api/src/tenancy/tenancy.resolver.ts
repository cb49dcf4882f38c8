import { Args, Context, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { TENANCY_MUTATION_PERMISSIONS as PERMISSION } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { callerOf } from '../common/caller';
import { TenancyService } from './tenancy.service';
import {
  CreateGatewayKeyInput,
  CreateGatewayKeyResult,
  CreateTenantInput,
  GatewayKey,
  Tenant,
  UpdateTenantInput,
} from './tenancy.types';

/**
 * Tenants, quotas and gateway keys. Everyone who may read sees them (never
 * a secret); changing them is a credential decision, `administer`
 * (TENANCY_MUTATION_PERMISSIONS in libs/contracts roles.ts).
 */
@Resolver()
export class TenancyResolver {
  constructor(private readonly service: TenancyService) {}

  @RequirePermission('read')
  @Query(() => [Tenant], { description: 'Every tenant, by id, with its quotas and key counts.' })
  tenants(): Promise<Tenant[]> {
    return this.service.tenants();
  }

  @RequirePermission('read')
  @Query(() => Tenant, { nullable: true, description: 'One tenant; null when there is none with this id.' })
  tenant(@Args('id') id: string): Promise<Tenant | null> {
    return this.service.tenant(id);
  }

  @RequirePermission('read')
  @Query(() => [GatewayKey], {
    description:
      "A tenant's gateway keys, newest first, without secrets; revoked ones only with includeRevoked (NOT_FOUND for an unknown tenant).",
  })
  gatewayKeys(
    @Args('tenantId') tenantId: string,
    @Args('includeRevoked', { type: () => Boolean, nullable: true, defaultValue: false })
    includeRevoked: boolean,
  ): Promise<GatewayKey[]> {
    return this.service.gatewayKeys(tenantId, includeRevoked);
  }

  @RequirePermission(PERMISSION.createTenant)
  @Mutation(() => Tenant, { description: 'Creates a tenant (CONFLICT when the id is taken); audited.' })
  createTenant(@Args('input') input: CreateTenantInput, @Context() ctx: GraphQLContext): Promise<Tenant> {
    return this.service.createTenant(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.updateTenant)
  @Mutation(() => Tenant, {
    description:
      "Changes a tenant's display name and quotas (left out: unchanged; null: unlimited); audited with before and after. Gateways apply it at once.",
  })
  updateTenant(@Args('input') input: UpdateTenantInput, @Context() ctx: GraphQLContext): Promise<Tenant> {
    return this.service.updateTenant(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.createGatewayKey)
  @Mutation(() => CreateGatewayKeyResult, {
    description:
      'Issues a gateway key for a tenant and a set of existing aliases. The secret is in this answer only; the database keeps its sha256.',
  })
  createGatewayKey(
    @Args('input') input: CreateGatewayKeyInput,
    @Context() ctx: GraphQLContext,
  ): Promise<CreateGatewayKeyResult> {
    return this.service.createGatewayKey(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.revokeGatewayKey)
  @Mutation(() => GatewayKey, {
    description:
      'Revokes a gateway key; gateways refuse it from their next request on. Revoking a revoked key changes nothing and answers it as it is.',
  })
  revokeGatewayKey(
    @Args('id', { type: () => ID }) id: string,
    @Context() ctx: GraphQLContext,
  ): Promise<GatewayKey> {
    return this.service.revokeGatewayKey(id, callerOf(ctx));
  }
}
