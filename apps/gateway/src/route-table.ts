import type { DataClass, ModelVersionRef, RoutingPolicy } from '@lunanexa/contracts';
import type { ReportedReplicaLoad } from '@lunanexa/domain';

/**
 * The gateway's view of what can serve traffic, behind a port so the data
 * plane never touches the database on the request path. The implementation
 * backed by PostgreSQL (postgres-route-table.ts) keeps an in-memory snapshot
 * refreshed from desired/observed state; `lookup` must stay synchronous and cheap.
 */

/** One ready replica: an openai-compatible runtime endpoint. */
export interface RouteEndpoint {
  /** e.g. `http://10.0.0.11:41001` — the runtime's own port on its node. */
  readonly baseUrl: string;
  /** The model name the runtime was launched to serve (`--served-model-name`). */
  readonly servedModel: string;
  /**
   * The replica's own deployment when a route merges several deployments of
   * one version, so `servedBy` names the one that answered; absent: the route's.
   */
  readonly deploymentId?: string;
  /**
   * What the runtime last said about its own queue and KV cache (via its
   * agent's heartbeat), as of the snapshot; absent when it never said. Admission
   * judges its age when choosing (a snapshot can outlive a database outage).
   */
  readonly load?: ReportedReplicaLoad;
}

export interface Route {
  /** The resolved version, reported to clients as the model that answered. */
  readonly modelVersion: ModelVersionRef;
  /** The alias the lookup went through, or null for a pinned model ref. */
  readonly alias: string | null;
  readonly deploymentId: string;
  /** From the version's approved license; a workload of another class is refused. */
  readonly allowedDataClasses: readonly DataClass[];
  /** Ready replicas in preference order (the first is tried first; later ones on failure before the first byte). */
  readonly endpoints: readonly RouteEndpoint[];
  /** How admission picks among `endpoints` (the deployment's setting); absent: DEFAULT_ROUTING_POLICY. */
  readonly routingPolicy?: RoutingPolicy;
}

/** An entry of `GET /v1/models`: an alias or pinned model ref clients may name. */
export interface RouteModel {
  readonly id: string;
  readonly createdAt: string;
  readonly kind: 'alias' | 'modelVersion';
  /** The version serving the stable share (for an alias mid-rollout, not the canary). */
  readonly modelVersion: ModelVersionRef;
  readonly contextLength: number | null;
  readonly allowedDataClasses: readonly DataClass[];
  /** Ready replicas this entry routes to, canary included. */
  readonly readyReplicas: number;
  /** Deployments behind the entry: the admission queues to sum for its load. */
  readonly deploymentIds: readonly string[];
}

export interface RouteTable {
  /** Resolves an alias or `name@version`; undefined when nothing by that name can serve. */
  lookup(modelOrAlias: string): Route | undefined;
  models(): readonly RouteModel[];
  /** True once the first snapshot has loaded; until then the gateway answers /ready with 503. */
  ready(): boolean;
  /**
   * True for a name that exists but has no replica that can take a request right now (an alias whose
   * deployments are all starting or moving, a `model@version` an active deployment serves): the client
   * gets 503 and retries, not 404.
   */
  unavailable(modelOrAlias: string): boolean;
}

/**
 * The table while no deployments exist: loaded (there is nothing to load),
 * knows no models. Every inference request gets MODEL_NOT_FOUND.
 */
export class EmptyRouteTable implements RouteTable {
  lookup(): Route | undefined {
    return undefined;
  }

  models(): readonly RouteModel[] {
    return [];
  }

  ready(): boolean {
    return true;
  }

  unavailable(): boolean {
    return false;
  }
}

/** A fixed in-memory table, for single-node setups with static routes and for tests. */
export class StaticRouteTable implements RouteTable {
  private readonly routes: ReadonlyMap<string, Route>;
  private readonly listed: readonly RouteModel[];
  private loaded: boolean;
  private readonly unavailableNames: ReadonlySet<string>;

  /** Each entry's listing is read off its route; only the context length has nowhere else to come from. */
  constructor(
    entries: readonly {
      readonly id: string;
      readonly createdAt: string;
      readonly contextLength?: number | null;
      readonly route: Route;
    }[],
    options: { readonly loaded?: boolean; readonly unavailable?: readonly string[] } = {},
  ) {
    this.routes = new Map(entries.map((entry) => [entry.id, entry.route]));
    this.listed = entries.map(({ id, createdAt, contextLength, route }) => ({
      id,
      createdAt,
      kind: route.alias === null ? 'modelVersion' : 'alias',
      modelVersion: route.modelVersion,
      contextLength: contextLength ?? null,
      allowedDataClasses: route.allowedDataClasses,
      readyReplicas: route.endpoints.length,
      deploymentIds: [route.deploymentId],
    }));
    this.loaded = options.loaded ?? true;
    this.unavailableNames = new Set(options.unavailable ?? []);
  }

  lookup(modelOrAlias: string): Route | undefined {
    return this.routes.get(modelOrAlias);
  }

  models(): readonly RouteModel[] {
    return this.listed;
  }

  ready(): boolean {
    return this.loaded;
  }

  unavailable(modelOrAlias: string): boolean {
    return this.unavailableNames.has(modelOrAlias);
  }

  markLoaded(): void {
    this.loaded = true;
  }
}
