import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';

@ObjectType({
  description:
    'What the gateway lets a tenant use, counted across all of its keys; each limit null = unlimited (429 QUOTA_EXCEEDED beyond it).',
})
export class TenantQuota {
  @Field(() => Int, { nullable: true, description: 'Requests per minute, 1-1000000; null: unlimited.' })
  requestsPerMinute!: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      'Prompt + completion tokens per minute, a whole number 1-10000000000 (Float: past 32 bits); null: unlimited.',
  })
  tokensPerMinute!: number | null;

  @Field(() => Int, { nullable: true, description: 'Requests in flight at once, 1-100000; null: unlimited.' })
  maxConcurrentRequests!: number | null;
}

@ObjectType({
  description:
    'A tenant: the opaque id its requests carry (x-lunanexa-tenant-id, or the tenant of its gateway key) and its quotas.',
})
export class Tenant {
  @Field({ description: 'Opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}.' })
  id!: string;

  @Field(() => String, { nullable: true, description: 'For people; requests name the tenant by id.' })
  displayName!: string | null;

  @Field(() => TenantQuota)
  quota!: TenantQuota;

  @Field(() => String, {
    nullable: true,
    description:
      "Highest priority (low | normal | high) the gateway runs this tenant's requests at; a higher x-lunanexa-priority is lowered to it and recorded on the request. Null: any.",
  })
  maxPriority!: string | null;

  @Field(() => Int, {
    description: 'Gateway keys ever issued to the tenant, revoked and expired ones included.',
  })
  keyCount!: number;

  @Field(() => Int, { description: 'Gateway keys the gateway accepts now: neither revoked nor expired.' })
  activeKeyCount!: number;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field()
  updatedBy!: string;

  @Field()
  updatedAt!: string;
}

@ObjectType({
  description: "A tenant's gateway key, without its secret (shown once, at creation) or its hash.",
})
export class GatewayKey {
  @Field(() => ID)
  id!: string;

  @Field()
  tenantId!: string;

  @Field({ description: 'What it is for.' })
  name!: string;

  @Field({
    description: 'The first characters of the key (lnxk_ + 8), to recognise it; audit events name it.',
  })
  prefix!: string;

  @Field(() => [String], {
    description: 'The aliases this key may call; nothing else (never model@version).',
  })
  aliases!: string[];

  @Field({ description: 'Active | Expired | Revoked: whether the gateway accepts it now.' })
  state!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field(() => String, { nullable: true, description: 'Null: does not expire.' })
  expiresAt!: string | null;

  @Field(() => String, { nullable: true })
  revokedAt!: string | null;

  @Field(() => String, { nullable: true })
  revokedBy!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'When the gateway last accepted it (recorded in batches, up to about a minute behind).',
  })
  lastUsedAt!: string | null;
}

@ObjectType({ description: 'A new gateway key. `secret` is in this answer only: store it now.' })
export class CreateGatewayKeyResult {
  @Field(() => GatewayKey)
  key!: GatewayKey;

  @Field({ description: 'Send as `Authorization: Bearer <secret>` to the gateway. Never shown again.' })
  secret!: string;
}

/** Checked by TenancyService (typed violations, audited refusals), not by the global pipe. */
@InputType({ description: 'A new tenant. Quotas left out (or null) are unlimited.' })
export class CreateTenantInput {
  @Allow()
  @Field({ description: 'Opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}; cannot change later.' })
  id!: string;

  @Allow()
  @Field(() => String, { nullable: true, description: '1-256 characters.' })
  displayName?: string | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: '1-1000000; null: unlimited.' })
  requestsPerMinute?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true, description: 'A whole number 1-10000000000; null: unlimited.' })
  tokensPerMinute?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: '1-100000; null: unlimited.' })
  maxConcurrentRequests?: number | null;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'low | normal | high: the highest priority its requests run at; null: any.',
  })
  maxPriority?: string | null;
}

/** Checked by TenancyService. A field left out keeps its value; an explicit null clears it (unlimited, no name). */
@InputType({
  description:
    "Changes a tenant's display name and quotas. A field left out keeps its value; null means unlimited (no display name).",
})
export class UpdateTenantInput {
  @Allow()
  @Field()
  id!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  displayName?: string | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: '1-1000000; null: unlimited.' })
  requestsPerMinute?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true, description: 'A whole number 1-10000000000; null: unlimited.' })
  tokensPerMinute?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: '1-100000; null: unlimited.' })
  maxConcurrentRequests?: number | null;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description:
      'low | normal | high: the highest priority its requests run at; null: any. Left out: unchanged.',
  })
  maxPriority?: string | null;
}

/** Checked by TenancyService. */
@InputType({ description: 'A new gateway key for a tenant.' })
export class CreateGatewayKeyInput {
  @Allow()
  @Field()
  tenantId!: string;

  @Allow()
  @Field({ description: 'What it is for, 1-100 characters.' })
  name!: string;

  @Allow()
  @Field(() => [String], { description: '1-100 distinct names of existing aliases the key may call.' })
  aliases!: string[];

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'ISO-8601 UTC instant in the future, at most 3650 days ahead; omitted: does not expire.',
  })
  expiresAt?: string | null;
}
