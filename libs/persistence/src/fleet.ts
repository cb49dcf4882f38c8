import type { NodeConditionsState } from '@lunanexa/domain';
import type {
  GpuTelemetry,
  NodeCondition,
  DeploymentPlacement,
  AssignmentIntent,
  DeploymentPurpose,
  PlacementStrategy,
  DeploymentState,
  ModelVersionState,
  NodeInventory,
  NodeLabels,
  NodeLifecycleState,
  ReplicaState,
  Taint,
  RoutingPolicy,
} from '@lunanexa/contracts';
import { DEFAULT_ROUTING_POLICY, RoutingPolicySchema } from '@lunanexa/contracts';
import { returnedRows } from './returning';

/**
 * The fleet tables (migration 1767312000000) as typed rows, and the queries
 * the API and the worker's activities share. Plain SQL through whatever can
 * `query` — a DataSource or the EntityManager of an open transaction — so a
 * caller decides the transaction and row locks, and both processes read and
 * write the same columns the same way.
 */
export interface Queryable {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
  /**
   * Runs `sql` as the named statement `name`, which each connection parses and plans once and then keeps
   * (pg-pool.ts withPreparedStatements); its rows. Only for a statement run many times a second with a fixed
   * text; callers fall back to `query` where it is absent (a transaction's manager, a test's client).
   */
  queryPrepared?<T = unknown>(name: string, sql: string, parameters: unknown[]): Promise<T>;
}

export interface ObservedNodeState {
  readonly observedAssignments: readonly unknown[];
  readonly runtimes: readonly unknown[];
}

export interface NodeRow {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: NodeLifecycleState;
  readonly cordoned: boolean;
  readonly labels: NodeLabels;
  readonly taints: Taint[];
  readonly address: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
  readonly keyId: string;
  readonly publicKey: string;
  readonly nextKeyId: string | null;
  readonly nextPublicKey: string | null;
  readonly rotationRequestedAt: Date | null;
  readonly credential: unknown;
  readonly credentialSerial: number;
  readonly credentialExpiresAt: Date | null;
  readonly agentCredentialSerial: number | null;
  readonly inventory: NodeInventory;
  readonly observed: ObservedNodeState;
  /** GPU telemetry of the latest accepted heartbeat ([] before the first, or from an agent that sends none). */
  readonly gpuTelemetry: GpuTelemetry[];
  /** The heartbeat-decided conditions with their hysteresis streaks; null before the first heartbeat that set them. */
  readonly conditionsState: NodeConditionsState | null;
  /** `conditionsState`'s conditions ([] when none): what placement and the views read. */
  readonly conditions: readonly NodeCondition[];
  readonly lastHeartbeatSequence: number | null;
  readonly leaseRenewedAt: Date | null;
  readonly leaseExpiresAt: Date | null;
  readonly enrollWorkflowId: string;
  readonly bootstrapTokenId: string;
  readonly enrolledAt: Date;
  readonly updatedAt: Date;
}

const NODE_COLUMNS = `
  id, name, lifecycle, cordoned, labels, taints, address, ssh_port, host_key_fingerprint, key_id, public_key,
  next_key_id, next_public_key, rotation_requested_at, credential, credential_serial, credential_expires_at,
  agent_credential_serial, inventory, observed, gpu_telemetry, conditions, last_heartbeat_sequence, lease_renewed_at, lease_expires_at,
  enroll_workflow_id, bootstrap_token_id, enrolled_at, updated_at`;

type Raw = Record<string, unknown>;

function date(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'string' || typeof value === 'number') return new Date(value);
  throw new Error(`not a timestamp: ${typeof value}`);
}

function nodeFromRow(row: Raw): NodeRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    lifecycle: row['lifecycle'] as NodeLifecycleState,
    cordoned: row['cordoned'] as boolean,
    labels: row['labels'] as NodeLabels,
    taints: row['taints'] as Taint[],
    address: row['address'] as string,
    sshPort: row['ssh_port'] as number,
    hostKeyFingerprint: row['host_key_fingerprint'] as string,
    keyId: row['key_id'] as string,
    publicKey: row['public_key'] as string,
    nextKeyId: (row['next_key_id'] as string | null) ?? null,
    nextPublicKey: (row['next_public_key'] as string | null) ?? null,
    rotationRequestedAt: date(row['rotation_requested_at']),
    credential: row['credential'] ?? null,
    credentialSerial: row['credential_serial'] as number,
    credentialExpiresAt: date(row['credential_expires_at']),
    agentCredentialSerial: (row['agent_credential_serial'] as number | null) ?? null,
    inventory: row['inventory'] as NodeInventory,
    observed: row['observed'] as ObservedNodeState,
    gpuTelemetry: (row['gpu_telemetry'] as GpuTelemetry[] | null) ?? [],
    conditionsState: (row['conditions'] as NodeConditionsState | null) ?? null,
    conditions: (row['conditions'] as NodeConditionsState | null)?.conditions ?? [],
    lastHeartbeatSequence:
      row['last_heartbeat_sequence'] === null ? null : Number(row['last_heartbeat_sequence']),
    leaseRenewedAt: date(row['lease_renewed_at']),
    leaseExpiresAt: date(row['lease_expires_at']),
    enrollWorkflowId: row['enroll_workflow_id'] as string,
    bootstrapTokenId: row['bootstrap_token_id'] as string,
    enrolledAt: date(row['enrolled_at']) ?? new Date(0),
    updatedAt: date(row['updated_at']) ?? new Date(0),
  };
}

