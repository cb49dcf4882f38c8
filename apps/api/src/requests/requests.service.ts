import { Injectable } from '@nestjs/common';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  findDeploymentId,
  findTenant,
  gatewayLoadByDeployment,
  inFlightByDeployment,
  listRequestRecords,
  requestTraffic,
  type RequestAggregateRow,
  type RequestRecordRow,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import {
  DeploymentTraffic,
  ERROR_OUTCOMES,
  type RequestRecord,
  type RequestRecordFilter,
  type RequestRecordPage,
  type TrafficBucket,
  type TenantTraffic,
  type TrafficReport,
} from './requests.types';

export const MAX_WINDOW_MINUTES = 24 * 60;
/** Keeps a series drawable: at most this many points whatever window and bucket are asked for. */
export const MAX_BUCKETS = 720;

/**
 * Reads the gateway's request records (metadata only) for the console:
 * a bounded, keyset-paged list and latency/throughput/error aggregates.
 */
@Injectable()
export class RequestsService {
  constructor(private readonly db: DataSource) {}

  async list(
    filter: RequestRecordFilter | null | undefined,
    first: number,
    before: string | null,
  ): Promise<RequestRecordPage> {
    const deploymentId = filter?.deployment
      ? ((await this.deploymentIdOf(filter.deployment)) ?? filter.deployment)
      : null;
    const rows = await listRequestRecords(this.db, {
      beforeId: before,
      deploymentId,
      outcome: filter?.outcome ?? null,
      outcomes: filter?.errorsOnly ? ERROR_OUTCOMES : null,
      requestId: filter?.requestId ?? null,
      correlationId: filter?.correlationId ?? null,
      tenantId: filter?.tenant ?? null,
      limit: first + 1,
    });
    const items = rows.slice(0, first).map(toRecord);
    return { items, nextBefore: rows.length > first ? (items[items.length - 1]?.id ?? null) : null };
  }

