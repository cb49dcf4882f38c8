// Generated from apps/api/schema.gql by scripts/generate-console-types.mjs; do not edit.
// Regenerate with `npm run console:types`.

/** An API token, without its secret (shown once, at creation). */
export interface ApiToken {
  readonly createdAt: DateTimeString;
  /** Null: does not expire. */
  readonly expiresAt: DateTimeString | null;
  readonly id: string;
  /** Last use, to the minute. */
  readonly lastUsedAt: DateTimeString | null;
  readonly name: string;
  readonly ownerId: string;
  readonly ownerUsername: string;
  /** The first characters of the token (`lnx_` + 8), to recognise it. */
  readonly prefix: string;
  readonly revokedAt: DateTimeString | null;
  /** At most the owner's role; never more than the owner's current role. */
  readonly role: Role;
}

/** One replica of a deployment on one node: desired (generation, intent, lease) and observed. */
export interface Assignment {
  /** Newest generation the agent acknowledged (persisted). */
  readonly ackedGeneration: number | null;
  readonly deploymentId: string;
  readonly endpointPort: number | null;
  readonly generation: number;
  readonly id: string;
  /** In-flight requests the runtime reported. */
  readonly inFlight: number | null;
  /** Run or Stop. */
  readonly intent: string;
  readonly leaseExpiresAt: DateTimeString;
  readonly message: string | null;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly observedAt: DateTimeString | null;
  readonly observedGeneration: number | null;
  /** Replica state the agent last reported. */
  readonly observedState: string | null;
}

/** Whether one event's hash and its link to the previous event verify. */
export interface AuditChainLink {
  /** hash-mismatch, link-mismatch or sequence-gap when not verified. */
  readonly reason: string | null;
  readonly verified: boolean;
}

/** Result of walking the whole audit chain. */
export interface AuditChainStatus {
  /** Events verified before the first break (all of them when valid). */
  readonly checked: number;
  readonly firstBrokenSeq: number | null;
  readonly reason: string | null;
  readonly valid: boolean;
}

/** One entry of the append-only, hash-chained audit log. */
export interface AuditEvent {
  readonly action: string;
  readonly actor: string;
  /** Verification of this event against its predecessor (only resolved by `auditEvent`). */
  readonly chain: AuditChainLink | null;
  readonly correlationId: string;
  /** allowed, denied or not-applicable. */
  readonly decision: string;
  /** The evidence object as JSON. Evidence holds ids and outcomes, never payloads or secrets. */
  readonly evidenceJson: string;
  /** sha256 (hex) over the event, its seq and prevHash. */
  readonly hash: string;
  readonly id: string;
  readonly occurredAt: DateTimeString;
  readonly prevHash: string;
  /** succeeded, failed or refused. */
  readonly result: string;
  readonly seq: number;
  /** Link to the workflow in the Temporal UI, when there is one. */
  readonly temporalUiUrl: string | null;
  readonly workflowId: string | null;
}

/** Narrows the audit log; every field is optional and they combine with AND. */
export interface AuditEventFilter {
  /** Exact action, or a prefix when it ends in `*` (e.g. `node.*`). */
  readonly action?: string | null;
  /** Exact actor, e.g. `operator:admin` or `token:lnx_ab12cd34`. */
  readonly actor?: string | null;
  readonly correlationId?: string | null;
  /** `allowed` or `denied`. */
  readonly decision?: string | null;
  /** The node or deployment id the event is about (its evidence `nodeId` or `deploymentId`). */
  readonly subject?: string | null;
  readonly workflowId?: string | null;
}

/** One page of the audit log, newest first. */
export interface AuditEventPage {
  readonly events: readonly AuditEvent[];
  /** Pass as `before` to get the next (older) page; null when this is the last page. */
  readonly nextBefore: number | null;
}

export interface BootstrapToken {
  readonly autoApprove: boolean;
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly expiresAt: DateTimeString;
  readonly id: string;
  readonly labels: readonly Label[];
  /** When set, only an agent with this node name may use it. */
  readonly nodeName: string | null;
  /** The first characters of the token, for recognising it. */
  readonly prefix: string;
  readonly revokedAt: DateTimeString | null;
  readonly usedAt: DateTimeString | null;
  readonly usedByNodeId: string | null;
}

