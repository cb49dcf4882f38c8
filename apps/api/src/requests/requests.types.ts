import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { IsBoolean, IsIn, IsOptional, IsString, Length } from 'class-validator';

/** Terminal workload states a request record can end in (libs/domain workload lifecycle). */
export const REQUEST_OUTCOMES = ['Rejected', 'Completed', 'Failed', 'Cancelled', 'TimedOut'] as const;
/** Outcomes counted as errors: the platform, not the caller, ended the request. */
export const ERROR_OUTCOMES = ['Rejected', 'Failed', 'TimedOut'] as const;

@ObjectType({
  description:
    'What the gateway kept of one inference request: ids, model, deployment, outcome, timings, token counts. Never the prompt or the reply.',
})
export class RequestRecord {
  @Field(() => ID, { description: 'Arrival order; the cursor for paging.' })
  id!: string;

  @Field()
  requestId!: string;

  @Field()
  correlationId!: string;

  @Field()
  receivedAt!: Date;

  @Field()
  finishedAt!: Date;

  @Field({ description: 'chat or completion.' })
  kind!: string;

  @Field({ description: 'openai or generic: the wire format the caller used.' })
  dialect!: string;

  @Field({ description: 'The model ref or alias the caller named.' })
  requestedModel!: string;

  @Field(() => String, { nullable: true, description: 'The version that answered (name@version).' })
  modelRef!: string | null;

  @Field(() => String, { nullable: true })
  deploymentId!: string | null;

  @Field(() => String, { nullable: true })
  deploymentName!: string | null;

  @Field()
  stream!: boolean;

  @Field({ description: 'Rejected, Completed, Failed, Cancelled or TimedOut.' })
  outcome!: string;

  @Field(() => String, { nullable: true, description: 'The typed error code when it did not complete.' })
  errorCode!: string | null;

  @Field(() => Int, { description: '499 when the client left before a status line was sent.' })
  httpStatus!: number;

  @Field(() => Float, { nullable: true, description: 'Time to the first token (streams) or the answer.' })
  timeToFirstTokenMs!: number | null;

  @Field(() => Float)
  durationMs!: number;

  @Field(() => Int, { nullable: true })
  promptTokens!: number | null;

  @Field(() => Int, { nullable: true })
  completionTokens!: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'The tenant whose key made the request (its quotas applied); null for operator credentials.',
  })
  tenantId!: string | null;
}

@ObjectType()
export class RequestRecordPage {
  @Field(() => [RequestRecord])
  items!: RequestRecord[];

  @Field(() => String, { nullable: true, description: 'Pass as `before` for the next (older) page.' })
  nextBefore!: string | null;
}

@InputType({ description: 'Narrows the request list; fields combine with AND.' })
export class RequestRecordFilter {
  @Field(() => String, { nullable: true, description: 'Deployment id or name.' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  deployment?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsIn(REQUEST_OUTCOMES, { message: `outcome must be one of ${REQUEST_OUTCOMES.join(', ')}` })
  outcome?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Only Rejected, Failed and TimedOut requests.' })
  @IsOptional()
  @IsBoolean()
  errorsOnly?: boolean | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  requestId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  correlationId?: string | null;

  @Field(() => String, { nullable: true, description: 'Only requests that counted against this tenant.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  tenant?: string | null;
}

@ObjectType({ description: 'Requests that arrived in one time bucket.' })
export class TrafficBucket {
  @Field()
  start!: Date;

  @Field(() => Int)
  requests!: number;

  @Field(() => Int, { description: 'Rejected, Failed and TimedOut requests.' })
  errors!: number;

  @Field(() => Float)
  requestsPerSecond!: number;

  @Field(() => Float, {
    description:
      'Mean requests in flight over the bucket (time spent serving the requests that arrived in it ÷ bucket length).',
  })
  meanConcurrency!: number;

  @Field(() => Float, { nullable: true, description: 'Whole-request latency percentiles, ms.' })
  latencyP50Ms!: number | null;

  @Field(() => Float, { nullable: true })
  latencyP95Ms!: number | null;

  @Field(() => Float, { nullable: true })
  latencyP99Ms!: number | null;

  @Field(() => Float, { nullable: true, description: 'Time-to-first-token percentiles, ms.' })
  ttftP50Ms!: number | null;

  @Field(() => Float, { nullable: true })
  ttftP95Ms!: number | null;

  @Field(() => Int)
  completionTokens!: number;

  @Field(() => Int)
  promptTokens!: number;

  @Field(() => Int, { description: 'Requests refused with HTTP 429 (a tenant quota or concurrency limit).' })
  rateLimited!: number;
}

@ObjectType({ description: 'How many of a tenant’s requests named one model or alias.' })
export class ModelUsage {
  @Field({ description: 'The model ref or alias the callers named.' })
  requestedModel!: string;

  @Field(() => Int)
  requests!: number;

  @Field(() => Int, { description: 'Rejected, Failed and TimedOut requests among them.' })
  errors!: number;
}

@ObjectType({ description: 'One tenant over the whole window.' })
export class TenantTraffic {
  @Field(() => String, {
    nullable: true,
    description: 'Null for requests made without a tenant (operator sessions and API tokens).',
  })
  tenantId!: string | null;

  @Field(() => TrafficBucket, { description: 'The whole window as one bucket.' })
  totals!: TrafficBucket;

  @Field(() => [ModelUsage], { description: 'The models or aliases it called most, at most five.' })
  topModels!: ModelUsage[];
}

@ObjectType({ description: 'One deployment over the whole window.' })
export class DeploymentTraffic {
  @Field(() => String, {
    nullable: true,
    description: 'Null for requests no deployment took (e.g. unknown model).',
  })
  deploymentId!: string | null;

  @Field(() => String, { nullable: true })
  deploymentName!: string | null;

  @Field(() => String, { nullable: true })
  modelRef!: string | null;

  @Field(() => TrafficBucket, { description: 'The whole window as one bucket.' })
  totals!: TrafficBucket;

  @Field(() => Int, { description: 'In-flight requests its replicas report now.' })
  inFlightNow!: number;

  @Field(() => Int, {
    description:
      "Requests waiting in the gateways' admission queues for one of its replicas now (queue depth; bounded per replica).",
  })
  queuedNow!: number;
}

@ObjectType({ description: 'Traffic over a recent window: a time series, and per-deployment totals.' })
export class TrafficReport {
  @Field()
  windowStart!: Date;

  @Field()
  windowEnd!: Date;

  @Field(() => Int)
  bucketSeconds!: number;

  @Field(() => [TrafficBucket], { description: 'Oldest first; buckets without requests are included.' })
  buckets!: TrafficBucket[];

  @Field(() => TrafficBucket)
  totals!: TrafficBucket;

  @Field(() => [DeploymentTraffic], { description: 'Busiest first.' })
  deployments!: DeploymentTraffic[];

  @Field(() => [TenantTraffic], { description: 'Busiest first, at most 50 tenants.' })
  tenants!: TenantTraffic[];

  @Field(() => Int, { description: 'In-flight requests all replicas in scope report now.' })
  inFlightNow!: number;

  @Field(() => Int, {
    description: "Requests waiting in the gateways' admission queues in scope now (queue depth).",
  })
  queuedNow!: number;
}
