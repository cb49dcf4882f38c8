import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import { MAX_WINDOW_MINUTES, RequestsService } from './requests.service';
import { RequestRecordFilter, RequestRecordPage, TrafficReport } from './requests.types';

const MAX_PAGE = 200;

function requireIntBetween(path: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} must be between ${min} and ${max}`, [
      { path, message: `must be between ${min} and ${max}` },
    ]);
  }
}

@Resolver()
export class RequestsResolver {
  constructor(private readonly requests: RequestsService) {}

  @RequirePermission('read')
  @Query(() => RequestRecordPage, {
    description: 'Inference requests the gateway served, newest first (metadata only, never payloads).',
  })
  requestRecords(
    @Args('first', { type: () => Int, defaultValue: 50 }) first: number,
    @Args('before', {
      type: () => String,
      nullable: true,
      description: 'Only records older than this cursor (the previous page’s nextBefore).',
    })
    before: string | null,
    @Args('filter', { type: () => RequestRecordFilter, nullable: true }) filter?: RequestRecordFilter,
  ): Promise<RequestRecordPage> {
    requireIntBetween('first', first, 1, MAX_PAGE);
    if (before !== null && before !== undefined && !/^[1-9][0-9]{0,18}$/.test(before)) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'before must be a cursor from nextBefore', [
        { path: 'before', message: 'must be a cursor from nextBefore' },
      ]);
    }
    return this.requests.list(filter, first, before ?? null);
  }

  @RequirePermission('read')
  @Query(() => TrafficReport, {
    description:
      'Request rate, errors, 429s, tokens, latency and time-to-first-token percentiles over a recent window, per bucket, per deployment and per tenant (with its top models), with the in-flight requests replicas report now.',
  })
  traffic(
    @Args('windowMinutes', { type: () => Int, defaultValue: 15 }) windowMinutes: number,
    @Args('bucketSeconds', { type: () => Int, defaultValue: 30 }) bucketSeconds: number,
    @Args('deployment', { type: () => String, nullable: true, description: 'Deployment id or name.' })
    deployment: string | null,
    @Args('tenant', {
      type: () => String,
      nullable: true,
      description: 'Only requests that counted against this tenant (its usage over time).',
    })
    tenant: string | null,
  ): Promise<TrafficReport> {
    requireIntBetween('windowMinutes', windowMinutes, 1, MAX_WINDOW_MINUTES);
    requireIntBetween('bucketSeconds', bucketSeconds, 5, 3600);
    if (tenant !== null && tenant !== undefined && (tenant.length < 1 || tenant.length > 128)) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'tenant must be 1-128 characters', [
        { path: 'tenant', message: 'must be 1-128 characters' },
      ]);
    }
    return this.requests.traffic({
      windowMinutes,
      bucketSeconds,
      deployment: deployment ?? null,
      tenant: tenant ?? null,
    });
  }
}