/** A node by id, or by name when no id matches (operators type names; automation passes ids). */
export async function findNode(
  q: Queryable,
  idOrName: string,
  options: { forUpdate?: boolean } = {},
): Promise<NodeRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${NODE_COLUMNS} FROM nodes WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1${
      options.forUpdate ? ' FOR UPDATE' : ''
    }`,
    [idOrName],
  );
  return rows[0] ? nodeFromRow(rows[0]) : null;
}

/**
 * What taking a node's heartbeat needs: its keys, lifecycle, conditions and recorded inventory (a heartbeat
 * may send only the inventory's digest); no observed state or credential to parse.
 */
export interface NodeKeysRow {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: NodeLifecycleState;
  readonly keyId: string;
  readonly publicKey: string;
  readonly nextKeyId: string | null;
  readonly nextPublicKey: string | null;
  /** The stored conditions state, which the next heartbeat's conditions are computed from. */
  readonly conditionsState: NodeConditionsState | null;
  /** The GPUs of the recorded inventory: one a heartbeat no longer reports is missing. */
  readonly gpuUuids: readonly string[];
  /** The recorded inventory: what a heartbeat that sends only its digest has (libs/contracts HeartbeatSchema). */
  readonly inventory: NodeInventory;
}

/** A node's keys by id (never by name), read before any transaction on every heartbeat. */
export async function findNodeKeys(q: Queryable, nodeId: string): Promise<NodeKeysRow | null> {
  const rows = await q.query<
    {
      id: string;
      name: string;
      lifecycle: NodeLifecycleState;
      key_id: string;
      public_key: string;
      next_key_id: string | null;
      next_public_key: string | null;
      conditions: NodeConditionsState | null;
      inventory: NodeInventory;
    }[]
  >(
    `SELECT id, name, lifecycle, key_id, public_key, next_key_id, next_public_key, conditions, inventory
       FROM nodes WHERE id = $1`,
    [nodeId],
  );
  const row = rows[0];
  return row
    ? {
        id: row.id,
        name: row.name,
        lifecycle: row.lifecycle,
        keyId: row.key_id,
        publicKey: row.public_key,
        nextKeyId: row.next_key_id,
        nextPublicKey: row.next_public_key,
        conditionsState: row.conditions ?? null,
        gpuUuids: row.inventory.gpus.map((gpu) => gpu.uuid),
        inventory: row.inventory,
      }
    : null;
}

/** What readiness is derived from, for every node: no observed state or credentials (read on every metrics scrape). */
export interface NodeReadinessRow {
  readonly id: string;
  readonly lifecycle: NodeLifecycleState;
  readonly inventory: NodeInventory;
  readonly leaseRenewedAt: Date | null;
  readonly leaseExpiresAt: Date | null;
  /** The heartbeat-decided conditions ([] before the first). */
  readonly conditions: readonly NodeCondition[];
}

export async function listNodeReadinessInputs(q: Queryable): Promise<NodeReadinessRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT id, lifecycle, inventory, lease_renewed_at, lease_expires_at, conditions -> 'conditions' AS conditions
       FROM nodes ORDER BY id`,
  );
  return rows.map((row) => ({
    id: row['id'] as string,
    lifecycle: row['lifecycle'] as NodeLifecycleState,
    inventory: row['inventory'] as NodeInventory,
    leaseRenewedAt: date(row['lease_renewed_at']),
    leaseExpiresAt: date(row['lease_expires_at']),
    conditions: (row['conditions'] as NodeCondition[] | null) ?? [],
  }));
}

/**
 * Nodes in `lifecycles` whose agent speaks an older protocol than `protocol`
 * (`nodes.agent_protocol`, derived from the inventory), for the
 * `lunanexa_nodes_agent_outdated` gauge.
 */
export async function countOutdatedAgents(
  q: Queryable,
  protocol: number,
  lifecycles: readonly NodeLifecycleState[],
): Promise<number> {
  const rows = await q.query<{ outdated: number }[]>(
    'SELECT count(*)::int AS outdated FROM nodes WHERE agent_protocol < $1 AND lifecycle = ANY($2::text[])',
    [protocol, lifecycles],
  );
  return rows[0]?.outdated ?? 0;
}

/** Names of the nodes in `lifecycles` whose agents report a protocol below `protocol`, by name. */
export async function listOutdatedAgentNodes(
  q: Queryable,
  protocol: number,
  lifecycles: readonly NodeLifecycleState[],
): Promise<string[]> {
  const rows = await q.query<{ name: string }[]>(
    'SELECT name FROM nodes WHERE agent_protocol < $1 AND lifecycle = ANY($2::text[]) ORDER BY name',
    [protocol, lifecycles],
  );
  return rows.map((row) => row.name);
}

/** One node's latest GPU telemetry with the index of each GPU its inventory lists (older agents send no index). */
export interface NodeGpuTelemetry {
  readonly nodeName: string;
  readonly telemetry: GpuTelemetry[];
  readonly inventoryIndexByUuid: ReadonlyMap<string, number>;
}

/**
 * The GPU telemetry of nodes whose lease holds at `now`: a node past its
 * lease has no current figures, and reporting its last ones as current would
 * hide that (the `lunanexa_gpu_*` gauges read this at scrape time).
 */
