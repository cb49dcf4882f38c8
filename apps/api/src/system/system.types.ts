import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { OPAQUE_ID_PATTERN, PING_MESSAGE_MAX_LENGTH } from '@lunanexa/contracts';

@InputType({
  description: 'Run the ping system check. The same idempotency key always returns the same run.',
})
export class PingInput {
  @Field({ description: 'Caller-chosen key (letters, digits, . _ : -; at most 128 characters).' })
  @IsString()
  @Matches(OPAQUE_ID_PATTERN, {
    message: 'idempotencyKey must be 1-128 characters of letters, digits, . _ : -',
  })
  idempotencyKey!: string;

  @Field(() => String, {
    nullable: true,
    description: `Free text, 1-${PING_MESSAGE_MAX_LENGTH} characters; defaults to "ping".`,
  })
  @IsOptional()
  @IsString()
  @Length(1, PING_MESSAGE_MAX_LENGTH)
  message?: string | null;
}

@ObjectType({ description: 'The outcome of one ping run and its audit receipt.' })
export class PingResult {
  @Field()
  workflowId!: string;

  @Field()
  runId!: string;

  @Field(() => ID)
  pingId!: string;

  @Field()
  message!: string;

  @Field()
  correlationId!: string;

  @Field({ description: 'Audit receipt hash (sha256, hex) for this run.' })
  receiptHash!: string;

  @Field(() => Int)
  receiptSeq!: number;

  @Field({ description: 'Link to this workflow in the Temporal UI.' })
  temporalUiUrl!: string;
}

@ObjectType({ description: 'A completed ping system check, read from PostgreSQL.' })
export class PingRecord {
  @Field(() => ID)
  id!: string;

  @Field()
  workflowId!: string;

  @Field()
  message!: string;

  @Field()
  actor!: string;

  @Field()
  correlationId!: string;

  @Field()
  createdAt!: Date;

  @Field()
  temporalUiUrl!: string;
}