/** The controller identity agents pin at enrollment. */
export interface ControllerIdentity {
  /** The URL agents enroll and heartbeat at. */
  readonly controllerUrl: string;
  /** Key id agents trust the controller key under (ed25519:…). */
  readonly keyId: string;
  /** The public key as an OpenSSH line. */
  readonly publicKey: string;
  /** OpenSSH SHA256 fingerprint: what an agent config sets as controllerKeyFingerprint. */
  readonly sshFingerprint: string;
}

/** A new API token owned by the caller. */
export interface CreateApiTokenInput {
  /** 1-365; omitted: the token does not expire. */
  readonly expiresInDays?: number | null;
  /** What it is for, 1-100 characters. */
  readonly name: string;
  /** Defaults to the caller's role; may not exceed it. */
  readonly role?: Role | null;
}

/** A new API token. `token` is shown only here: store it now. */
export interface CreateApiTokenResult {
  readonly apiToken: ApiToken;
  /** Send as `Authorization: Bearer <token>`. */
  readonly token: string;
}

export interface CreateBootstrapTokenInput {
  /** Approve the node on enrollment without an operator. */
  readonly autoApprove?: boolean;
  /** Labels the node gets on enrollment. */
  readonly labels?: readonly LabelInput[] | null;
  /** Restrict the token to this node name. */
  readonly nodeName?: string | null;
  /** Lifetime in seconds (default 900, 60-86400). */
  readonly ttlSeconds?: number | null;
}

export interface CreateDeploymentInput {
  /** Repeating a request with the same key returns the same deployment. */
  readonly idempotencyKey?: string | null;
  /** Model version ref, name@version. */
  readonly model: string;
  /** Deployment name (a DNS label), unique. */
  readonly name: string;
  /** Node id or name to place on; otherwise the scheduler chooses. */
  readonly node?: string | null;
  readonly replicas?: number;
}

/** A new operator account. */
export interface CreateOperatorInput {
  /** 12-1024 characters. */
  readonly password: string;
  readonly role: Role;
  /** 2-64 of letters, digits, . _ -, starting with a letter; stored lower-case. */
  readonly username: string;
}

/** A new bootstrap token. The token is shown here once and never again. */
export interface CreatedBootstrapToken {
  /** The command to paste on the node. */
  readonly agentInvocation: string;
  readonly bootstrapToken: BootstrapToken;
  /** SHA256 fingerprint of the controller key the agent must pin. */
  readonly controllerKeyFingerprint: string;
  readonly controllerUrl: string;
  readonly token: string;
}

/** How the caller authenticated. */
export type CredentialKind = 'apiToken' | 'session';

/** A date-time string at UTC, such as 2019-12-03T09:54:33Z, compliant with the date-time format. */
export type DateTimeString = string;

/** Result of checking one dependency (PostgreSQL, Temporal). */
export interface DependencyCheck {
  readonly detail: string | null;
  /** Round-trip time of the check. */
  readonly latencyMs: number | null;
  readonly name: string;
  /** ok or failing */
  readonly status: string;
}

export interface Deployment {
  readonly assignments: readonly Assignment[];
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly desiredReplicas: number;
  readonly generation: number;
  readonly id: string;
  readonly modelRef: string;
  readonly name: string;
  readonly observedGeneration: number;
  readonly readyReplicas: number;
  readonly state: string;
  readonly stateReason: string | null;
  readonly temporalUiUrl: string;
  readonly updatedAt: DateTimeString;
  readonly workflowId: string;
}