export async function listLiveGpuTelemetry(q: Queryable, now: Date): Promise<NodeGpuTelemetry[]> {
  const rows = await q.query<
    { name: string; gpu_telemetry: GpuTelemetry[]; gpus: { uuid: string; index: number }[] | null }[]
  >(
    `SELECT name, gpu_telemetry, inventory -> 'gpus' AS gpus FROM nodes
      WHERE lease_expires_at > $1 AND jsonb_array_length(gpu_telemetry) > 0 ORDER BY name`,
    [now],
  );
  return rows.map((row) => ({
    nodeName: row.name,
    telemetry: row.gpu_telemetry,
    inventoryIndexByUuid: new Map((row.gpus ?? []).map((gpu) => [gpu.uuid, gpu.index])),
  }));
}

/** What one heartbeat says about one of the node's assignments (libs/contracts ObservedAssignment). */
export interface AssignmentObservation {
  readonly assignmentId: string;
  readonly state: string;
  readonly generation: number;
  readonly endpointPort: number | null;
  readonly inFlightRequests?: number | null | undefined;
  readonly message: string | null;
  /** The agent's restart counter for the replica. */
  readonly restarts: number;
  /** What the runtime's /metrics page said (libs/contracts RuntimeLoad); null or absent when unread. */
  readonly load?: {
    readonly waiting: number | null;
    readonly running: number | null;
    readonly cachePressure: number | null;
    readonly scrapedAt: string;
  } | null;
}

/** At most this many crash rows per heartbeat and replica (a counter that jumped is still one report). */
const MAX_CRASHES_PER_REPORT = 100;

/** Each observation as a row of OBSERVATION_COLUMNS (`n`: its place in the report, the last one wins). */
function observationRecords(observed: readonly AssignmentObservation[]): Record<string, unknown>[] {
  return observed.map((o, n) => ({
    n,
    id: o.assignmentId,
    state: o.state,
    generation: o.generation,
    endpoint_port: o.endpointPort,
    in_flight: o.inFlightRequests ?? null,
    message: o.message,
    restarts: o.restarts,
    load_waiting: o.load?.waiting ?? null,
    load_running: o.load?.running ?? null,
    load_cache_pressure: o.load?.cachePressure ?? null,
    load_scraped_at: o.load?.scrapedAt ?? null,
  }));
}

/** observationRecords as the JSON a one-node statement takes as its parameter. */
function observationRows(observed: readonly AssignmentObservation[]): string {
  return JSON.stringify(observationRecords(observed));
}

/** The columns of one observationRows element, for jsonb_to_recordset. */
const OBSERVATION_COLUMNS = `n integer, id text, state text, generation integer, endpoint_port integer, in_flight integer,
                message text, restarts integer, load_waiting integer, load_running integer,
                load_cache_pressure double precision, load_scraped_at timestamptz`;

/**
 * The CTEs (before, updated, crashes, changed) that fold observations into
 * assignments and their health counters, after a CTE `o` of the reports
 * (one row per node and assignment: node_id, at, and the observationRows
 * columns). `max` is MAX_CRASHES_PER_REPORT. A report only touches an
 * assignment of the node that sent it. `ids`, when given, is a text[] of
 * every reported assignment id: a statement whose plan is kept
 * (renewNodeLeases) then looks them up by key instead of hashing every row
 * `assignments` ever had (rows of stopped replicas stay).
 */
function observationUpdateCtes(max: string, ids?: string): string {
  return `before AS (
       SELECT a.id, a.node_id, a.observed_restarts, a.observed_state, a.observed_generation FROM assignments a
         JOIN o ON o.id = a.id AND o.node_id = a.node_id${
           ids === undefined
             ? ''
             : `
        WHERE a.id = ANY(${ids})`
         }
        ORDER BY a.id FOR UPDATE OF a),
     updated AS (
       UPDATE assignments a
          SET observed_state = o.state, observed_generation = o.generation, endpoint_port = o.endpoint_port,
              in_flight = o.in_flight, observed_message = o.message, observed_at = o.at,
              observed_restarts = o.restarts,
              load_waiting = o.load_waiting, load_running = o.load_running,
              load_cache_pressure = o.load_cache_pressure,
              -- Never later than receipt: an agent clock running ahead must not keep its figures fresh for longer.
              -- (Not LEAST: it skips NULLs, and an unread load must stay without a time.)
              load_scraped_at = CASE WHEN o.load_scraped_at > o.at THEN o.at ELSE o.load_scraped_at END,
              restarts_baseline = LEAST(a.restarts_baseline, o.restarts),
              health_failures = CASE WHEN o.state = 'Unhealthy' THEN a.health_failures + 1 ELSE 0 END
         FROM before b JOIN o ON o.id = b.id AND o.node_id = b.node_id
        WHERE a.id = b.id
       RETURNING a.id, a.deployment_id, o.node_id, o.at, b.observed_restarts AS previous, o.restarts,
                 (b.observed_state IS DISTINCT FROM o.state OR b.observed_generation IS DISTINCT FROM o.generation)
                   AS changed),
     crashes AS (
       INSERT INTO runtime_crashes (node_id, assignment_id, observed_at)
       SELECT u.node_id, u.id, u.at FROM updated u
        CROSS JOIN LATERAL generate_series(1, LEAST(${max}::integer, u.restarts - u.previous))
        WHERE u.restarts > u.previous
       RETURNING 1),
     changed AS (
       SELECT coalesce(array_agg(DISTINCT d.workflow_id), '{}') AS workflow_ids
         FROM updated u JOIN deployments d ON d.id = u.deployment_id WHERE u.changed)`;
}

