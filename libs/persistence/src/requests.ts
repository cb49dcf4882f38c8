import type { Queryable } from './fleet';

/**
 * The gateway's request records (migration 1767398400000, metadata only) as
 * the console reads them: a keyset-paged list and latency/throughput/error
 * aggregates over a window. The gateway writes them (request-log.ts in
 * apps/gateway) through insertRequestRecords and prunes them with
 * deleteRequestRecordsOlderThan.
 */

export interface RequestRecordRow {
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
  tenant_id: string | null;
}

export interface RequestRecordQuery {
  /** Only records older than this id (keyset paging, newest first). */
  readonly beforeId: string | null;
  readonly deploymentId?: string | null;
  readonly outcome?: string | null;
  /** Only records whose outcome is one of these. */
  readonly outcomes?: readonly string[] | null;
  readonly requestId?: string | null;
  readonly correlationId?: string | null;
  readonly tenantId?: string | null;
  readonly limit: number;
}

/** Request records newest first, with the deployment's name. */
export async function listRequestRecords(
  q: Queryable,
  query: RequestRecordQuery,
): Promise<RequestRecordRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (placeholder: string) => string, value: unknown): void => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (query.beforeId !== null) add((p) => `r.id < ${p}::bigint`, query.beforeId);
  if (query.deploymentId) add((p) => `r.deployment_id = ${p}`, query.deploymentId);
  if (query.outcome) add((p) => `r.outcome = ${p}`, query.outcome);
  if (query.outcomes) add((p) => `r.outcome = ANY(${p}::text[])`, query.outcomes);
  if (query.requestId) add((p) => `r.request_id = ${p}`, query.requestId);
  if (query.correlationId) add((p) => `r.correlation_id = ${p}`, query.correlationId);
  if (query.tenantId) add((p) => `r.tenant_id = ${p}`, query.tenantId);
  params.push(query.limit);
  return q.query<RequestRecordRow[]>(
    `SELECT r.*, r.id::text AS id, d.name AS deployment_name
       FROM request_records r LEFT JOIN deployments d ON d.id = r.deployment_id
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY r.id DESC
      LIMIT $${params.length}`,
    params,
  );
}

export interface RequestAggregateRow {
  requests: number;
  errors: number;
  busy_ms: number | null;
  latency_p50: number | null;
  latency_p95: number | null;
  latency_p99: number | null;
  ttft_p50: number | null;
  ttft_p95: number | null;
  completion_tokens: number;
  prompt_tokens: number;
  rate_limited: number;
}