  async traffic(options: {
    windowMinutes: number;
    bucketSeconds: number;
    deployment: string | null;
    tenant?: string | null;
    now?: Date;
  }): Promise<TrafficReport> {
    const { windowMinutes, bucketSeconds } = options;
    const bucketCount = Math.ceil((windowMinutes * 60) / bucketSeconds);
    if (bucketCount > MAX_BUCKETS) {
      throw new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        `windowMinutes ÷ bucketSeconds gives ${bucketCount} buckets; at most ${MAX_BUCKETS}.`,
        [{ path: 'bucketSeconds', message: `must give at most ${MAX_BUCKETS} buckets over the window` }],
      );
    }
    let deploymentId: string | null = null;
    if (options.deployment !== null) {
      deploymentId = await this.deploymentIdOf(options.deployment);
      if (deploymentId === null) {
        throw new LunaNexaError(ErrorCode.NOT_FOUND, `No deployment "${options.deployment}".`);
      }
    }
    const tenantId = options.tenant ?? null;
    if (tenantId !== null && (await findTenant(this.db, tenantId)) === null) {
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `No tenant "${tenantId}".`);
    }
    // Buckets end at the next whole bucket after now, so the newest bucket is the one filling up.
    const nowMs = (options.now ?? new Date()).getTime();
    const bucketMs = bucketSeconds * 1000;
    const windowEnd = new Date(Math.ceil((nowMs + 1) / bucketMs) * bucketMs);
    const windowStart = new Date(windowEnd.getTime() - bucketCount * bucketMs);
    const [traffic, inFlightRows, gatewayLoad] = await Promise.all([
      requestTraffic(this.db, {
        windowStart,
        windowEnd,
        errorOutcomes: ERROR_OUTCOMES,
        deploymentId,
        tenantId,
        bucketSeconds,
      }),
      inFlightByDeployment(this.db, deploymentId),
      gatewayLoadByDeployment(this.db),
    ]);
    const { series: seriesRows, totals, byDeployment: deploymentRows, byTenant, topModels } = traffic;

    const byBucket = new Map(seriesRows.map((row) => [row.bucket, row]));
    const buckets: TrafficBucket[] = [];
    for (let index = 0; index < bucketCount; index++) {
      const start = new Date(windowStart.getTime() + index * bucketMs);
      buckets.push(toBucket(start, bucketSeconds, byBucket.get(index)));
    }
    const inFlight = new Map(inFlightRows.map((row) => [row.deployment_id, row.in_flight]));
    const queued = new Map(
      gatewayLoad
        .filter((row) => deploymentId === null || row.deploymentId === deploymentId)
        .map((row) => [row.deploymentId, row.queued]),
    );
    const windowSeconds = bucketCount * bucketSeconds;
    const deployments = deploymentRows.map((row): DeploymentTraffic => {
      const entry = new DeploymentTraffic();
      entry.deploymentId = row.deployment_id;
      entry.deploymentName = row.deployment_name;
      entry.modelRef = row.model_ref;
      entry.totals = toBucket(windowStart, windowSeconds, row);
      entry.inFlightNow = row.deployment_id === null ? 0 : (inFlight.get(row.deployment_id) ?? 0);
      entry.queuedNow = row.deployment_id === null ? 0 : (queued.get(row.deployment_id) ?? 0);
      return entry;
    });
    const tenants = byTenant.map((row): TenantTraffic => ({
      tenantId: row.tenant_id,
      totals: toBucket(windowStart, windowSeconds, row),
      topModels: topModels
        .filter((model) => model.tenant_id === row.tenant_id)
        .map((model) => ({
          requestedModel: model.requested_model,
          requests: model.requests,
          errors: model.errors,
        })),
    }));
    return {
      windowStart,
      windowEnd,
      bucketSeconds,
      buckets,
      totals: toBucket(windowStart, windowSeconds, totals),
      deployments,
      tenants,
      inFlightNow: [...inFlight.values()].reduce((sum, value) => sum + value, 0),
      queuedNow: [...queued.values()].reduce((sum, value) => sum + value, 0),
    };
  }

  /** A deployment's id from its id or name; null when there is none. */
  async deploymentIdOf(idOrName: string): Promise<string | null> {
    return findDeploymentId(this.db, idOrName);
  }
}

function toBucket(start: Date, seconds: number, row: RequestAggregateRow | undefined): TrafficBucket {
  const requests = row?.requests ?? 0;
  return {
    start,
    requests,
    errors: row?.errors ?? 0,
    requestsPerSecond: requests / seconds,
    meanConcurrency: (row?.busy_ms ?? 0) / (seconds * 1000),
    latencyP50Ms: row?.latency_p50 ?? null,
    latencyP95Ms: row?.latency_p95 ?? null,
    latencyP99Ms: row?.latency_p99 ?? null,
    ttftP50Ms: row?.ttft_p50 ?? null,
    ttftP95Ms: row?.ttft_p95 ?? null,
    completionTokens: row?.completion_tokens ?? 0,
    promptTokens: row?.prompt_tokens ?? 0,
    rateLimited: row?.rate_limited ?? 0,
  };
}

function toRecord(row: RequestRecordRow): RequestRecord {
  return {
    id: row.id,
    requestId: row.request_id,
    correlationId: row.correlation_id,
    receivedAt: row.received_at,
    finishedAt: row.finished_at,
    kind: row.kind,
    dialect: row.dialect,
    requestedModel: row.requested_model,
    modelRef: row.model_ref,
    deploymentId: row.deployment_id,
    deploymentName: row.deployment_name,
    stream: row.stream,
    outcome: row.outcome,
    errorCode: row.error_code,
    httpStatus: row.http_status,
    timeToFirstTokenMs: row.ttft_ms,
    durationMs: row.duration_ms,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    tenantId: row.tenant_id,
  };
}
