import { Field, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';

export const AUDIT_DECISION_FILTERS = ['allowed', 'denied'] as const;

@InputType({ description: 'Narrows the audit log; every field is optional and they combine with AND.' })
export class AuditEventFilter {
  @Field(() => String, {
    nullable: true,
    description: 'Exact action, or a prefix when it ends in `*` (e.g. `node.*`).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  action?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Exact actor, e.g. `operator:admin` or `token:lnx_ab12cd34`.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  actor?: string | null;

  @Field(() => String, { nullable: true, description: '`allowed` or `denied`.' })
  @IsOptional()
  @IsIn(AUDIT_DECISION_FILTERS, { message: 'decision must be allowed or denied' })
  decision?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  correlationId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 300)
  workflowId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The node or deployment id the event is about (its evidence `nodeId` or `deploymentId`).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  subject?: string | null;
}

@ObjectType({ description: "Whether one event's hash and its link to the previous event verify." })
export class AuditChainLink {
  @Field()
  verified!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'hash-mismatch, link-mismatch or sequence-gap when not verified.',
  })
  reason!: string | null;
}

@ObjectType({ description: 'One entry of the append-only, hash-chained audit log.' })
export class AuditEvent {
  @Field(() => Int)
  seq!: number;

  @Field()
  id!: string;

  @Field()
  occurredAt!: Date;

  @Field()
  actor!: string;

  @Field()
  action!: string;

  @Field({ description: 'allowed, denied or not-applicable.' })
  decision!: string;

  @Field({ description: 'succeeded, failed or refused.' })
  result!: string;

  @Field()
  correlationId!: string;

  @Field(() => String, { nullable: true })
  workflowId!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Link to the workflow in the Temporal UI, when there is one.',
  })
  temporalUiUrl!: string | null;

  @Field({
    description: 'The evidence object as JSON. Evidence holds ids and outcomes, never payloads or secrets.',
  })
  evidenceJson!: string;

  @Field({ description: 'sha256 (hex) over the event, its seq and prevHash.' })
  hash!: string;

  @Field()
  prevHash!: string;

  @Field(() => AuditChainLink, {
    nullable: true,
    description: 'Verification of this event against its predecessor (only resolved by `auditEvent`).',
  })
  chain?: AuditChainLink | null;
}

@ObjectType({ description: 'One page of the audit log, newest first.' })
export class AuditEventPage {
  @Field(() => [AuditEvent])
  events!: AuditEvent[];

  @Field(() => Int, {
    nullable: true,
    description: 'Pass as `before` to get the next (older) page; null when this is the last page.',
  })
  nextBefore!: number | null;
}

/**
 * INCREMENTAL starts at the last verified checkpoint, so its cost follows
 * what was appended since; FULL walks from the first event and is the only
 * mode that finds an event changed before the checkpoint.
 */
export const AuditChainVerificationModeValues = { INCREMENTAL: 'INCREMENTAL', FULL: 'FULL' } as const;
export type AuditChainVerificationMode =
  (typeof AuditChainVerificationModeValues)[keyof typeof AuditChainVerificationModeValues];
registerEnumType(AuditChainVerificationModeValues, {
  name: 'AuditChainVerificationMode',
  description:
    'INCREMENTAL verifies the events after the last verified checkpoint (and that the checkpointed event is unchanged); ' +
    'FULL verifies the whole chain from its first event, and also finds an event changed before the checkpoint.',
});

@ObjectType({ description: 'Result of verifying the audit chain (from its last checkpoint, or all of it).' })
export class AuditChainStatus {
  @Field(() => AuditChainVerificationModeValues)
  mode!: AuditChainVerificationMode;

  @Field()
  valid!: boolean;

  @Field(() => Int, {
    description: 'Events verified in this run before the first break (all of them when valid).',
  })
  checked!: number;

  @Field(() => Int, {
    nullable: true,
    description:
      'The checkpoint this run trusted and started after; null for FULL or before the first verification.',
  })
  checkpointSeq!: number | null;

  @Field(() => Int, { nullable: true })
  firstBrokenSeq!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'hash-mismatch, link-mismatch, sequence-gap, or checkpoint-mismatch (the checkpointed event changed).',
  })
  reason!: string | null;
}