/**
 * The CTEs of one node's report: $1 node id, `json` the rows of
 * observationRows, `at` the time, `max` MAX_CRASHES_PER_REPORT; `gate`
 * names a CTE that must have returned a row for anything to change.
 */
function observationCtes(json: string, at: string, max: string, gate: string | null): string {
  return `o AS (
       SELECT DISTINCT ON (r.id) $1::text AS node_id, ${at}::timestamptz AS at, r.*
         FROM ${gate ? `${gate}, ` : ''}jsonb_to_recordset(${json}::jsonb) AS r(${OBSERVATION_COLUMNS})
        ORDER BY r.id, r.n DESC),
     ${observationUpdateCtes(max)}`;
}

/**
 * Folds one heartbeat's observed assignments into their rows in one
 * statement (the ingest path runs it for every node every few seconds):
 * observed state, generation, endpoint, in-flight count and runtime load
 * (the latest report replaces the last one, null included), and the health
 * counters the healing rules read — the restart counter as reported (an
 * increase is recorded as that many runtime crashes on the node),
 * consecutive Unhealthy reports, and the healing baseline lowered when the
 * agent's counter went back (the agent restarted, or the runtime spec
 * changed). Reports of replicas not on this node are ignored; a replica
 * reported twice counts once (the last report).
 */
export async function recordAssignmentObservations(
  q: Queryable,
  nodeId: string,
  observed: readonly AssignmentObservation[],
  at: Date,
): Promise<ObservationChanges> {
  if (observed.length === 0) return { changedDeploymentWorkflowIds: [] };
  const rows = await q.query<{ crashes: string; workflow_ids: string[] }[]>(
    `WITH ${observationCtes('$2', '$3', '$4', null)}
     SELECT (SELECT count(*) FROM crashes) AS crashes, (SELECT workflow_ids FROM changed) AS workflow_ids`,
    [nodeId, observationRows(observed), at, MAX_CRASHES_PER_REPORT],
  );
  return { changedDeploymentWorkflowIds: rows[0]?.workflow_ids ?? [] };
}

/**
 * The deployments (by workflow id) whose replicas on this node reported a
 * state or generation other than the one on record: their workflows wait
 * for exactly that news.
 */
export interface ObservationChanges {
  readonly changedDeploymentWorkflowIds: readonly string[];
}

/** What a heartbeat's ack reads of its node. */
export type HeartbeatAckNode = Pick<
  NodeRow,
  | 'id'
  | 'name'
  | 'lifecycle'
  | 'cordoned'
  | 'credential'
  | 'credentialSerial'
  | 'rotationRequestedAt'
  | 'nextKeyId'
  | 'bootstrapTokenId'
>;

export interface LeaseRenewal {
  readonly nodeId: string;
  /** The key that signed the heartbeat: must be the node's current one. */
  readonly keyId: string;
  readonly sequence: number;
  readonly at: Date;
  readonly leaseExpiresAt: Date;
  /** The inventory the heartbeat sent; null when it sent only the digest of the one recorded (kept as is). */
  readonly inventory: unknown;
  readonly observed: unknown;
  readonly gpuTelemetry: readonly GpuTelemetry[];
  /** The conditions computed from `previousConditions` and this heartbeat. */
  readonly conditions: NodeConditionsState;
  /** The stored state they were computed from: the renewal does not apply if another heartbeat changed it since. */
  readonly previousConditions: NodeConditionsState | null;
  readonly agentCredentialSerial: number | null;
  /** Where the agent says it listens; null when it does not say. */
  readonly endpoint: { readonly address: string; readonly sshPort: number } | null;
  readonly observedAssignments: readonly AssignmentObservation[];
}

/** A renewed node as both renewal statements return it (the batch's also `i`, the renewal's place in it). */
interface RenewedLeaseRow {
  id: string;
  name: string;
  lifecycle: NodeLifecycleState;
  cordoned: boolean;
  credential: unknown;
  credential_serial: number;
  rotation_requested_at: Date | null;
  next_key_id: string | null;
  bootstrap_token_id: string;
  workflow_ids: string[];
}

function ackNodeOf(row: RenewedLeaseRow): HeartbeatAckNode {
  return {
    id: row.id,
    name: row.name,
    lifecycle: row.lifecycle,
    cordoned: row.cordoned,
    credential: row.credential ?? null,
    credentialSerial: row.credential_serial,
    rotationRequestedAt: row.rotation_requested_at === null ? null : new Date(row.rotation_requested_at),
    nextKeyId: row.next_key_id,
    bootstrapTokenId: row.bootstrap_token_id,
  };
}

/**
 * The heartbeat of a node with nothing else to settle — signed by its
 * current key, no key rotation under way, at the address and port on record,
 * a sequence after the last one — in one statement, no explicit transaction:
 * lease, inventory (rewritten only when it changed), observed state and the
 * replicas' observations. Null when any of those conditions does not hold:
 * the caller then takes the full path, which knows why.
 */
