import { Injectable } from '@nestjs/common';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { gatewayLoadByDeployment } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import {
  DeploymentTraffic,
  ERROR_OUTCOMES,
  type RequestRecord,
  type RequestRecordFilter,
  type RequestRecordPage,
  type TrafficBucket,
  type TrafficReport,
} from './requests.types';

interface RecordRow {
  id: string;
  request_id: string;
  correlation_id: string;
  received_at: Date;
  finished_at: Date;
  kind: string;
  dialect: string;
  requested_model: string;
  model_ref: string | null;
  deployment_id: string | null;
  deployment_name: string | null;
  stream: boolean;
  outcome: string;
  error_code: string | null;
  http_status: number;
  ttft_ms: number | null;
  duration_ms: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

interface AggregateRow {
  requests: number;
  errors: number;
  busy_ms: number | null;
  latency_p50: number | null;
  latency_p95: number | null;
  latency_p99: number | null;
  ttft_p50: number | null;
  ttft_p95: number | null;
  completion_tokens: number;
}

interface DeploymentAggregateRow extends AggregateRow {
  deployment_id: string | null;
  deployment_name: string | null;
  model_ref: string | null;
}

/** The aggregate columns, shared by the time series, the totals and the per-deployment rows. */
const AGGREGATES = `
  count(*)::int AS requests,
  count(*) FILTER (WHERE r.outcome = ANY($3::text[]))::int AS errors,
  sum(r.duration_ms)::float8 AS busy_ms,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY r.duration_ms) AS latency_p50,
  percentile_cont(0.95) WITHIN GROUP (ORDER BY r.duration_ms) AS latency_p95,
  percentile_cont(0.99) WITHIN GROUP (ORDER BY r.duration_ms) AS latency_p99,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ttft_ms) AS ttft_p50,
  percentile_cont(0.95) WITHIN GROUP (ORDER BY r.ttft_ms) AS ttft_p95,
  coalesce(sum(r.completion_tokens), 0)::int AS completion_tokens`;

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
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (placeholder: string) => string, value: unknown): void => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (before !== null) add((p) => `r.id < ${p}::bigint`, before);
    if (filter?.deployment) {
      const id = await this.deploymentIdOf(filter.deployment);
      add((p) => `r.deployment_id = ${p}`, id ?? filter.deployment);
    }
    if (filter?.outcome) add((p) => `r.outcome = ${p}`, filter.outcome);
    if (filter?.errorsOnly) add((p) => `r.outcome = ANY(${p}::text[])`, ERROR_OUTCOMES);
    if (filter?.requestId) add((p) => `r.request_id = ${p}`, filter.requestId);
    if (filter?.correlationId) add((p) => `r.correlation_id = ${p}`, filter.correlationId);
    params.push(first + 1);
    const rows: RecordRow[] = await this.db.query(
      `SELECT r.*, r.id::text AS id, d.name AS deployment_name
         FROM request_records r LEFT JOIN deployments d ON d.id = r.deployment_id
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY r.id DESC
        LIMIT $${params.length}`,
      params,
    );
    const items = rows.slice(0, first).map(toRecord);
    return { items, nextBefore: rows.length > first ? (items[items.length - 1]?.id ?? null) : null };
  }

  async traffic(options: {
    windowMinutes: number;
    bucketSeconds: number;
    deployment: string | null;
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
    // Buckets end at the next whole bucket after now, so the newest bucket is the one filling up.
    const nowMs = (options.now ?? new Date()).getTime();
    const bucketMs = bucketSeconds * 1000;
    const windowEnd = new Date(Math.ceil((nowMs + 1) / bucketMs) * bucketMs);
    const windowStart = new Date(windowEnd.getTime() - bucketCount * bucketMs);
    const scope = `r.received_at >= $1 AND r.received_at < $2 AND ($4::text IS NULL OR r.deployment_id = $4)`;
    const params = [windowStart, windowEnd, ERROR_OUTCOMES, deploymentId, bucketSeconds];

    const [seriesRows, totalRows, deploymentRows, inFlightRows, gatewayLoad] = await Promise.all([
      this.db.query<(AggregateRow & { bucket: number })[]>(
        `SELECT floor(extract(epoch FROM (r.received_at - $1)) / $5)::int AS bucket, ${AGGREGATES}
           FROM request_records r WHERE ${scope} GROUP BY 1`,
        params,
      ),
      this.db.query<AggregateRow[]>(
        `SELECT ${AGGREGATES} FROM request_records r WHERE ${scope}`,
        params.slice(0, 4),
      ),
      this.db.query<DeploymentAggregateRow[]>(
        `SELECT r.deployment_id, d.name AS deployment_name, min(r.model_ref) AS model_ref, ${AGGREGATES}
           FROM request_records r LEFT JOIN deployments d ON d.id = r.deployment_id
          WHERE ${scope}
          GROUP BY r.deployment_id, d.name
          ORDER BY requests DESC, r.deployment_id NULLS LAST`,
        params.slice(0, 4),
      ),
      this.db.query<{ deployment_id: string; in_flight: number }[]>(
        `SELECT a.deployment_id, coalesce(sum(a.in_flight), 0)::int AS in_flight
           FROM assignments a
          WHERE a.intent = 'Run' AND ($1::text IS NULL OR a.deployment_id = $1)
          GROUP BY a.deployment_id`,
        [deploymentId],
      ),
      gatewayLoadByDeployment(this.db),
    ]);

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
    return {
      windowStart,
      windowEnd,
      bucketSeconds,
      buckets,
      totals: toBucket(windowStart, windowSeconds, totalRows[0]),
      deployments,
      inFlightNow: [...inFlight.values()].reduce((sum, value) => sum + value, 0),
      queuedNow: [...queued.values()].reduce((sum, value) => sum + value, 0),
    };
  }

  /** A deployment's id from its id or name; null when there is none. */
  async deploymentIdOf(idOrName: string): Promise<string | null> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM deployments WHERE id = $1 OR name = $1 LIMIT 1`,
      [idOrName],
    );
    return rows[0]?.id ?? null;
  }
}

function toBucket(start: Date, seconds: number, row: AggregateRow | undefined): TrafficBucket {
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
  };
}

function toRecord(row: RecordRow): RequestRecord {
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
  };
}
