import { DATA_CLASSES, type DataClass, type RoutingPolicy, RoutingPolicySchema } from '@lunanexa/contracts';
import {
  replicaStanding,
  servingReplicas,
  UNCONFIRMED_ROUTE_GRACE_MS,
  type ReportedReplicaLoad,
} from '@lunanexa/domain';
import type { Logger } from '@lunanexa/observability';
import {
  deployedModelRefs,
  routableAliasRows,
  routableReplicaRows,
  queryableOf,
  type RoutableAliasRow as AliasRow,
  type RoutableReplicaRow as RouteRow,
} from '@lunanexa/persistence';
import { Pool } from 'pg';
import { Counter, Gauge, Registry } from 'prom-client';
import type { Route, RouteEndpoint, RouteModel, RouteTable } from './route-table';

export const DEFAULT_ROUTE_REFRESH_MS = 1000;
export const DEFAULT_ROUTE_STALE_AFTER_MS = 30_000;

export interface PostgresRouteTableOptions {
  readonly databaseUrl: string;
  readonly logger: Logger;
  readonly refreshMs?: number;
  /** Without a successful refresh for this long, ready() turns false (the last snapshot still serves). */
  readonly staleAfterMs?: number;
  /** Where the refresh metrics are registered; the gateway passes its own so /metrics shows them. */
  readonly registry?: Registry;
  /** Milliseconds since the epoch; injected so tests can age the snapshot without sleeping. */
  readonly now?: () => number;
  /** Uniform in [0, 1): the canary draw; injected so tests can pin it. */
  readonly random?: () => number;
}

export interface RouteTableMetrics {
  readonly refreshFailures: Counter;
  readonly snapshotAgeSeconds: Gauge;
}

/** All rotations of one ref's (or one deployment's) replicas, so lookup hands out round-robin order without allocating. */
interface RouteSet {
  readonly rotations: readonly Route[];
  next: number;
}

/** An alias: its stable deployment's replicas and, during a rollout, the canary's and its share. */
interface AliasRoutes {
  readonly stable: RouteSet | undefined;
  readonly canary: RouteSet | undefined;
  /** Percent of the alias's requests the canary gets (0-100). */
  readonly canaryWeight: number;
}

interface Snapshot {
  readonly routes: ReadonlyMap<string, RouteSet>;
  readonly aliases: ReadonlyMap<string, AliasRoutes>;
  readonly models: readonly RouteModel[];
  /**
   * Names that exist but have no replica that can take a request — aliases with a revision or canary, and
   * `model@version` refs an active deployment serves: 503, not 404.
   */
  readonly unavailableNames: ReadonlySet<string>;
  /** Deployments routed only to replicas whose Ready is unconfirmed (libs/domain `replicaStanding`). */
  readonly unconfirmedDeployments: ReadonlySet<string>;
}

const EMPTY: Snapshot = {
  routes: new Map(),
  aliases: new Map(),
  models: [],
  unavailableNames: new Set(),
  unconfirmedDeployments: new Set(),
};