export async function renewNodeLease(
  q: Queryable,
  renewal: LeaseRenewal,
): Promise<(HeartbeatAckNode & ObservationChanges) | null> {
  const rows = await q.query<RenewedLeaseRow[]>(
    `WITH n AS (
       UPDATE nodes SET last_heartbeat_sequence = $2, lease_renewed_at = $3, lease_expires_at = $4,
              inventory = CASE WHEN $5::jsonb IS NULL OR inventory = $5::jsonb THEN inventory ELSE $5::jsonb END,
              observed = $6::jsonb, agent_credential_serial = $7, gpu_telemetry = $13::jsonb,
              conditions = $14::jsonb, updated_at = $3
        WHERE id = $1 AND key_id = $8 AND next_key_id IS NULL AND conditions IS NOT DISTINCT FROM $15::jsonb
          AND lifecycle NOT IN ('Rejected', 'Revoked')
          AND (last_heartbeat_sequence IS NULL OR last_heartbeat_sequence < $2)
          AND ($9::text IS NULL OR (address = $9 AND ssh_port = $10))
       RETURNING id, name, lifecycle, cordoned, credential, credential_serial, rotation_requested_at, next_key_id,
                 bootstrap_token_id),
     ${observationCtes('$11', '$3', '$12', 'n')}
     SELECT n.*, (SELECT count(*) FROM crashes) AS crashes, (SELECT workflow_ids FROM changed) AS workflow_ids FROM n`,
    [
      renewal.nodeId,
      renewal.sequence,
      renewal.at,
      renewal.leaseExpiresAt,
      renewal.inventory === null ? null : JSON.stringify(renewal.inventory),
      JSON.stringify(renewal.observed),
      renewal.agentCredentialSerial,
      renewal.keyId,
      renewal.endpoint?.address ?? null,
      renewal.endpoint?.sshPort ?? null,
      observationRows(renewal.observedAssignments),
      MAX_CRASHES_PER_REPORT,
      JSON.stringify(renewal.gpuTelemetry),
      JSON.stringify(renewal.conditions),
      renewal.previousConditions === null ? null : JSON.stringify(renewal.previousConditions),
    ],
  );
  const row = rows[0];
  return row ? { ...ackNodeOf(row), changedDeploymentWorkflowIds: row.workflow_ids } : null;
}

/** What renewNodeLeases answers: per renewal (same order) its node, or null; and the deployments to wake. */
export interface LeaseRenewals {
  readonly nodes: readonly (HeartbeatAckNode | null)[];
  readonly changedDeploymentWorkflowIds: readonly string[];
}

/** renewNodeLeases' statement, prepared on each heartbeat connection: its planning cost about as much as its run. */
const RENEW_NODE_LEASES_STATEMENT = 'lunanexa_renew_node_leases';

/**
 * The name renewNodeLeases prepares its statement under for a fleet of
 * about `fleetSize` nodes. PostgreSQL keeps a named statement's generic plan
 * for the life of the connection, until an ANALYZE of a table it reads
 * invalidates it. A plan made while the fleet was a handful of nodes hashes
 * every row of `nodes` (a sequential scan, dead versions included) for each
 * batch, and with autovacuum off or behind it stays that way: at a thousand
 * nodes that scan was half of PostgreSQL's heartbeat work. One name per
 * power of two: each time the fleet doubles the statement is planned again,
 * for the tables as they are then (at most one name per doubling stays
 * prepared on a connection).
 */
export function renewNodeLeasesStatement(fleetSize: number): string {
  return `${RENEW_NODE_LEASES_STATEMENT}_${Math.ceil(Math.log2(Math.max(1, fleetSize)))}`;
}

const RENEW_NODE_LEASES_SQL = `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(i integer, node_id text, key_id text, sequence bigint,
           at timestamptz, lease_expires_at timestamptz, inventory jsonb, observed jsonb,
           agent_credential_serial integer, gpu_telemetry jsonb, conditions jsonb, previous_conditions jsonb,
           address text, ssh_port integer, observations jsonb)),
     n AS (
       UPDATE nodes SET last_heartbeat_sequence = r.sequence, lease_renewed_at = r.at,
              lease_expires_at = r.lease_expires_at,
              inventory = CASE WHEN r.inventory IS NULL OR nodes.inventory = r.inventory THEN nodes.inventory
                               ELSE r.inventory END,
              observed = r.observed, agent_credential_serial = r.agent_credential_serial,
              gpu_telemetry = r.gpu_telemetry, conditions = r.conditions, updated_at = r.at
         FROM r
        WHERE nodes.id = r.node_id AND nodes.id = ANY($3::text[])
          AND nodes.key_id = r.key_id AND nodes.next_key_id IS NULL
          AND nodes.lifecycle NOT IN ('Rejected', 'Revoked')
          AND nodes.conditions IS NOT DISTINCT FROM r.previous_conditions
          AND (nodes.last_heartbeat_sequence IS NULL OR nodes.last_heartbeat_sequence < r.sequence)
          AND (r.address IS NULL OR (nodes.address = r.address AND nodes.ssh_port = r.ssh_port))
       RETURNING r.i, r.at, r.observations, nodes.id, nodes.name, nodes.lifecycle, nodes.cordoned,
                 nodes.credential, nodes.credential_serial, nodes.rotation_requested_at, nodes.next_key_id,
                 nodes.bootstrap_token_id),
     o AS (
       SELECT DISTINCT ON (n.id, x.id) n.id AS node_id, n.at, x.*
         FROM n CROSS JOIN LATERAL jsonb_to_recordset(n.observations) AS x(${OBSERVATION_COLUMNS})
        ORDER BY n.id, x.id, x.n DESC),
     ${observationUpdateCtes('$2', '$4::text[]')}
     SELECT n.i, n.id, n.name, n.lifecycle, n.cordoned, n.credential, n.credential_serial,
            n.rotation_requested_at, n.next_key_id, n.bootstrap_token_id,
            (SELECT count(*) FROM crashes) AS crashes, (SELECT workflow_ids FROM changed) AS workflow_ids,
            set_config('synchronous_commit', 'off', true) AS commit_mode
       FROM n`;

