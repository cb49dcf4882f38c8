import { Args, Context, Mutation, Query, Resolver } from '@nestjs/graphql';
import { SIGNING_MUTATION_PERMISSIONS as PERMISSION } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { callerOf } from '../common/caller';
import { SigningService } from './signing.service';
import { RegisterSigningKeyInput, TenantSigningPolicy, TrustedSigningKey } from './signing.types';

/**
 * Artifact signing trust (docs/OPERATIONS.md "Artifact signatures"): the
 * Ed25519 keys that vouch for model artifacts and each tenant's policy on
 * unsigned versions. Reading is `read`; changing is `administer`
 * (SIGNING_MUTATION_PERMISSIONS in libs/contracts roles.ts).
 */
@Resolver()
export class SigningResolver {
  constructor(private readonly service: SigningService) {}

  @RequirePermission('read')
  @Query(() => [TrustedSigningKey], { description: 'Every registered signing key, revoked ones included.' })
  trustedSigningKeys(): Promise<TrustedSigningKey[]> {
    return this.service.keys();
  }

  @RequirePermission('read')
  @Query(() => TenantSigningPolicy, {
    nullable: true,
    description: "A tenant's unsigned-version policy; null when there is no such tenant.",
  })
  tenantSigningPolicy(@Args('tenantId') tenantId: string): Promise<TenantSigningPolicy | null> {
    return this.service.tenantPolicy(tenantId);
  }

  @RequirePermission(PERMISSION.registerSigningKey)
  @Mutation(() => TrustedSigningKey, {
    description:
      'Trusts an Ed25519 public key to sign model artifacts; its id is its fingerprint. CONFLICT when registered already (revoked keys stay revoked). Audited.',
  })
  registerSigningKey(
    @Args('input') input: RegisterSigningKeyInput,
    @Context() ctx: GraphQLContext,
  ): Promise<TrustedSigningKey> {
    return this.service.registerSigningKey(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.revokeSigningKey)
  @Mutation(() => TrustedSigningKey, {
    description:
      'Revokes a signing key: versions it signed fail the deploy gate and the agent with SIGNATURE_INVALID from now on. Idempotent; audited.',
  })
  revokeSigningKey(@Args('keyId') keyId: string, @Context() ctx: GraphQLContext): Promise<TrustedSigningKey> {
    return this.service.revokeSigningKey(keyId, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.setTenantUnsignedPolicy)
  @Mutation(() => TenantSigningPolicy, {
    description:
      'Whether versions without a provenance signature may be rolled out onto aliases the tenant’s gateway keys call. Audited.',
  })
  setTenantUnsignedPolicy(
    @Args('tenantId') tenantId: string,
    @Args('allowUnsignedVersions') allowUnsignedVersions: boolean,
    @Context() ctx: GraphQLContext,
  ): Promise<TenantSigningPolicy> {
    return this.service.setTenantUnsignedPolicy(tenantId, allowUnsignedVersions, callerOf(ctx));
  }
}