export interface DeploymentRequestAggregateRow extends RequestAggregateRow {
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
  coalesce(sum(r.completion_tokens), 0)::int AS completion_tokens,
  coalesce(sum(r.prompt_tokens), 0)::int AS prompt_tokens,
  count(*) FILTER (WHERE r.http_status = 429)::int AS rate_limited`;

export interface RequestTrafficWindow {
  readonly windowStart: Date;
  readonly windowEnd: Date;
  /** Outcomes counted as errors. */
  readonly errorOutcomes: readonly string[];
  /** One deployment, or null for all. */
  readonly deploymentId: string | null;
  /** One tenant, or null for all (requests of no tenant included). */
  readonly tenantId?: string | null;
  readonly bucketSeconds: number;
}

export interface TenantRequestAggregateRow extends RequestAggregateRow {
  tenant_id: string | null;
}

/** How many of a tenant's requests named one model or alias. */
export interface TenantModelUsageRow {
  tenant_id: string | null;
  requested_model: string;
  requests: number;
  errors: number;
}

/** Tenants with the most requests a report lists, and the models or aliases it names per tenant. */
export const TRAFFIC_TENANTS_LISTED = 50;
export const TRAFFIC_TOP_MODELS_PER_TENANT = 5;

export interface RequestTraffic {
  /** Aggregates per bucket index from windowStart; buckets without requests are absent. */
  readonly series: (RequestAggregateRow & { bucket: number })[];
  readonly totals: RequestAggregateRow | undefined;
  readonly byDeployment: DeploymentRequestAggregateRow[];
  /** Busiest first, at most TRAFFIC_TENANTS_LISTED; a null tenant is the requests no tenant's key made. */
  readonly byTenant: TenantRequestAggregateRow[];
  /** Per tenant, its most requested models or aliases (at most TRAFFIC_TOP_MODELS_PER_TENANT each). */
  readonly topModels: TenantModelUsageRow[];
}

/** Request aggregates over a window: per bucket, in total, and per deployment (busiest first). */
export async function requestTraffic(q: Queryable, window: RequestTrafficWindow): Promise<RequestTraffic> {
  const scope =
    `r.received_at >= $1 AND r.received_at < $2 AND ($4::text IS NULL OR r.deployment_id = $4)` +
    ` AND ($5::text IS NULL OR r.tenant_id = $5)`;
  const params = [
    window.windowStart,
    window.windowEnd,
    window.errorOutcomes,
    window.deploymentId,
    window.tenantId ?? null,
  ];
  const [series, totals, byDeployment, byTenant, topModels] = await Promise.all([
    q.query<(RequestAggregateRow & { bucket: number })[]>(
      `SELECT floor(extract(epoch FROM (r.received_at - $1)) / $6)::int AS bucket, ${AGGREGATES}
         FROM request_records r WHERE ${scope} GROUP BY 1`,
      [...params, window.bucketSeconds],
    ),
    q.query<RequestAggregateRow[]>(`SELECT ${AGGREGATES} FROM request_records r WHERE ${scope}`, params),
    q.query<DeploymentRequestAggregateRow[]>(
      `SELECT r.deployment_id, d.name AS deployment_name, min(r.model_ref) AS model_ref, ${AGGREGATES}
         FROM request_records r LEFT JOIN deployments d ON d.id = r.deployment_id
        WHERE ${scope}
        GROUP BY r.deployment_id, d.name
        ORDER BY requests DESC, r.deployment_id NULLS LAST`,
      params,
    ),
    q.query<TenantRequestAggregateRow[]>(
      `SELECT r.tenant_id, ${AGGREGATES}
         FROM request_records r WHERE ${scope}
        GROUP BY r.tenant_id
        ORDER BY requests DESC, r.tenant_id NULLS LAST
        LIMIT ${TRAFFIC_TENANTS_LISTED}`,
      params,
    ),
    q.query<TenantModelUsageRow[]>(
      `SELECT tenant_id, requested_model, requests, errors FROM (
         SELECT r.tenant_id, r.requested_model, count(*)::int AS requests,
                count(*) FILTER (WHERE r.outcome = ANY($3::text[]))::int AS errors,
                row_number() OVER (PARTITION BY r.tenant_id ORDER BY count(*) DESC, r.requested_model) AS rank
           FROM request_records r WHERE ${scope}
          GROUP BY r.tenant_id, r.requested_model) ranked
        WHERE rank <= ${TRAFFIC_TOP_MODELS_PER_TENANT}
        ORDER BY tenant_id NULLS LAST, requests DESC, requested_model`,
      params,
    ),
  ]);
  return { series, totals: totals[0], byDeployment, byTenant, topModels };
}

/** Requests the agents report in flight now, per deployment with running replicas (one deployment, or all). */
export async function inFlightByDeployment(
  q: Queryable,
  deploymentId: string | null,
): Promise<{ deployment_id: string; in_flight: number }[]> {
  return q.query(
    `SELECT a.deployment_id, coalesce(sum(a.in_flight), 0)::int AS in_flight
       FROM assignments a
      WHERE a.intent = 'Run' AND ($1::text IS NULL OR a.deployment_id = $1)
      GROUP BY a.deployment_id`,
    [deploymentId],
  );
}

/** A deployment's id from its id or name; null when there is none. */
export async function findDeploymentId(q: Queryable, idOrName: string): Promise<string | null> {
  const rows = await q.query<{ id: string }[]>(
    `SELECT id FROM deployments WHERE id = $1 OR name = $1 LIMIT 1`,
    [idOrName],
  );
  return rows[0]?.id ?? null;
}

/** What the playground needs of a deployment named by id or name; null when there is none. */
export async function findDeploymentModelAndState(
  q: Queryable,
  idOrName: string,
): Promise<{ model_ref: string; state: string } | null> {
  const rows = await q.query<{ model_ref: string; state: string }[]>(
    `SELECT model_ref, state FROM deployments WHERE id = $1 OR name = $1 LIMIT 1`,
    [idOrName],
  );
  return rows[0] ?? null;
}

/**
 * One finished inference request as the gateway writes it: ids, model,
 * deployment, outcome, timings and token counts. Deliberately no field can
 * hold a prompt or a completion.
 */
export interface GatewayRequestRecord {
  readonly requestId: string;
  readonly correlationId: string;
  readonly receivedAt: Date;
  readonly finishedAt: Date;
  readonly kind: 'chat' | 'completion';
  readonly dialect: 'openai' | 'generic';
  /** The model ref or alias the caller named. */
  readonly requestedModel: string;
  readonly modelRef: string | null;
  readonly deploymentId: string | null;
  readonly stream: boolean;
  /** Terminal workload state: Rejected | Completed | Failed | Cancelled | TimedOut. */
  readonly outcome: string;
  readonly errorCode: string | null;
  readonly httpStatus: number;
  readonly ttftMs: number | null;
  readonly durationMs: number;
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  /** The authenticated tenant the request counted against. */
  readonly tenantId: string | null;
  /** Who called: a gateway key's display prefix or an operator actor; never a secret. */
  readonly caller: string | null;
  /** The route's routing policy, the replica it chose (base URL) and why (domain RoutingReason); null if none was chosen. */
  readonly routingPolicy?: string | null;
  readonly routedTo?: string | null;
  readonly routingReason?: string | null;
  /** Milliseconds the request waited in the gateway's queue for a replica slot (0: none); null: never got one. */
  readonly queueWaitMs?: number | null;
  /** The priority the request ran at, and the one it asked for (lower only when its tenant's cap clamped it). */
  readonly priority?: string | null;
  readonly requestedPriority?: string | null;
}

/** Appends a batch of request records in one statement (one array per column). */
export async function insertRequestRecords(
  q: Queryable,
  batch: readonly GatewayRequestRecord[],
): Promise<void> {
  const pick = <T>(read: (entry: GatewayRequestRecord) => T): T[] => batch.map(read);
  await q.query(
    `INSERT INTO request_records (request_id, correlation_id, received_at, finished_at, kind, dialect,
            requested_model, model_ref, deployment_id, stream, outcome, error_code, http_status,
            ttft_ms, duration_ms, prompt_tokens, completion_tokens, tenant_id, caller,
            routing_policy, routed_to, routing_reason, priority, requested_priority, queue_wait_ms)
     SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[],
            $7::text[], $8::text[], $9::text[], $10::boolean[], $11::text[], $12::text[], $13::int[],
            $14::float8[], $15::float8[], $16::int[], $17::int[], $18::text[], $19::text[],
            $20::text[], $21::text[], $22::text[], $23::text[], $24::text[], $25::float8[])`,
    [
      pick((e) => e.requestId),
      pick((e) => e.correlationId),
      pick((e) => e.receivedAt.toISOString()),
      pick((e) => e.finishedAt.toISOString()),
      pick((e) => e.kind),
      pick((e) => e.dialect),
      pick((e) => e.requestedModel.slice(0, 256)),
      pick((e) => e.modelRef),
      pick((e) => e.deploymentId),
      pick((e) => e.stream),
      pick((e) => e.outcome),
      pick((e) => e.errorCode),
      pick((e) => e.httpStatus),
      pick((e) => e.ttftMs),
      pick((e) => e.durationMs),
      pick((e) => e.promptTokens),
      pick((e) => e.completionTokens),
      pick((e) => e.tenantId),
      pick((e) => e.caller),
      pick((e) => e.routingPolicy ?? null),
      pick((e) => e.routedTo ?? null),
      pick((e) => e.routingReason ?? null),
      pick((e) => e.priority ?? null),
      pick((e) => e.requestedPriority ?? null),
      pick((e) => e.queueWaitMs ?? null),
    ],
  );
}

/** Deletes request records received more than `hours` ago. */
export async function deleteRequestRecordsOlderThan(q: Queryable, hours: number): Promise<void> {
  await q.query(`DELETE FROM request_records WHERE received_at < now() - make_interval(hours => $1)`, [
    hours,
  ]);
}