/**
 * Several nodes' renewNodeLease in one statement (group commit: one round
 * trip, one transaction, one WAL flush for a whole batch of heartbeats).
 * The commit is asynchronous (`synchronous_commit = off` for this
 * transaction only): it returns before the WAL reaches the disk, so the
 * next batch does not wait for the previous one's flush. What it writes is
 * what every heartbeat sends again a second later — lease, sequence,
 * inventory, observed state, telemetry, the replicas' observations and
 * cumulative restart counters — so a PostgreSQL crash can lose at most the
 * last few hundred milliseconds of renewals (wal_writer_delay), which the
 * next heartbeats restore; a lost sequence only lets an already-seen
 * heartbeat renew a lease once more inside its 120 s window, if the api's
 * nonce memory is gone too. Anything audited (a condition changing status,
 * refusals, a key rotation, an endpoint move) takes the full path, whose
 * commit is synchronous.
 * Each renewal is applied or not exactly as renewNodeLease decides it, and
 * also not to a Rejected or Revoked node, so a caller working from a cached
 * view of the node learns that it is stale (null). At most one renewal per
 * node: a second would race the first's sequence check.
 */
export async function renewNodeLeases(
  q: Queryable,
  renewals: readonly LeaseRenewal[],
  /** How many nodes the caller has renewed so far (renewNodeLeasesStatement); never counted below this batch. */
  fleetSize = 0,
): Promise<LeaseRenewals> {
  if (new Set(renewals.map((r) => r.nodeId)).size !== renewals.length) {
    throw new Error('renewNodeLeases takes at most one renewal per node');
  }
  if (renewals.length === 0) return { nodes: [], changedDeploymentWorkflowIds: [] };
  const input = renewals.map((renewal, i) => ({
    i,
    node_id: renewal.nodeId,
    key_id: renewal.keyId,
    sequence: renewal.sequence,
    at: renewal.at.toISOString(),
    lease_expires_at: renewal.leaseExpiresAt.toISOString(),
    inventory: renewal.inventory,
    observed: renewal.observed,
    agent_credential_serial: renewal.agentCredentialSerial,
    gpu_telemetry: renewal.gpuTelemetry,
    conditions: renewal.conditions,
    previous_conditions: renewal.previousConditions,
    address: renewal.endpoint?.address ?? null,
    ssh_port: renewal.endpoint?.sshPort ?? null,
    observations: observationRecords(renewal.observedAssignments),
  }));
  const parameters = [
    JSON.stringify(input),
    MAX_CRASHES_PER_REPORT,
    renewals.map((r) => r.nodeId),
    renewals.flatMap((r) => r.observedAssignments.map((o) => o.assignmentId)),
  ];
  const rows = q.queryPrepared
    ? await q.queryPrepared<(RenewedLeaseRow & { i: number })[]>(
        renewNodeLeasesStatement(Math.max(fleetSize, renewals.length)),
        RENEW_NODE_LEASES_SQL,
        parameters,
      )
    : await q.query<(RenewedLeaseRow & { i: number })[]>(RENEW_NODE_LEASES_SQL, parameters);
  const nodes: (HeartbeatAckNode | null)[] = renewals.map(() => null);
  for (const row of rows) nodes[row.i] = ackNodeOf(row);
  return { nodes, changedDeploymentWorkflowIds: rows[0]?.workflow_ids ?? [] };
}

/** The names of the nodes with these ids (an id no node has is left out): views that name nodes need no more. */
export async function listNodeNames(q: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; name: string }[]>(
    `SELECT id, name FROM nodes WHERE id = ANY($1::text[])`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function listNodes(q: Queryable): Promise<NodeRow[]> {
  const rows = await q.query<Raw[]>(`SELECT ${NODE_COLUMNS} FROM nodes ORDER BY name`);
  return rows.map(nodeFromRow);
}

export interface BootstrapTokenRow {
  readonly id: string;
  readonly prefix: string;
  readonly nodeName: string | null;
  readonly labels: NodeLabels;
  readonly autoApprove: boolean;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
  readonly usedByNodeId: string | null;
  readonly revokedAt: Date | null;
}

const TOKEN_COLUMNS = `id, prefix, node_name, labels, auto_approve, created_by, created_at, expires_at, used_at,
  used_by_node_id, revoked_at`;

function tokenFromRow(row: Raw): BootstrapTokenRow {
  return {
    id: row['id'] as string,
    prefix: row['prefix'] as string,
    nodeName: (row['node_name'] as string | null) ?? null,
    labels: row['labels'] as NodeLabels,
    autoApprove: row['auto_approve'] as boolean,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
    expiresAt: date(row['expires_at']) ?? new Date(0),
    usedAt: date(row['used_at']),
    usedByNodeId: (row['used_by_node_id'] as string | null) ?? null,
    revokedAt: date(row['revoked_at']),
  };
}

export async function findBootstrapTokenByHash(
  q: Queryable,
  tokenHash: string,
  options: { forUpdate?: boolean } = {},
): Promise<BootstrapTokenRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${TOKEN_COLUMNS} FROM bootstrap_tokens WHERE token_hash = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenHash],
  );
  return rows[0] ? tokenFromRow(rows[0]) : null;
}

