import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';

@ObjectType({
  description:
    "A tenant's data policy: the class of data it sends, how long its payloads are kept and whether it consented to evaluation capture.",
})
export class DataPolicy {
  @Field({
    description: 'The opaque tenant id callers send in x-lunanexa-tenant-id ("default" without one).',
  })
  tenantId!: string;

  @Field({
    description: 'public | internal | confidential | restricted; refused by models not licensed for it.',
  })
  dataClass!: string;

  @Field({
    description: 'none: payloads are never kept; days: kept retentionDays days, then deleted with a receipt.',
  })
  retentionMode!: string;

  @Field(() => Int, { nullable: true })
  retentionDays!: number | null;

  @Field({ description: 'Explicit consent to keep completed requests for evaluation (never for training).' })
  evaluationCaptureConsent!: boolean;

  @Field({ description: 'False: nobody set a policy and the default applies.' })
  configured!: boolean;

  @Field()
  updatedBy!: string;

  @Field()
  updatedAt!: string;
}

/** Checked by PrivacyService (typed violations, audited refusals), not by the global pipe. */
@InputType()
export class SetDataPolicyInput {
  @Allow()
  @Field()
  tenantId!: string;

  @Allow()
  @Field({ description: 'public | internal | confidential | restricted' })
  dataClass!: string;

  @Allow()
  @Field({ description: 'none | days' })
  retentionMode!: string;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'With retentionMode days: 1-3650.' })
  retentionDays?: number | null;

  @Allow()
  @Field(() => Boolean, { nullable: true, description: 'Default false.' })
  evaluationCaptureConsent?: boolean | null;
}

@ObjectType({ description: 'A kept payload, as metadata: never its text.' })
export class PayloadCapture {
  @Field(() => ID)
  id!: string;

  @Field()
  tenantId!: string;

  @Field()
  requestId!: string;

  @Field()
  correlationId!: string;

  @Field(() => String, { nullable: true })
  deploymentId!: string | null;

  @Field(() => String, { nullable: true })
  modelRef!: string | null;

  @Field({ description: 'retention | evaluation' })
  purpose!: string;

  @Field()
  capturedAt!: string;

  @Field({ description: 'When RetentionExpiry deletes it.' })
  expiresAt!: string;

  @Field(() => Int)
  requestBytes!: number;

  @Field(() => Int)
  responseBytes!: number;
}

@ObjectType({ description: "A finished purge of one tenant's payload captures." })
export class PayloadPurge {
  @Field()
  tenantId!: string;

  @Field(() => Int)
  deleted!: number;

  @Field(() => [String], { description: 'Hashes of the payload.delete receipts in the audit log.' })
  receiptHashes!: string[];

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;
}