/** `http://host:port`; an IPv6 literal needs brackets or its colons read as the port separator. */
export function endpointBaseUrl(address: string, port: number): string {
  const host = address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

/** The license's allowed classes as stored; anything unreadable allows nothing (fail closed). */
function allowedClasses(value: unknown): readonly DataClass[] {
  if (!Array.isArray(value)) return [];
  return DATA_CLASSES.filter((dataClass) => value.includes(dataClass));
}

/** The replica's last reported runtime load; undefined when it never reported one. */
function reportedLoad(row: RouteRow): ReportedReplicaLoad | undefined {
  if (row.load_scraped_at === null) return undefined;
  return {
    waiting: row.load_waiting,
    running: row.load_running,
    cachePressure: row.load_cache_pressure === null ? null : Number(row.load_cache_pressure),
    scrapedAtMs: new Date(row.load_scraped_at).getTime(),
  };
}

interface EndpointGroup {
  readonly modelRef: string;
  createdAt: Date;
  readonly contextLength: number | null;
  readonly allowedDataClasses: readonly DataClass[];
  /** The first deployment's: a pinned ref spanning deployments follows the one its route is named by. */
  readonly routingPolicy: RoutingPolicy | undefined;
  readonly endpoints: (RouteEndpoint & { deploymentId: string })[];
}

function routeSet(group: EndpointGroup, alias: string | null, previous: RouteSet | undefined): RouteSet {
  const { endpoints } = group;
  const rotations = endpoints.map((_, start): Route => {
    const ordered = [...endpoints.slice(start), ...endpoints.slice(0, start)];
    return {
      modelVersion: group.modelRef,
      alias,
      // The replica tried first names the route; a later one that answers reports its own deployment.
      deploymentId: ordered[0].deploymentId,
      allowedDataClasses: group.allowedDataClasses,
      endpoints: ordered,
      ...(group.routingPolicy && { routingPolicy: group.routingPolicy }),
    };
  });
  // Carried across refreshes: a fresh start at 0 every second would send light traffic to one replica only.
  return { rotations, next: (previous?.next ?? 0) % rotations.length };
}

function group(map: Map<string, EndpointGroup>, key: string, row: RouteRow): void {
  let entry = map.get(key);
  if (entry === undefined) {
    entry = {
      modelRef: row.model_ref,
      createdAt: row.deployment_created_at,
      contextLength: row.context_length,
      allowedDataClasses: allowedClasses(row.allowed_data_classes),
      routingPolicy: RoutingPolicySchema.safeParse(row.routing_policy).data,
      endpoints: [],
    };
    map.set(key, entry);
  }
  if (row.deployment_created_at < entry.createdAt) entry.createdAt = row.deployment_created_at;
  const load = reportedLoad(row);
  entry.endpoints.push({
    baseUrl: endpointBaseUrl(row.address, row.endpoint_port),
    servedModel: row.model_ref,
    deploymentId: row.deployment_id,
    ...(load && { load }),
  });
}

function buildSnapshot(
  rows: readonly RouteRow[],
  aliasRows: readonly AliasRow[],
  deployedRefs: readonly string[],
  previous: Snapshot,
): Snapshot {
  const byRef = new Map<string, EndpointGroup>();
  const byDeployment = new Map<string, EndpointGroup>();
  const serving = servingReplicas(
    rows.map((row) => ({
      row,
      deploymentId: row.deployment_id,
      nodeDraining: row.node_draining,
      nodeLeaseLive: row.node_lease_live,
      generationCurrent: row.generation_current,
    })),
  );
  const unconfirmedDeployments = new Set(
    serving.filter((replica) => replicaStanding(replica) === 'unconfirmed').map((r) => r.deploymentId),
  );
  for (const { row } of serving) {
    group(byRef, row.model_ref, row);
    group(byDeployment, row.deployment_id, row);
  }
  const routes = new Map<string, RouteSet>();
  const models: RouteModel[] = [];
  for (const [ref, entry] of byRef) {
    routes.set(ref, routeSet(entry, null, previous.routes.get(ref)));
    models.push({
      id: ref,
      createdAt: entry.createdAt.toISOString(),
      kind: 'modelVersion',
      modelVersion: ref,
      contextLength: entry.contextLength,
      allowedDataClasses: entry.allowedDataClasses,
      readyReplicas: entry.endpoints.length,
      deploymentIds: [...new Set(entry.endpoints.map((endpoint) => endpoint.deploymentId))],
    });
  }
  const aliases = new Map<string, AliasRoutes>();
  const unavailableNames = new Set(deployedRefs.filter((ref) => !routes.has(ref)));
  for (const row of aliasRows) {
    const before = previous.aliases.get(row.name);
    const stableGroup =
      row.stable_deployment_id === null ? undefined : byDeployment.get(row.stable_deployment_id);
    const canaryGroup =
      row.canary_deployment_id === null || row.canary_weight <= 0
        ? undefined
        : byDeployment.get(row.canary_deployment_id);
    if (stableGroup === undefined && canaryGroup === undefined) {
      unavailableNames.add(row.name);
      continue;
    }
    aliases.set(row.name, {
      stable: stableGroup && routeSet(stableGroup, row.name, before?.stable),
      canary: canaryGroup && routeSet(canaryGroup, row.name, before?.canary),
      canaryWeight: Math.min(Math.max(row.canary_weight, 0), 100),
    });
    // The stable side describes the alias; during a first rollout only the canary exists.
    const described = (stableGroup ?? canaryGroup) as EndpointGroup;
    const sides = [stableGroup, canaryGroup].filter((side): side is EndpointGroup => side !== undefined);
    models.push({
      id: row.name,
      createdAt: new Date(row.created_at).toISOString(),
      kind: 'alias',
      modelVersion: described.modelRef,
      contextLength: described.contextLength,
      allowedDataClasses: described.allowedDataClasses,
      readyReplicas: sides.reduce((sum, side) => sum + side.endpoints.length, 0),
      deploymentIds: sides.map((side) => side.endpoints[0].deploymentId),
    });
  }
  models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { routes, aliases, models, unavailableNames, unconfirmedDeployments };
}

/** The members of `a` that `b` lacks, in `a`'s order. */
function onlyIn(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  return [...a].filter((id) => !b.has(id));
}

function take(set: RouteSet): Route {
  const route = set.rotations[set.next];
  set.next = (set.next + 1) % set.rotations.length;
  return route;
}

/**
 * Routes from PostgreSQL desired/observed state. One query every `refreshMs`
 * replaces an in-memory snapshot; lookups only read that snapshot, so the
 * request path never waits on the database and a database outage degrades to
 * "routes as of the last refresh" rather than failed requests. Staleness is
 * reported through ready() (the load balancer stops sending traffic) and the
 * snapshot-age gauge, not by dropping routes.
 */
export class PostgresRouteTable implements RouteTable {
  readonly metrics: RouteTableMetrics;
  private readonly pool: Pool;
  private readonly logger: Logger;
  private readonly refreshMs: number;
  private readonly staleAfterMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly startedAt: number;
  private snapshot: Snapshot = EMPTY;
  private loadedAt: number | undefined;
  private consecutiveFailures = 0;
  private reportedStale = false;
  /** Refreshes run one after another, so a manual refresh always sees writes made before it was called. */
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private closing: Promise<void> | undefined;

  constructor(options: PostgresRouteTableOptions) {
    this.logger = options.logger;
    this.refreshMs = options.refreshMs ?? DEFAULT_ROUTE_REFRESH_MS;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_ROUTE_STALE_AFTER_MS;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.startedAt = this.now();
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      application_name: 'lunanexa-gateway',
      // One query at a time; the second connection only covers a reconnect while the first is being torn down.
      max: 2,
      connectionTimeoutMillis: 5000,
      // A hung query must not stall the loop until the snapshot goes stale unnoticed.
      query_timeout: 5000,
      statement_timeout: 5000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection dropped by the server (restart, failover) is emitted here; unhandled it would kill the process.
    this.pool.on('error', (error) => {
      this.logger.warn({ err: error }, 'idle PostgreSQL connection of the route table failed');
    });
    const registry = options.registry ?? new Registry();
    this.metrics = {
      refreshFailures: new Counter({
        name: 'lunanexa_gateway_route_refresh_failures_total',
        help: 'Route table refreshes from PostgreSQL that failed; the previous snapshot kept serving.',
        registers: [registry],
      }),
      snapshotAgeSeconds: new Gauge({
        name: 'lunanexa_gateway_route_snapshot_age_seconds',
        help: 'Seconds since the route snapshot was last loaded (since start while none has loaded).',
        registers: [registry],
        collect: () => {
          this.metrics.snapshotAgeSeconds.set(this.snapshotAgeMs() / 1000);
        },
      }),
    };
  }

  /**
   * An alias sends each request to its canary with probability weight/100
   * (an independent draw per request, so any client's traffic is split the
   * same way) and otherwise to its stable deployment; whichever side has no
   * ready replica right now cedes its share to the other.
   */
  lookup(modelOrAlias: string): Route | undefined {
    const alias = this.snapshot.aliases.get(modelOrAlias);
    if (alias !== undefined) {
      const { stable, canary } = alias;
      if (canary !== undefined && (stable === undefined || this.random() * 100 < alias.canaryWeight)) {
        return take(canary);
      }
      return stable === undefined ? undefined : take(stable);
    }
    const set = this.snapshot.routes.get(modelOrAlias);
    return set === undefined ? undefined : take(set);
  }

  models(): readonly RouteModel[] {
    return this.snapshot.models;
  }

  unavailable(modelOrAlias: string): boolean {
    return this.snapshot.unavailableNames.has(modelOrAlias);
  }

  ready(): boolean {
    return this.loadedAt !== undefined && this.now() - this.loadedAt <= this.staleAfterMs;
  }

  /** Loads the first snapshot now and then every `refreshMs` until close(). */
  start(): void {
    if (this.started || this.closing !== undefined) return;
    this.started = true;
    this.tick();
  }

  /**
   * One refresh, after any already running. Resolves true when the snapshot
   * was replaced, false when the query failed (never rejects).
   */
  refresh(): Promise<boolean> {
    const run = this.queue.then(() => this.load());
    this.queue = run;
    return run;
  }

  /** Stops the loop, waits for a running refresh, and ends the pool. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.timer);
      await this.queue;
      await this.pool.end();
    })();
    return this.closing;
  }

  private tick(): void {
    void this.refresh().then(() => {
      if (this.closing !== undefined) return;
      this.timer = setTimeout(() => this.tick(), this.refreshMs);
      // The server keeps the process alive; the refresh loop alone must not.
      this.timer.unref();
    });
  }

  private snapshotAgeMs(): number {
    return this.now() - (this.loadedAt ?? this.startedAt);
  }

  /**
   * A name that could route a moment ago and now cannot is what clients see as 404 (or 503 while the table is
   * not ready), and a deployment left with only unconfirmed replicas is one whose heartbeats are late: one line
   * each way, so an outage of a model can be lined up with its replicas' history.
   */
  private reportRoutingChanges(before: Snapshot, after: Snapshot): void {
    const routedBefore = new Set(before.models.map((model) => model.id));
    const routedAfter = new Set(after.models.map((model) => model.id));
    const withdrawn = onlyIn(routedBefore, routedAfter);
    const restored = onlyIn(routedAfter, routedBefore);
    if (withdrawn.length > 0)
      this.logger.warn({ models: withdrawn }, 'no routable replica left: these names are no longer routed');
    if (restored.length > 0) this.logger.info({ models: restored }, 'these names are routed now');
    const unconfirmed = onlyIn(after.unconfirmedDeployments, before.unconfirmedDeployments);
    const confirmed = onlyIn(before.unconfirmedDeployments, after.unconfirmedDeployments);
    if (unconfirmed.length > 0)
      this.logger.warn(
        { deployments: unconfirmed },
        'routing to replicas whose Ready is unconfirmed (node lease lapsed or generation not yet reported): nothing better is left',
      );
    if (confirmed.length > 0)
      this.logger.info({ deployments: confirmed }, 'routing to confirmed replicas again');
  }

  private async load(): Promise<boolean> {
    if (this.closing !== undefined) return false;
    try {
      const replicas = await routableReplicaRows(queryableOf(this.pool), UNCONFIRMED_ROUTE_GRACE_MS / 1000);
      const aliases = await routableAliasRows(queryableOf(this.pool));
      const deployedRefs = await deployedModelRefs(queryableOf(this.pool));
      const before = this.snapshot;
      this.snapshot = buildSnapshot(replicas, aliases, deployedRefs, before);
      const first = this.loadedAt === undefined;
      if (!first) this.reportRoutingChanges(before, this.snapshot);
      this.loadedAt = this.now();
      if (first) this.logger.info({ models: this.snapshot.models.length }, 'route table loaded');
      else if (this.consecutiveFailures > 0)
        this.logger.info(
          { failedRefreshes: this.consecutiveFailures, models: this.snapshot.models.length },
          'route table refresh recovered',
        );
      this.consecutiveFailures = 0;
      this.reportedStale = false;
      return true;
    } catch (error: unknown) {
      this.metrics.refreshFailures.inc();
      this.consecutiveFailures += 1;
      // One line when an outage starts and one when it makes us unready, not one per refresh interval.
      if (this.consecutiveFailures === 1 && this.ready())
        this.logger.warn(
          { err: error, snapshotAgeMs: this.snapshotAgeMs() },
          'route table refresh failed; keeping the last snapshot',
        );
      if (!this.reportedStale && !this.ready()) {
        this.reportedStale = true;
        this.logger.error(
          {
            err: error,
            failedRefreshes: this.consecutiveFailures,
            snapshotAgeMs: this.snapshotAgeMs(),
            staleAfterMs: this.staleAfterMs,
          },
          this.loadedAt === undefined
            ? 'route table could not load; reporting not ready'
            : 'route table is stale; reporting not ready',
        );
      }
      return false;
    }
  }
}