export async function findBootstrapToken(q: Queryable, id: string): Promise<BootstrapTokenRow | null> {
  const rows = await q.query<Raw[]>(`SELECT ${TOKEN_COLUMNS} FROM bootstrap_tokens WHERE id = $1`, [id]);
  return rows[0] ? tokenFromRow(rows[0]) : null;
}

export async function listBootstrapTokens(q: Queryable, limit = 200): Promise<BootstrapTokenRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${TOKEN_COLUMNS} FROM bootstrap_tokens ORDER BY created_at DESC LIMIT $1`,
    [limit],
  );
  return rows.map(tokenFromRow);
}

export interface ModelVersionRow {
  readonly id: string;
  readonly model: string;
  readonly version: string;
  readonly ref: string;
  readonly artifact: unknown;
  readonly runtime: unknown;
  readonly runtimeEnv: Record<string, string>;
  readonly modelId: string;
  readonly state: ModelVersionState;
  readonly stateReason: string | null;
  readonly licenseId: string;
  readonly runtimeId: string;
  /** CompatibleHardware: what one replica needs. */
  readonly requirements: unknown;
  readonly verification: ArtifactVerification | null;
  /** EvaluationSummary of the latest evaluation, or null. */
  readonly evaluation: unknown;
  readonly contextLength: number | null;
  readonly parameterCount: number | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The outcome of the last digest check of a version's artifact against its store. */
export interface ArtifactVerification {
  readonly ok: boolean;
  /** The digest the store's bytes hashed to (null when they could not be read). */
  readonly digest: string | null;
  readonly sizeBytes: number | null;
  /** `s3`, `oci`, `file` or `synthetic` (fake-runtime weights derived from the ref). */
  readonly store: string;
  readonly verifiedAt: string;
  /** Typed reason when not ok: DIGEST_MISMATCH, DEPENDENCY_UNAVAILABLE, NOT_FOUND… */
  readonly code?: string;
  readonly message?: string;
}

export const MODEL_VERSION_COLUMNS = `id, model, version, ref, artifact, runtime, runtime_env, model_id, state, state_reason,
  license_id, runtime_id, requirements, verification, evaluation, context_length, parameter_count,
  created_by, created_at, updated_at`;

function modelVersionFromRow(row: Raw): ModelVersionRow {
  return {
    id: row['id'] as string,
    model: row['model'] as string,
    version: row['version'] as string,
    ref: row['ref'] as string,
    artifact: row['artifact'],
    runtime: row['runtime'],
    runtimeEnv: row['runtime_env'] as Record<string, string>,
    modelId: row['model_id'] as string,
    state: row['state'] as ModelVersionState,
    stateReason: (row['state_reason'] as string | null) ?? null,
    licenseId: row['license_id'] as string,
    runtimeId: row['runtime_id'] as string,
    requirements: row['requirements'],
    verification: (row['verification'] as ArtifactVerification | null) ?? null,
    evaluation: row['evaluation'] ?? null,
    contextLength: (row['context_length'] as number | null) ?? null,
    parameterCount:
      row['parameter_count'] === null || row['parameter_count'] === undefined
        ? null
        : Number(row['parameter_count']),
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
    updatedAt: date(row['updated_at']) ?? new Date(0),
  };
}

export async function findModelVersion(q: Queryable, idOrRef: string): Promise<ModelVersionRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${MODEL_VERSION_COLUMNS} FROM model_versions WHERE ref = $1 OR id::text = $1 LIMIT 1`,
    [idOrRef],
  );
  return rows[0] ? modelVersionFromRow(rows[0]) : null;
}

export async function listModelVersions(q: Queryable): Promise<ModelVersionRow[]> {
  const rows = await q.query<Raw[]>(`SELECT ${MODEL_VERSION_COLUMNS} FROM model_versions ORDER BY ref`);
  return rows.map(modelVersionFromRow);
}