export interface DeploymentOperation {
  readonly correlationId: string;
  /** Null until the workflow has written the record. */
  readonly deployment: Deployment | null;
  readonly deploymentId: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** One deployment over the whole window. */
export interface DeploymentTraffic {
  /** Null for requests no deployment took (e.g. unknown model). */
  readonly deploymentId: string | null;
  readonly deploymentName: string | null;
  /** In-flight requests its replicas report now (queue depth). */
  readonly inFlightNow: number;
  readonly modelRef: string | null;
  /** The whole window as one bucket. */
  readonly totals: TrafficBucket;
}

export interface DrainResult {
  readonly correlationId: string;
  readonly inFlightAtStart: number;
  /** In-flight requests cut off by the timeout (0 when all finished). */
  readonly inFlightAtTimeout: number;
  readonly node: FleetNode;
  readonly receiptHash: string;
  readonly replicasAtStart: number;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** An enrolled GPU node. */
export interface FleetNode {
  readonly address: string;
  readonly agentVersion: string;
  readonly architecture: string;
  readonly assignments: readonly Assignment[];
  readonly conditions: readonly NodeCondition[];
  /** Cordoned nodes keep their replicas but receive no new placements. */
  readonly cordoned: boolean;
  readonly cpuCores: number;
  readonly credentialExpiresAt: DateTimeString | null;
  readonly credentialSerial: number;
  readonly enrollWorkflowId: string;
  readonly enrolledAt: DateTimeString;
  readonly gpus: readonly Gpu[];
  readonly heartbeatAgeSeconds: number | null;
  /** SSH host key pinned at enrollment (SHA256:…). */
  readonly hostKeyFingerprint: string;
  readonly id: string;
  /** Key id of the node key that signs heartbeats. */
  readonly keyId: string;
  readonly labels: readonly Label[];
  readonly leaseExpiresAt: DateTimeString | null;
  readonly leaseRenewedAt: DateTimeString | null;
  /** Pending, Approved, Active, Draining, Drained, Rejected or Revoked. */
  readonly lifecycle: string;
  readonly name: string;
  /** During a credential rotation: the key that takes over. */
  readonly nextKeyId: string | null;
  /** Ready, NotReady or Unreachable — derived from the heartbeat lease on every read. */
  readonly readiness: string;
  readonly sshPort: number;
  readonly systemMemoryBytes: number;
  readonly taints: readonly Taint[];
  readonly temporalUiUrl: string;
  readonly updatedAt: DateTimeString;
}

/** A GPU as the node agent reported it. Memory figures are null when not reported, never 0-for-unknown. */
export interface Gpu {
  readonly computeCapability: string;
  readonly freeMemoryBytes: number | null;
  readonly index: number;
  /** unified (GB10: GPU shares system memory) or discrete. */
  readonly memoryModel: string;
  /** nvml, proc-meminfo or simulated: where the memory figure comes from. */
  readonly memorySource: string;
  readonly name: string;
  readonly totalMemoryBytes: number | null;
  readonly uuid: string;
}

/** API health: version, build commit and dependency checks. */
export interface Health {
  readonly checks: readonly DependencyCheck[];
  readonly commit: string;
  /** ok when every dependency check passes, degraded otherwise. */
  readonly status: string;
  readonly version: string;
}

export interface Label {
  readonly key: string;
  readonly value: string;
}

export interface LabelInput {
  readonly key: string;
  readonly value?: string;
}

/** A committed change, as a live notice: an audit event (kind "audit") or a node heartbeat (kind "node"). Re-read what it names; `dropped` > 0 means notices were missed. */
export interface LiveEvent {
  readonly action: string | null;
  readonly actor: string | null;
  readonly correlationId: string | null;
  readonly decision: string | null;
  readonly dropped: number;
  /** audit or node */
  readonly kind: string;
  /** The node (kind node). */
  readonly nodeId: string | null;
  readonly occurredAt: string;
  /** Audit sequence number (kind audit). */
  readonly seq: number | null;
  /** Node or deployment id the event is about. */
  readonly subject: string | null;
  readonly workflowId: string | null;
}

/** Username and password of an enabled operator. */
export interface LoginInput {
  readonly password: string;
  readonly username: string;
}

/** A session: send `Authorization: Bearer <accessToken>` until it expires. */
export interface LoginResult {
  /** Session token (JWT, EdDSA); valid for 15 minutes. */
  readonly accessToken: string;
  readonly expiresAt: DateTimeString;
  readonly operator: Operator;
}

/** The caller: their account and what this credential may do. */
export interface Me {
  readonly credential: CredentialKind;
  /** When this credential stops working (null: never). */
  readonly expiresAt: DateTimeString | null;
  readonly operator: Operator;
  /** What this request may do: the session's role, or the lower of an API token's and its owner's. */
  readonly role: Role;
  /** API tokens only: the display prefix. */
  readonly tokenPrefix: string | null;
}

/** A registered, digest-pinned model version (minimal record). */
export interface ModelVersion {
  readonly artifactDigest: string;
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly id: string;
  readonly model: string;
  readonly ref: string;
  readonly runtimeKind: string;
  readonly version: string;
}

export interface Mutation {
  /** Approves a Pending node and waits for EnrollNode to finish (credential issued, SSH checked, Active). */
  readonly approveNode: NodeOperation;
  /** No new placements on the node; running replicas keep serving. */
  readonly cordonNode: FleetNode;
  /** Issues an API token owned by the caller. The token is in this answer only. */
  readonly createApiToken: CreateApiTokenResult;
  /** A single-use enrollment token (default 15 minutes). The token is in this answer only. */
  readonly createBootstrapToken: CreatedBootstrapToken;
  /** Starts the deployment workflow (place, push signed assignments, wait for Ready, keep leases). */
  readonly createDeployment: DeploymentOperation;
  /** Creates an operator account. */
  readonly createOperator: Operator;
  /** Disables an operator: no login, and their sessions and API tokens stop working. The last enabled admin cannot be disabled. */
  readonly disableOperator: Operator;
  /** DrainNode: cordon, stop new traffic, wait for in-flight requests (bounded), stop the replicas, Drained. */
  readonly drainNode: DrainResult;
  /** Exchanges username and password for a 15-minute session token. Unknown user, wrong password and disabled account all answer UNAUTHENTICATED. */
  readonly login: LoginResult;
  /** Ends every session of the caller's account (session tokens only; API tokens are revoked). */
  readonly logout: boolean;
  /** Runs the ping system check as a Temporal workflow: one PostgreSQL row and one audit receipt. */
  readonly ping: PingResult;
  /** Registers a model version (minimal record). */
  readonly registerModelVersion: ModelVersion;
  /** Rejects a Pending node; it must enroll again with a new token. */
  readonly rejectNode: NodeOperation;
  /** Revokes an API token; it is refused from its next request on. */
  readonly revokeApiToken: ApiToken;
  /** Revokes an unused bootstrap token. */
  readonly revokeBootstrapToken: BootstrapToken;
  /** RotateNodeCredential: the agent switches to a new key with no gap, then a new credential is issued. */
  readonly rotateNodeCredential: NodeOperation;
  /** Replaces the node labels. */
  readonly setNodeLabels: FleetNode;
  /** Replaces the node taints. */
  readonly setNodeTaints: FleetNode;
  /** Changes an operator's role and ends their sessions. The last enabled admin cannot be demoted. */
  readonly setOperatorRole: Operator;
  /** Stops every replica and waits until the agents report them stopped. */
  readonly stopDeployment: DeploymentOperation;
  /** Placements allowed again; on a Drained node this also returns it to service (Active). */
  readonly uncordonNode: FleetNode;
}

export interface MutationApproveNodeArgs {
  readonly node: string;
}

export interface MutationCordonNodeArgs {
  readonly node: string;
}

export interface MutationCreateApiTokenArgs {
  readonly input: CreateApiTokenInput;
}

export interface MutationCreateBootstrapTokenArgs {
  readonly input: CreateBootstrapTokenInput;
}

export interface MutationCreateDeploymentArgs {
  readonly input: CreateDeploymentInput;
}

export interface MutationCreateOperatorArgs {
  readonly input: CreateOperatorInput;
}

export interface MutationDisableOperatorArgs {
  readonly id: string;
}

export interface MutationDrainNodeArgs {
  readonly idempotencyKey?: string | null;
  readonly node: string;
  readonly timeoutSeconds?: number;
}

export interface MutationLoginArgs {
  readonly input: LoginInput;
}

export interface MutationPingArgs {
  readonly input: PingInput;
}

export interface MutationRegisterModelVersionArgs {
  readonly input: RegisterModelVersionInput;
}

export interface MutationRejectNodeArgs {
  readonly node: string;
  readonly reason: string;
}

export interface MutationRevokeApiTokenArgs {
  readonly id: string;
}

export interface MutationRevokeBootstrapTokenArgs {
  readonly id: string;
}

export interface MutationRotateNodeCredentialArgs {
  readonly idempotencyKey?: string | null;
  readonly node: string;
}

export interface MutationSetNodeLabelsArgs {
  readonly labels: readonly LabelInput[];
  readonly node: string;
}

export interface MutationSetNodeTaintsArgs {
  readonly node: string;
  readonly taints: readonly TaintInput[];
}

export interface MutationSetOperatorRoleArgs {
  readonly input: SetOperatorRoleInput;
}

export interface MutationStopDeploymentArgs {
  readonly deployment: string;
}

export interface MutationUncordonNodeArgs {
  readonly node: string;
}

export interface NodeCondition {
  readonly lastTransitionAt: DateTimeString;
  readonly message: string | null;
  readonly reason: string;
  /** True, False or Unknown. */
  readonly status: string;
  readonly type: string;
}

/** The outcome of a node workflow, with its receipt and Temporal link. */
export interface NodeOperation {
  readonly correlationId: string;
  readonly node: FleetNode;
  /** Hash of the receipt that closed the operation, when it has finished. */
  readonly receiptHash: string | null;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** An operator account. */
export interface Operator {
  readonly createdAt: DateTimeString;
  /** Set when the account was disabled; it can no longer log in. */
  readonly disabledAt: DateTimeString | null;
  readonly id: string;
  readonly role: Role;
  /** Lower-case; unique regardless of case. */
  readonly username: string;
}

/** Run the ping system check. The same idempotency key always returns the same run. */
export interface PingInput {
  /** Caller-chosen key (letters, digits, . _ : -; at most 128 characters). */
  readonly idempotencyKey: string;
  /** Free text, 1-200 characters; defaults to "ping". */
  readonly message?: string | null;
}

/** A completed ping system check, read from PostgreSQL. */
export interface PingRecord {
  readonly actor: string;
  readonly correlationId: string;
  readonly createdAt: DateTimeString;
  readonly id: string;
  readonly message: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** The outcome of one ping run and its audit receipt. */
export interface PingResult {
  readonly correlationId: string;
  readonly message: string;
  readonly pingId: string;
  /** Audit receipt hash (sha256, hex) for this run. */
  readonly receiptHash: string;
  readonly receiptSeq: number;
  readonly runId: string;
  /** Link to this workflow in the Temporal UI. */
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

export interface Query {
  /** Every API token (never the secret), newest first. */
  readonly apiTokens: readonly ApiToken[];
  /** Walks the whole audit chain and reports the first break. */
  readonly auditChainStatus: AuditChainStatus;
  /** One audit event with its chain link verified; null when no event has this seq. */
  readonly auditEvent: AuditEvent | null;
  /** Audit events, newest first, paged by seq. */
  readonly auditEvents: AuditEventPage;
  /** Bootstrap tokens, newest first (never the secret). */
  readonly bootstrapTokens: readonly BootstrapToken[];
  /** What an agent needs to pin the controller: key id and fingerprint. */
  readonly controllerIdentity: ControllerIdentity;
  readonly deployment: Deployment | null;
  readonly deployments: readonly Deployment[];
  /** Version, commit and dependency checks. Readable by anyone. */
  readonly health: Health;
  /** The caller: account, effective role and credential. */
  readonly me: Me;
  readonly modelVersions: readonly ModelVersion[];
  /** One node by id or name; null when there is none. */
  readonly node: FleetNode | null;
  /** Every enrolled node, by name. */
  readonly nodes: readonly FleetNode[];
  /** Every operator account, by username. */
  readonly operators: readonly Operator[];
  /** The most recent ping system checks, newest first. */
  readonly recentPings: readonly PingRecord[];
  /** Inference requests the gateway served, newest first (metadata only, never payloads). */
  readonly requestRecords: RequestRecordPage;
  /** Finds a request id, correlation id, workflow id, audit seq, or node / deployment / model name (prefix). */
  readonly search: readonly SearchHit[];
  /** Request rate, errors, latency and time-to-first-token percentiles over a recent window, per bucket and per deployment, with the in-flight requests replicas report now. */
  readonly traffic: TrafficReport;
  /** Workflows that failed, timed out or were terminated in the last `hours`, newest first. */
  readonly workflowAlerts: readonly WorkflowAlert[];
}

export interface QueryAuditEventArgs {
  readonly seq: number;
}

export interface QueryAuditEventsArgs {
  /** Only events with a seq lower than this (the previous page’s nextBefore). */
  readonly before?: number | null;
  readonly filter?: AuditEventFilter | null;
  readonly first?: number;
}

export interface QueryDeploymentArgs {
  readonly deployment: string;
}

export interface QueryNodeArgs {
  readonly node: string;
}

export interface QueryRecentPingsArgs {
  readonly limit?: number;
}

export interface QueryRequestRecordsArgs {
  /** Only records older than this cursor (the previous page’s nextBefore). */
  readonly before?: string | null;
  readonly filter?: RequestRecordFilter | null;
  readonly first?: number;
}

export interface QuerySearchArgs {
  readonly term: string;
}

export interface QueryTrafficArgs {
  readonly bucketSeconds?: number;
  /** Deployment id or name. */
  readonly deployment?: string | null;
  readonly windowMinutes?: number;
}

export interface QueryWorkflowAlertsArgs {
  readonly hours?: number;
  readonly limit?: number;
}

export interface RegisterModelVersionInput {
  /** Model name (a DNS label). */
  readonly model: string;
  /** Runtime kind: fake (deterministic test runtime) in this release. */
  readonly runtime?: string;
  /** Fake runtime: tokens per second. */
  readonly tokensPerSecond?: number | null;
  /** Fake runtime: time to first token in ms. */
  readonly ttftMs?: number | null;
  /** Version label, unique per model. */
  readonly version: string;
}

/** What the gateway kept of one inference request: ids, model, deployment, outcome, timings, token counts. Never the prompt or the reply. */
export interface RequestRecord {
  readonly completionTokens: number | null;
  readonly correlationId: string;
  readonly deploymentId: string | null;
  readonly deploymentName: string | null;
  /** openai or generic: the wire format the caller used. */
  readonly dialect: string;
  readonly durationMs: number;
  /** The typed error code when it did not complete. */
  readonly errorCode: string | null;
  readonly finishedAt: DateTimeString;
  /** 499 when the client left before a status line was sent. */
  readonly httpStatus: number;
  /** Arrival order; the cursor for paging. */
  readonly id: string;
  /** chat or completion. */
  readonly kind: string;
  /** The version that answered (name@version). */
  readonly modelRef: string | null;
  /** Rejected, Completed, Failed, Cancelled or TimedOut. */
  readonly outcome: string;
  readonly promptTokens: number | null;
  readonly receivedAt: DateTimeString;
  readonly requestId: string;
  /** The model ref or alias the caller named. */
  readonly requestedModel: string;
  readonly stream: boolean;
  /** Time to the first token (streams) or the answer. */
  readonly timeToFirstTokenMs: number | null;
}

/** Narrows the request list; fields combine with AND. */
export interface RequestRecordFilter {
  readonly correlationId?: string | null;
  /** Deployment id or name. */
  readonly deployment?: string | null;
  /** Only Rejected, Failed and TimedOut requests. */
  readonly errorsOnly?: boolean | null;
  readonly outcome?: string | null;
  readonly requestId?: string | null;
}

export interface RequestRecordPage {
  readonly items: readonly RequestRecord[];
  /** Pass as `before` for the next (older) page. */
  readonly nextBefore: string | null;
}

/** Operator roles, lowest first; each can do everything the roles below it can. */
export type Role = 'admin' | 'operator' | 'viewer';

/** Something the search box found, and where the console shows it. */
export interface SearchHit {
  readonly detail: string | null;
  /** audit, request, correlation, workflow, node, deployment, model */
  readonly kind: string;
  /** Console route (path and query) that shows it. */
  readonly route: string;
  /** For workflows: the Temporal UI link. */
  readonly temporalUiUrl: string | null;
  readonly title: string;
}

/** Change an operator's role; their sessions end. */
export interface SetOperatorRoleInput {
  readonly operatorId: string;
  readonly role: Role;
}

export interface Subscription {
  /** Committed changes as they happen: audit events and node heartbeats. Filter with `kinds` (audit, node). */
  readonly fleetEvents: LiveEvent;
}

export interface SubscriptionFleetEventsArgs {
  readonly kinds?: readonly string[] | null;
}

export interface Taint {
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  readonly effect: string;
  readonly key: string;
  readonly value: string;
}

export interface TaintInput {
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  readonly effect: string;
  readonly key: string;
  readonly value?: string;
}

/** Requests that arrived in one time bucket. */
export interface TrafficBucket {
  readonly completionTokens: number;
  /** Rejected, Failed and TimedOut requests. */
  readonly errors: number;
  /** Whole-request latency percentiles, ms. */
  readonly latencyP50Ms: number | null;
  readonly latencyP95Ms: number | null;
  readonly latencyP99Ms: number | null;
  /** Mean requests in flight over the bucket (time spent serving the requests that arrived in it ÷ bucket length). */
  readonly meanConcurrency: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly start: DateTimeString;
  /** Time-to-first-token percentiles, ms. */
  readonly ttftP50Ms: number | null;
  readonly ttftP95Ms: number | null;
}

/** Traffic over a recent window: a time series, and per-deployment totals. */
export interface TrafficReport {
  readonly bucketSeconds: number;
  /** Oldest first; buckets without requests are included. */
  readonly buckets: readonly TrafficBucket[];
  /** Busiest first. */
  readonly deployments: readonly DeploymentTraffic[];
  /** In-flight requests all replicas in scope report now (queue depth). */
  readonly inFlightNow: number;
  readonly totals: TrafficBucket;
  readonly windowEnd: DateTimeString;
  readonly windowStart: DateTimeString;
}

/** A workflow that ended badly recently: an Overview alert. */
export interface WorkflowAlert {
  readonly closedAt: DateTimeString | null;
  readonly runId: string;
  /** FAILED, TIMED_OUT or TERMINATED. */
  readonly status: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
  readonly workflowType: string;
}