export interface DeploymentRow {
  readonly id: string;
  readonly name: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly state: DeploymentState;
  readonly stateReason: string | null;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly desiredReplicas: number;
  readonly nodeSelector: NodeLabels;
  readonly requestedNodeId: string | null;
  readonly workflowId: string;
  /** Candidate: under evaluation, not behind an alias; Serving: started by a rollout for an alias. */
  readonly purpose: DeploymentPurpose;
  readonly rolloutId: string | null;
  readonly placementStrategy: PlacementStrategy;
  /** How the gateway picks among its replicas (contracts ROUTING_POLICIES); read from the row, default least-loaded. */
  readonly routingPolicy?: RoutingPolicy;
  /** The scheduler's last decision; null until first placed. */
  readonly placement: DeploymentPlacement | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const DEPLOYMENT_COLUMNS = `id, name, model_version_id, model_ref, state, state_reason, generation,
  observed_generation, desired_replicas, node_selector, requested_node_id, workflow_id, purpose, rollout_id,
  placement, placement_strategy, created_by, created_at, updated_at, routing_policy`;

function deploymentFromRow(row: Raw): DeploymentRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    modelVersionId: row['model_version_id'] as string,
    modelRef: row['model_ref'] as string,
    state: row['state'] as DeploymentState,
    stateReason: (row['state_reason'] as string | null) ?? null,
    generation: row['generation'] as number,
    observedGeneration: row['observed_generation'] as number,
    desiredReplicas: row['desired_replicas'] as number,
    nodeSelector: row['node_selector'] as NodeLabels,
    requestedNodeId: (row['requested_node_id'] as string | null) ?? null,
    workflowId: row['workflow_id'] as string,
    purpose: row['purpose'] as DeploymentPurpose,
    rolloutId: (row['rollout_id'] as string | null) ?? null,
    placementStrategy: row['placement_strategy'] as PlacementStrategy,
    routingPolicy: RoutingPolicySchema.safeParse(row['routing_policy']).data ?? DEFAULT_ROUTING_POLICY,
    placement: (row['placement'] as DeploymentPlacement | null) ?? null,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
    updatedAt: date(row['updated_at']) ?? new Date(0),
  };
}

/**
 * Sets a deployment's routing policy; the gateways pick it up at their next
 * route refresh (about a second). Returns the policy it had, or null when
 * there is no such deployment.
 */
export async function setDeploymentRoutingPolicy(
  q: Queryable,
  deploymentId: string,
  policy: RoutingPolicy,
): Promise<RoutingPolicy | null> {
  const rows = await q.query<unknown>(
    `UPDATE deployments d SET routing_policy = $2
       FROM (SELECT id, routing_policy AS before FROM deployments WHERE id = $1 FOR UPDATE) old
      WHERE d.id = old.id
      RETURNING old.before`,
    [deploymentId, policy],
  );
  const row = returnedRows<Raw>(rows)[0];
  return row === undefined
    ? null
    : (RoutingPolicySchema.safeParse(row['before']).data ?? DEFAULT_ROUTING_POLICY);
}

export async function findDeployment(
  q: Queryable,
  idOrName: string,
  options: { forUpdate?: boolean } = {},
): Promise<DeploymentRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1${
      options.forUpdate ? ' FOR UPDATE' : ''
    }`,
    [idOrName],
  );
  return rows[0] ? deploymentFromRow(rows[0]) : null;
}

/** Deployment names by id, for the ids that exist. */
export async function deploymentNamesById(
  q: Queryable,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; name: string }[]>(
    `SELECT id, name FROM deployments WHERE id = ANY($1::text[])`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function listDeployments(q: Queryable): Promise<DeploymentRow[]> {
  const rows = await q.query<Raw[]>(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY created_at DESC`);
  return rows.map(deploymentFromRow);
}

export interface AssignmentRow {
  readonly id: string;
  readonly deploymentId: string;
  readonly nodeId: string;
  readonly generation: number;
  readonly intent: AssignmentIntent;
  readonly leaseExpiresAt: Date;
  readonly spec: unknown;
  readonly ackedGeneration: number | null;
  readonly ackedAt: Date | null;
  readonly observedState: ReplicaState | null;
  readonly observedGeneration: number | null;
  readonly endpointPort: number | null;
  readonly inFlight: number | null;
  readonly observedMessage: string | null;
  readonly observedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const ASSIGNMENT_COLUMNS = `id, deployment_id, node_id, generation, intent, lease_expires_at, spec, acked_generation,
  acked_at, observed_state, observed_generation, endpoint_port, in_flight, observed_message, observed_at, created_at,
  updated_at`;

function assignmentFromRow(row: Raw): AssignmentRow {
  return {
    id: row['id'] as string,
    deploymentId: row['deployment_id'] as string,
    nodeId: row['node_id'] as string,
    generation: row['generation'] as number,
    intent: row['intent'] as AssignmentIntent,
    leaseExpiresAt: date(row['lease_expires_at']) ?? new Date(0),
    spec: row['spec'],
    ackedGeneration: (row['acked_generation'] as number | null) ?? null,
    ackedAt: date(row['acked_at']),
    observedState: (row['observed_state'] as ReplicaState | null) ?? null,
    observedGeneration: (row['observed_generation'] as number | null) ?? null,
    endpointPort: (row['endpoint_port'] as number | null) ?? null,
    inFlight: (row['in_flight'] as number | null) ?? null,
    observedMessage: (row['observed_message'] as string | null) ?? null,
    observedAt: date(row['observed_at']),
    createdAt: date(row['created_at']) ?? new Date(0),
    updatedAt: date(row['updated_at']) ?? new Date(0),
  };
}

export async function listAssignments(
  q: Queryable,
  filter: { deploymentId?: string; nodeId?: string },
): Promise<AssignmentRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.deploymentId !== undefined) {
    params.push(filter.deploymentId);
    where.push(`deployment_id = $${params.length}`);
  }
  if (filter.nodeId !== undefined) {
    params.push(filter.nodeId);
    where.push(`node_id = $${params.length}`);
  }
  const rows = await q.query<Raw[]>(
    `SELECT ${ASSIGNMENT_COLUMNS} FROM assignments${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
    params,
  );
  return rows.map(assignmentFromRow);
}

export async function findAssignment(
  q: Queryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<AssignmentRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${ASSIGNMENT_COLUMNS} FROM assignments WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ? assignmentFromRow(rows[0]) : null;
}
