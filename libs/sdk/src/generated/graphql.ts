// Generated from apps/api/schema.gql by scripts/generate-sdk.mjs; do not edit.
// Regenerate with `npm run sdk:generate`.

/** A versioned alias: the name callers invoke instead of a version or deployment. */
export interface Alias {
  readonly activeRollout: Rollout | null;
  readonly canaryDeploymentId: string | null;
  /** Percent of the alias’s traffic the canary gets now. */
  readonly canaryWeight: number;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly current: AliasRevision | null;
  /** 0 until the first promotion. */
  readonly currentRevision: number;
  /** The data class callers send through the alias; a version’s license must allow it. */
  readonly dataClass: string;
  readonly description: string | null;
  readonly id: string;
  readonly name: string;
  /** Every revision, newest first. */
  readonly revisions: readonly AliasRevision[];
  readonly updatedAt: string;
}

/** One revision of an alias: which version and deployment callers of the alias reached. */
export interface AliasRevision {
  readonly createdAt: string;
  readonly createdBy: string;
  readonly deploymentId: string;
  /** The deployment name, while the deployment exists. */
  readonly deploymentName: string | null;
  /** The model version ref (name@version). */
  readonly modelRef: string;
  readonly modelVersionId: string;
  /** promote: a rollout took over; rollback: a copy of an earlier revision. */
  readonly reason: string;
  /** For a rollback revision: the revision it restored. */
  readonly restoredFrom: number | null;
  readonly revision: number;
  readonly rolloutId: string | null;
}

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

/** Immutable bytes pinned by digest: the digest, not the URI, is the identity. */
export interface Artifact {
  readonly digest: string;
  /** safetensors, gguf, onnx, tensorrt-engine or fake. */
  readonly format: string;
  readonly provenance: ArtifactProvenance;
  readonly sizeBytes: number;
  readonly uri: string;
}

export interface ArtifactInput {
  /** sha256:<64 lower-case hex digits>. */
  readonly digest: string;
  readonly format: string;
  readonly signature?: ArtifactSignatureInput | null;
  readonly sizeBytes: number;
  /** Provenance: where the weights came from. */
  readonly source: string;
  /** https://, s3://, file://, oci:// or hf:// URI. */
  readonly uri: string;
}

export interface ArtifactProvenance {
  readonly signature: ArtifactSignature | null;
  /** Where the weights came from, e.g. an upstream repository and revision. */
  readonly source: string;
  readonly uploadedAt: string;
  /** Who registered them (the caller of createModelVersion). */
  readonly uploader: string;
}

export interface ArtifactSignature {
  /** ed25519. */
  readonly algorithm: string;
  readonly keyId: string;
  /** Base64 of the detached signature over the digest. */
  readonly value: string;
}

export interface ArtifactSignatureInput {
  readonly algorithm: string;
  readonly keyId: string;
  readonly value: string;
}

/** The last check of the artifact’s bytes in its store against the digest. */
export interface ArtifactVerification {
  /** Typed reason when not ok, e.g. DIGEST_MISMATCH. */
  readonly code: string | null;
  /** What the stored bytes hashed to. */
  readonly digest: string | null;
  readonly message: string | null;
  readonly ok: boolean;
  readonly sizeBytes: number | null;
  /** s3, oci, file or synthetic (fake-runtime weights). */
  readonly store: string;
  readonly verifiedAt: string;
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

/** Result of verifying the audit chain (from its last checkpoint, or all of it). */
export interface AuditChainStatus {
  /** Events verified in this run before the first break (all of them when valid). */
  readonly checked: number;
  /** The checkpoint this run trusted and started after; null for FULL or before the first verification. */
  readonly checkpointSeq: number | null;
  readonly firstBrokenSeq: number | null;
  readonly mode: AuditChainVerificationMode;
  /** hash-mismatch, link-mismatch, sequence-gap, or checkpoint-mismatch (the checkpointed event changed). */
  readonly reason: string | null;
  readonly valid: boolean;
}

/** INCREMENTAL verifies the events after the last verified checkpoint (and that the checkpointed event is unchanged); FULL verifies the whole chain from its first event, and also finds an event changed before the checkpoint. */
export type AuditChainVerificationMode = 'FULL' | 'INCREMENTAL';

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

export interface BenchmarkComparison {
  readonly baseline: string;
  readonly entries: readonly BenchmarkComparisonEntry[];
  readonly profile: string;
  readonly profileDigest: string;
  /** True when any entry regressed against the baseline. */
  readonly regressed: boolean;
  readonly thresholds: BenchmarkRegressionThresholds;
}

/** One version's latest finished run on the profile, against the baseline. */
export interface BenchmarkComparisonEntry {
  readonly baseline: boolean;
  readonly errorRate: number | null;
  readonly modelRef: string;
  readonly modelVersionId: string;
  readonly passRate: number | null;
  readonly regressed: boolean;
  readonly regressions: readonly BenchmarkRegression[];
  /** Null when the version has no finished run on it. */
  readonly run: EvaluationRun | null;
  /** False when the run used another suite than the baseline: pass rates are not compared. */
  readonly sameSuiteAsBaseline: boolean;
  readonly tokensPerSecond: number | null;
  readonly ttftP50Ms: number | null;
  readonly ttftP95Ms: number | null;
  readonly ttftP99Ms: number | null;
}

export interface BenchmarkMetrics {
  readonly completionTokens: number;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly errorRate: number;
  readonly errors: number;
  /** Whole request, ms (successful requests). */
  readonly latencyMs: LatencyPercentiles | null;
  /** Median decode speed of one request. */
  readonly perRequestTokensPerSecondP50: number | null;
  readonly requests: number;
  /** Completion tokens of successful requests per second of wall clock. */
  readonly tokensPerSecond: number;
  /** Time to first token, ms (successful requests). */
  readonly ttftMs: LatencyPercentiles | null;
}

/** A closed-loop load shape. Immutable: a change is a new profile under a new name. */
export interface BenchmarkProfile {
  /** Clients, each sending its next request when the previous one ends. */
  readonly concurrency: number;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly definitionJson: string;
  readonly description: string | null;
  readonly digest: string;
  readonly durationSeconds: number | null;
  readonly id: string;
  /** Prompt length in words. */
  readonly inputTokens: number;
  /** SLO: the evaluation fails above this error rate. */
  readonly maxErrorRate: number | null;
  /** SLO: the evaluation fails above this p95 TTFT. */
  readonly maxTtftP95Ms: number | null;
  /** SLO: the evaluation fails below this throughput. */
  readonly minTokensPerSecond: number | null;
  readonly name: string;
  /** max_tokens of every request. */
  readonly outputTokens: number;
  readonly requestCount: number | null;
  readonly requestTimeoutSeconds: number;
}

export interface BenchmarkRegression {
  readonly baseline: number;
  readonly candidate: number;
  /** ttftP95, tokensPerSecond, errorRate or passRate. */
  readonly metric: string;
  readonly reason: string;
}

export interface BenchmarkRegressionThresholds {
  readonly maxErrorRateIncrease: number;
  readonly maxPassRateDrop: number;
  readonly maxTokensPerSecondDrop: number;
  readonly maxTtftP95Increase: number;
  readonly ttftSlackMs: number;
}

/** Regression limits; each defaults to the documented constant. */
export interface BenchmarkRegressionThresholdsInput {
  /** Default 0.01 (+1 percentage point). */
  readonly maxErrorRateIncrease?: number | null;
  /** Default 0 (any drop). */
  readonly maxPassRateDrop?: number | null;
  /** Default 0.2 (−20 % tokens/s). */
  readonly maxTokensPerSecondDrop?: number | null;
  /** Default 0.2 (+20 % p95 TTFT). */
  readonly maxTtftP95Increase?: number | null;
  /** Default 5 ms. */
  readonly ttftSlackMs?: number | null;
}

/** A benchmark run on one deployment; each kind’s result appears as it ends. */
export interface BenchmarkRun {
  readonly coldStart: ColdStartResult | null;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly deploymentId: string;
  readonly error: string | null;
  readonly errorCode: string | null;
  readonly finishedAt: string | null;
  readonly id: string;
  /** Kinds planned: saturation, longStream, mixed, coldStart. */
  readonly kinds: readonly string[];
  readonly longStream: LongStreamResult | null;
  readonly mixed: MixedResult | null;
  readonly modelRef: string;
  readonly profile: string;
  readonly saturation: SaturationResult | null;
  /** The profile’s error-rate limit. */
  readonly sloMaxErrorRate: number | null;
  /** The profile’s p95 TTFT limit, ms. */
  readonly sloTtftP95Ms: number | null;
  /** Running, Succeeded or Failed. */
  readonly state: string;
  readonly workflowId: string;
}

export interface BenchmarkRunOperation {
  readonly correlationId: string;
  readonly run: BenchmarkRun | null;
  readonly runId: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
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

/** Replicas an alias needs at its observed peak to keep its benchmark’s p95 TTFT, headroom now, and what losing its busiest node leaves. Null figures mean missing data (see missing), never zero. */
export interface CapacityRecommendation {
  readonly alias: string;
  /** The benchmark run the capacity comes from. */
  readonly benchmarkRunId: string | null;
  readonly bucketSeconds: number;
  readonly capacityAfterNodeLoss: number | null;
  readonly capacityRequestsPerSecond: number | null;
  /** Ready replicas serving now. */
  readonly currentReplicas: number;
  /** The deployment its current revision routes to. */
  readonly deploymentId: string | null;
  /** (capacity − peak) ÷ capacity. */
  readonly headroom: number | null;
  /** The node carrying the most replicas. */
  readonly largestNode: string | null;
  /** What is missing, in words; empty when every figure is known. */
  readonly missing: readonly string[];
  /** (capacity after the loss − peak) ÷ peak. */
  readonly nodeLossMargin: number | null;
  /** Start of the busiest bucket. */
  readonly peakAt: string | null;
  /** Busiest bucket’s requests ÷ bucket seconds. */
  readonly peakRequestsPerSecond: number | null;
  readonly perReplicaRequestsPerSecond: number | null;
  /** ceil(peak ÷ per-replica capacity). */
  readonly replicasNeeded: number | null;
  readonly survivesNodeLoss: boolean | null;
  /** That run’s profile p95 TTFT target, ms. */
  readonly targetTtftP95Ms: number | null;
  readonly windowHours: number;
}

/** Your current password and the new one; every session of yours ends, a fresh one is returned. */
export interface ChangePasswordInput {
  readonly currentPassword: string;
  /** 12-1024 characters. */
  readonly newPassword: string;
}

/** Repeated deploys of a new one-replica deployment of the same model version: deploy request to first streamed token. */
export interface ColdStartPlanInput {
  /** Seconds one deployment may take to its first token (10-3600). */
  readonly readyTimeoutSeconds: number;
  /** Deployments started one after the other, 1-20. */
  readonly repeats: number;
}

export interface ColdStartResult {
  /** Deploy request to first streamed token, ms, over the successful repeats. */
  readonly deployToFirstTokenMs: LatencyPercentiles | null;
  /** Deploy request to replica Ready, ms. */
  readonly deployToReadyMs: LatencyPercentiles | null;
  readonly failures: number;
  readonly repeats: number;
  readonly samples: readonly ColdStartSample[];
}

/** One cold start: a deployment requested, its replica Ready, its first token. */
export interface ColdStartSample {
  readonly deployToFirstTokenMs: number | null;
  readonly deployToReadyMs: number | null;
  readonly deploymentId: string;
  /** Why the repeat failed. */
  readonly error: string | null;
  readonly ok: boolean;
}

/** What one replica needs (model version) or what a runtime can run on. */
export interface CompatibleHardware {
  /** arm64, amd64. */
  readonly architectures: readonly string[];
  readonly gpusPerReplica: number;
  readonly maxComputeCapability: string | null;
  /** unified, discrete. */
  readonly memoryModels: readonly string[];
  readonly minComputeCapability: string;
  readonly minCudaVersion: string | null;
  readonly minMemoryBytesPerReplica: number | null;
}

export interface CompatibleHardwareInput {
  readonly architectures: readonly string[];
  readonly gpusPerReplica: number;
  readonly maxComputeCapability?: string | null;
  readonly memoryModels: readonly string[];
  /** major.minor, e.g. 8.0. */
  readonly minComputeCapability: string;
  /** major.minor; null when no CUDA dependency. */
  readonly minCudaVersion?: string | null;
  /** Weights + KV cache + runtime overhead of one replica. */
  readonly minMemoryBytesPerReplica?: number | null;
}

/** The audit chain as the digest reads it. */
export interface ControlPlaneAuditDigest {
  readonly events: number;
  /** The hash of the last event, which commits to every event before it; null for an empty chain. */
  readonly headHash: string | null;
  /** Every link recomputed from its event. */
  readonly valid: boolean;
}

/** Hashes of the control plane’s durable state, computed as infra/backup/backup.sh records them beside each dump (<dump>.digest), so a running controller can be compared with a backup. */
export interface ControlPlaneDigestView {
  readonly auditChain: ControlPlaneAuditDigest;
  /** sha256 over deployments, their replicas’ node, generation and intent, and nodes’ lifecycle, cordon, labels and taints (not leases, observations or placement records). */
  readonly desiredState: string;
  /** sha256 over models, licenses, runtimes, model versions, aliases and their revisions, trusted signing keys. */
  readonly registry: string;
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

/** The controller's key ring and the rotation in progress, if any. */
export interface ControllerKeyRingView {
  /** Every recorded key, oldest state change first. */
  readonly keys: readonly ControllerRingKey[];
  /** steady, announced (a next key is announced) or overlap (the previous key is still accepted). */
  readonly phase: string;
  /** The RotateControllerKey workflow of the rotation in progress. */
  readonly rotationWorkflowId: string | null;
  readonly temporalUiUrl: string | null;
}

/** A controller key rotation that was started (or resumed). */
export interface ControllerKeyRotation {
  /** The announced key. */
  readonly nextKey: ControllerRingKey;
  /** When the previous key is retired (agents then accept only the new one). */
  readonly retireAt: string;
  readonly rotationId: string;
  /** When the next key starts signing. */
  readonly switchAt: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** One key of the controller's key ring (public half only). */
export interface ControllerRingKey {
  /** For the previous key: when the overlap ends. */
  readonly acceptUntil: string | null;
  /** The envelope signature key id agents know it by: 'ed25519:' + base64url(sha256(SSH blob)). */
  readonly keyId: string;
  /** 'ssh-ed25519 AAAA…'. */
  readonly publicKey: string;
  /** The rotation that brought it in; null for the first key. */
  readonly rotationId: string | null;
  /** 'SHA256:…' as ssh-keygen -lf prints it: what an operator compares on a node. */
  readonly sshFingerprint: string;
  /** next: announced, agents are adding it, the current key still signs; current: signs; previous: still accepted until acceptUntil; retired: accepted nowhere. */
  readonly state: string;
  readonly stateChangedAt: string | null;
}

export interface CreateAliasInput {
  /** public | internal | confidential | restricted */
  readonly dataClass: string;
  readonly description?: string | null;
  /** A DNS label, e.g. chat-default. */
  readonly name: string;
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

export interface CreateBenchmarkProfileInput {
  readonly concurrency: number;
  readonly description?: string | null;
  /** At least one of durationSeconds and requestCount. */
  readonly durationSeconds?: number | null;
  readonly inputTokens: number;
  readonly maxErrorRate?: number | null;
  readonly maxTtftP95Ms?: number | null;
  readonly minTokensPerSecond?: number | null;
  readonly name: string;
  readonly outputTokens: number;
  readonly requestCount?: number | null;
  /** Default 60. */
  readonly requestTimeoutSeconds?: number | null;
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
  /** How the scheduler ranks eligible nodes: Spread (least memory claimed, fewest replicas and least runtime load after placing first) or Binpack (most memory claimed that still fits and most replicas first); ties by name. */
  readonly placementStrategy?: string;
  /** Serving: to serve traffic; the version passes the same deploy gate as a rollout (license, runtime allowlist, hardware, evaluation passed, Approved, digest). Candidate: to evaluate a version before approval; the same gate without evaluation and approval (the version must be verified, not Deprecated or Retired). Asked for explicitly. */
  readonly purpose?: string;
  readonly replicas?: number;
}

export interface CreateEvaluationSuiteInput {
  /** Default 60. */
  readonly caseTimeoutSeconds?: number | null;
  readonly cases: readonly EvaluationCaseInput[];
  /** Default 4. */
  readonly concurrency?: number | null;
  readonly description?: string | null;
  readonly name: string;
  readonly passThreshold: number;
}

/** A new gateway key for a tenant. */
export interface CreateGatewayKeyInput {
  /** 1-100 distinct names of existing aliases the key may call. */
  readonly aliases: readonly string[];
  /** ISO-8601 UTC instant in the future, at most 3650 days ahead; omitted: does not expire. */
  readonly expiresAt?: string | null;
  /** What it is for, 1-100 characters. */
  readonly name: string;
  readonly tenantId: string;
}

/** A new gateway key. `secret` is in this answer only: store it now. */
export interface CreateGatewayKeyResult {
  readonly key: GatewayKey;
  /** Send as `Authorization: Bearer <secret>` to the gateway. Never shown again. */
  readonly secret: string;
}

/** kind spdx takes spdxId; kind custom takes customName, termsUri and termsDigest. A new license is PendingReview. */
export interface CreateLicenseInput {
  /** public, internal, confidential, restricted. */
  readonly allowedDataClasses: readonly string[];
  readonly attribution?: string | null;
  readonly commercialUse: boolean;
  readonly customName?: string | null;
  /** spdx or custom. */
  readonly kind: string;
  /** Registry name, a DNS label, e.g. apache-2-0 or llama3-1-community. */
  readonly name: string;
  readonly spdxId?: string | null;
  readonly termsDigest?: string | null;
  readonly termsUri?: string | null;
}

export interface CreateModelInput {
  /** At most 4096 characters. */
  readonly description?: string | null;
  /** What operators read, 1-256 characters. */
  readonly displayName: string;
  /** A DNS label, unique. */
  readonly name: string;
}

export interface CreateModelVersionInput {
  readonly artifact: ArtifactInput;
  readonly contextLength?: number | null;
  /** Registry name of the license. */
  readonly license: string;
  /** Name of an existing model (createModel). */
  readonly model: string;
  readonly parameterCount?: number | null;
  /** What one replica needs. */
  readonly requirements: CompatibleHardwareInput;
  /** Runtime id (registerRuntime). */
  readonly runtime: string;
  readonly runtimeEnv?: readonly RuntimeEnvVarInput[] | null;
  /** Version label, unique per model: 1-64 of [A-Za-z0-9._-]. */
  readonly version: string;
}

/** A new operator account. */
export interface CreateOperatorInput {
  /** 12-1024 characters. */
  readonly password: string;
  readonly role: Role;
  /** 2-64 of letters, digits, . _ -, starting with a letter; stored lower-case. */
  readonly username: string;
}

/** A new tenant. Quotas left out (or null) are unlimited. */
export interface CreateTenantInput {
  /** 1-256 characters. */
  readonly displayName?: string | null;
  /** Opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}; cannot change later. */
  readonly id: string;
  /** 1-100000; null: unlimited. */
  readonly maxConcurrentRequests?: number | null;
  /** low | normal | high: the highest priority its requests run at; null: any. */
  readonly maxPriority?: string | null;
  /** 1-1000000; null: unlimited. */
  readonly requestsPerMinute?: number | null;
  /** A whole number 1-10000000000; null: unlimited. */
  readonly tokensPerMinute?: number | null;
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

/** A tenant's data policy: the class of data it sends, how long its payloads are kept and whether it consented to evaluation capture. */
export interface DataPolicy {
  /** False: nobody set a policy and the default applies. */
  readonly configured: boolean;
  /** public | internal | confidential | restricted; refused by models not licensed for it. */
  readonly dataClass: string;
  /** Explicit consent to keep completed requests for evaluation (never for training). */
  readonly evaluationCaptureConsent: boolean;
  readonly retentionDays: number | null;
  /** none: payloads are never kept; days: kept retentionDays days, then deleted with a receipt. */
  readonly retentionMode: string;
  /** The opaque tenant id callers send in x-lunanexa-tenant-id ("default" without one). */
  readonly tenantId: string;
  readonly updatedAt: string;
  readonly updatedBy: string;
}

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
  /** Why the replicas run where they do, or why some run nowhere; null before the first placement. */
  readonly placement: DeploymentPlacement | null;
  /** How the scheduler ranks nodes for its replicas: Spread or Binpack. */
  readonly placementStrategy: string;
  /** Serving (passed the full deploy gate, as a rollout canary does) or Candidate (deployed to evaluate a version before approval; no alias routes to it). */
  readonly purpose: string;
  readonly readyReplicas: number;
  /** How the gateway picks a replica per request: round-robin, least-loaded (default: fewest running and queued, nearly full KV caches avoided) or prefix-affinity (hash of the system prompt, else the first user message, on a consistent-hash ring; no replica above 1.25× the mean in flight). Set with setDeploymentRoutingPolicy. */
  readonly routingPolicy: string;
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

/** The scheduler's last decision for a deployment: eligibility (Active, not cordoned, no NoSchedule/NoExecute taint, live lease, node selector) and hardware fit of one replica on each node. */
export interface DeploymentPlacement {
  readonly chosen: readonly PlacementChoice[];
  readonly decidedAt: string;
  readonly rejected: readonly PlacementRejection[];
  /** Replicas no eligible node was left for. */
  readonly unplaced: number;
}

/** One deployment over the whole window. */
export interface DeploymentTraffic {
  /** Null for requests no deployment took (e.g. unknown model). */
  readonly deploymentId: string | null;
  readonly deploymentName: string | null;
  /** In-flight requests its replicas report now. */
  readonly inFlightNow: number;
  readonly modelRef: string | null;
  /** Requests waiting in the gateways' admission queues for one of its replicas now (queue depth; bounded per replica). */
  readonly queuedNow: number;
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

export interface EvaluationCase {
  readonly grader: EvaluationGrader;
  readonly id: string;
  readonly maxTokens: number;
  readonly messages: readonly EvaluationMessage[] | null;
  /** Sent as one user message; null when messages are given. */
  readonly prompt: string | null;
  /** Sampling seed sent with the request. */
  readonly seed: number;
}

export interface EvaluationCaseInput {
  readonly grader: EvaluationGraderInput;
  readonly id: string;
  readonly maxTokens: number;
  readonly messages?: readonly EvaluationMessageInput[] | null;
  /** Exactly one of prompt and messages. */
  readonly prompt?: string | null;
  /** Default 0. */
  readonly seed?: number | null;
}

export interface EvaluationCaseOutcome {
  readonly caseId: string;
  /** Typed code when the request itself failed. */
  readonly errorCode: string | null;
  readonly grader: GraderKind;
  readonly latencyMs: number | null;
  /** The first 256 characters of the answer. */
  readonly outputExcerpt: string | null;
  readonly passed: boolean;
  readonly reason: string | null;
}

/** A case grader; only the fields of its kind are set. */
export interface EvaluationGrader {
  /** exact: the expected answer. */
  readonly expected: string | null;
  /** regex: flags from i, m, s, u. */
  readonly flags: string | null;
  /** exact, contains: compare case-insensitively. */
  readonly ignoreCase: boolean | null;
  readonly kind: GraderKind;
  /** regex: the pattern (unicode mode). */
  readonly pattern: string | null;
  /** json-schema: the JSON Schema, as JSON text. */
  readonly schemaJson: string | null;
  /** contains: the substring. */
  readonly substring: string | null;
  /** exact: trim surrounding whitespace first (default true). */
  readonly trim: boolean | null;
}

/** Set kind and the fields of that kind only. */
export interface EvaluationGraderInput {
  readonly expected?: string | null;
  readonly flags?: string | null;
  readonly ignoreCase?: boolean | null;
  readonly kind: GraderKind;
  readonly pattern?: string | null;
  /** json-schema: the JSON Schema as JSON text (draft-07). */
  readonly schemaJson?: string | null;
  readonly substring?: string | null;
  readonly trim?: boolean | null;
}

export interface EvaluationMessage {
  readonly content: string;
  /** system, user or assistant. */
  readonly role: string;
}

export interface EvaluationMessageInput {
  readonly content: string;
  readonly role: string;
}

export interface EvaluationOperation {
  readonly correlationId: string;
  /** Null until the workflow has recorded the run. */
  readonly run: EvaluationRun | null;
  readonly runId: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** One evaluation of a model version on a candidate deployment. */
export interface EvaluationRun {
  readonly createdAt: string;
  readonly createdBy: string;
  readonly deploymentId: string;
  readonly errorCode: string | null;
  readonly finishedAt: string | null;
  readonly id: string;
  readonly metrics: BenchmarkMetrics | null;
  readonly modelRef: string;
  readonly modelVersionId: string;
  /** Null while running. */
  readonly passed: boolean | null;
  readonly profile: string | null;
  readonly profileDigest: string | null;
  /** Unmet pass criteria, or what stopped the run. */
  readonly reasons: readonly string[];
  readonly scores: EvaluationScores | null;
  /** Running, Passed, Failed or Errored. */
  readonly state: string;
  readonly suite: string;
  readonly suiteDigest: string;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

export interface EvaluationScore {
  readonly name: string;
  readonly value: number;
}

export interface EvaluationScores {
  readonly cases: readonly EvaluationCaseOutcome[];
  readonly passRate: number;
  readonly passThreshold: number;
  readonly passedCases: number;
  readonly totalCases: number;
}

/** Prompts with graders. Immutable: a change is a new suite under a new name. */
export interface EvaluationSuite {
  readonly caseCount: number;
  readonly caseTimeoutSeconds: number;
  readonly cases: readonly EvaluationCase[];
  /** Cases sent at once. */
  readonly concurrency: number;
  readonly createdAt: string;
  readonly createdBy: string;
  /** The definition as stored (EvaluationSuiteDefinition JSON). */
  readonly definitionJson: string;
  readonly description: string | null;
  /** sha256 of the canonical definition: runs with the same digest ran the same suite. */
  readonly digest: string;
  readonly id: string;
  readonly name: string;
  /** Fraction of cases that must pass (0-1). */
  readonly passThreshold: number;
}

/** An enrolled GPU node. */
export interface FleetNode {
  /** Every operator action with whether the node's state allows it (the caller's role is not considered). */
  readonly actions: readonly NodeActionAvailability[];
  readonly address: string;
  /** True while the node's agent is behind this controller's agent protocol: upgrade it (docs/UPGRADING.md). */
  readonly agentOutdated: boolean;
  /** What the node goes without until its agent is upgraded; null when current. */
  readonly agentOutdatedReason: string | null;
  /** Agent protocol the node speaks; 1 when its agent does not report one (releases up to 0.1.0). */
  readonly agentProtocol: number;
  readonly agentVersion: string;
  readonly architecture: string;
  readonly assignments: readonly Assignment[];
  /** Ready (from the lease, on every read), then MemoryPressure, DiskPressure, GpuHealthy and ClockSynchronized as the last accepted heartbeat left them (absent before the first); the scheduler refuses a node with MemoryPressure or DiskPressure True or GpuHealthy False. */
  readonly conditions: readonly NodeCondition[];
  /** Cordoned nodes keep their replicas but receive no new placements. */
  readonly cordoned: boolean;
  readonly cpuCores: number;
  readonly credentialExpiresAt: DateTimeString | null;
  readonly credentialSerial: number;
  readonly enrollWorkflowId: string;
  readonly enrolledAt: DateTimeString;
  /** Each GPU's samples of the last `minutes` (default 60, at most 1440: samples are kept 24 h), one per 15 s at most. VALIDATION_FAILED for a window outside that range. */
  readonly gpuSeries: readonly GpuSeries[];
  /** GPU figures from the latest heartbeat ([] before the first, or from an agent that sends none). */
  readonly gpuTelemetry: readonly GpuTelemetry[];
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

export interface FleetNodeGpuSeriesArgs {
  readonly minutes?: number | null;
}

/** A tenant's gateway key, without its secret (shown once, at creation) or its hash. */
export interface GatewayKey {
  /** The aliases this key may call; nothing else (never model@version). */
  readonly aliases: readonly string[];
  readonly createdAt: string;
  readonly createdBy: string;
  /** Null: does not expire. */
  readonly expiresAt: string | null;
  readonly id: string;
  /** When the gateway last accepted it (recorded in batches, up to about a minute behind). */
  readonly lastUsedAt: string | null;
  /** What it is for. */
  readonly name: string;
  /** The first characters of the key (lnxk_ + 8), to recognise it; audit events name it. */
  readonly prefix: string;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
  /** Active | Expired | Revoked: whether the gateway accepts it now. */
  readonly state: string;
  readonly tenantId: string;
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

/** One GPU's recent history: samples the controller kept from heartbeats, at most one per node every 15 s, kept 24 h. A GPU absent from a sample (a missed heartbeat, a lost GPU) has no point there: a gap, not a zero. */
export interface GpuSeries {
  readonly index: number | null;
  /** Oldest first. */
  readonly points: readonly GpuSeriesPoint[];
  readonly uuid: string;
}

/** One GPU's figures in one stored sample. Null means not reported, never zero. */
export interface GpuSeriesPoint {
  readonly at: DateTimeString;
  readonly memoryTotalBytes: number | null;
  readonly memoryUsedBytes: number | null;
  /** Power draw. */
  readonly powerWatts: number | null;
  readonly temperatureCelsius: number | null;
  readonly utilizationPercent: number | null;
}

/** One GPU's figures from the node's latest heartbeat. Null means the driver did not report it, never zero. */
export interface GpuTelemetry {
  /** Uncorrected ECC errors since the driver loaded. */
  readonly eccUncorrectedErrors: number | null;
  /** Null from agents before v1.1 (the inventory has it). */
  readonly index: number | null;
  /** The driver's last error for this GPU, in its words. */
  readonly lastError: string | null;
  /** The last Xid the kernel logged for this GPU. */
  readonly lastXid: number | null;
  /** The GPU fell off the bus: nvidia-smi cannot reach it. */
  readonly lost: boolean;
  /** nvml, proc-meminfo (unified GB10, where NVML says [N/A]) or simulated; null without figures. */
  readonly memorySource: string | null;
  readonly memoryTotalBytes: number | null;
  readonly memoryUsedBytes: number | null;
  readonly powerLimitWatts: number | null;
  /** Power draw. */
  readonly powerWatts: number | null;
  readonly processCount: number;
  /** Memory the GPU processes use, summed (per-process figures stay on the node). */
  readonly processMemoryBytes: number;
  /** When the agent read these figures. */
  readonly sampledAt: DateTimeString | null;
  readonly temperatureCelsius: number | null;
  /** Active clocks-throttle reasons (NVML names, e.g. SwPowerCap, HwThermalSlowdown); [] none. */
  readonly throttleReasons: readonly string[] | null;
  readonly utilizationPercent: number | null;
  readonly uuid: string;
}

/** How a case is judged: exact (whole answer equals), contains (substring), regex (pattern matches), json-schema (answer is JSON valid against a schema). */
export type GraderKind = 'CONTAINS' | 'EXACT' | 'JSON_SCHEMA' | 'REGEX';

export interface HealInput {
  /** List what the rules would do now and change nothing. */
  readonly dryRun: boolean;
  /** Repeating a key returns the same healing pass. */
  readonly idempotencyKey?: string | null;
  readonly rules?: HealingRulesInput | null;
}

/** One action of a healing pass: the rule, its target, why, and the evidence. */
export interface HealingActionView {
  readonly deploymentId: string | null;
  /** The figures the rule decided on, as canonical JSON. */
  readonly evidenceJson: string;
  /** CordonNode, ReplaceReplica or RestartReplica. */
  readonly kind: string;
  readonly nodeId: string;
  /** What happened when applied (`applied`, or why not); null in a dry run. */
  readonly outcome: string | null;
  readonly reason: string;
  /** The healing.action receipt; null in a dry run. */
  readonly receiptHash: string | null;
  /** cordon-gpu-unhealthy-node, cordon-crashing-node, replace-unhealthy-replica or restart-crash-looping-replica. */
  readonly rule: string;
  /** The node id (CordonNode) or the assignment id. */
  readonly target: string;
}

/** What one healing pass did, or in a dry run would do. */
export interface HealingPlanView {
  readonly actions: readonly HealingActionView[];
  readonly dryRun: boolean;
  readonly rules: HealingRulesView;
  readonly skipped: readonly HealingSkipView[];
}

/** Overrides of the healing rules for this request; unset fields keep the configured values (LUNANEXA_HEAL_*). */
export interface HealingRulesInput {
  /** A target healing acted on is left alone this long. */
  readonly cooldownSeconds?: number | null;
  /** Restarts since the last healing restart that make a crash loop. */
  readonly crashLoopRestarts?: number | null;
  /** Consecutive Unhealthy reports before a replica is re-placed. */
  readonly healthFailureThreshold?: number | null;
  readonly maxActionsPerPass?: number | null;
  /** Distinct replicas the node crashes must come from. */
  readonly nodeCrashMinReplicas?: number | null;
  /** Runtime crashes on one node within the window that cordon it. */
  readonly nodeCrashThreshold?: number | null;
  readonly nodeCrashWindowSeconds?: number | null;
}

/** The rule settings a healing pass used. */
export interface HealingRulesView {
  readonly cooldownSeconds: number;
  readonly crashLoopRestarts: number;
  readonly healthFailureThreshold: number;
  readonly maxActionsPerPass: number;
  readonly nodeCrashMinReplicas: number;
  readonly nodeCrashThreshold: number;
  readonly nodeCrashWindowSeconds: number;
}

/** A healing pass: its plan (dry run) or its applied actions, and its workflow. */
export interface HealingRun {
  readonly correlationId: string;
  readonly plan: HealingPlanView;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** A candidate a rule matched that a bound held back, and the bound. */
export interface HealingSkipView {
  readonly reason: string;
  readonly rule: string;
  readonly target: string;
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

/** LatencyPercentiles by linear interpolation between closest ranks (as percentile_cont). */
export interface LatencyPercentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

/** How the agent execs the runtime: no shell, no command line string. */
export interface LaunchSpec {
  readonly args: readonly string[];
  readonly containerPort: number | null;
  /** Environment variables a model version may set for this runtime. */
  readonly envAllowlist: readonly string[];
  readonly executable: string;
}

export interface LaunchSpecInput {
  readonly args: readonly string[];
  readonly containerPort?: number | null;
  readonly envAllowlist?: readonly string[];
  readonly executable: string;
}

/** The review of a license: nothing rolls out under a license until it is Approved. */
export interface License {
  /** Data classes a workload under this license may carry. */
  readonly allowedDataClasses: readonly string[];
  /** PendingReview, Approved or Rejected. */
  readonly approvalState: string;
  /** Attribution text the license requires. */
  readonly attribution: string | null;
  /** May outputs be used commercially (as reviewed, not inferred). */
  readonly commercialUse: boolean;
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  /** Name of the custom terms, for kind custom. */
  readonly customName: string | null;
  readonly decidedAt: string | null;
  /** Who decided the review; null while PendingReview. */
  readonly decidedBy: string | null;
  readonly id: string;
  /** spdx or custom. */
  readonly kind: string;
  /** Registry name (a DNS label) that model versions refer to. */
  readonly name: string;
  /** The reviewer’s note. */
  readonly note: string | null;
  /** SPDX id, for kind spdx. */
  readonly spdxId: string | null;
  /** sha256 of the custom terms document. */
  readonly termsDigest: string | null;
  /** Where the custom terms document is, for kind custom. */
  readonly termsUri: string | null;
  readonly updatedAt: DateTimeString;
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

/** The figures of one measured load; errors count in errorRate only. */
export interface LoadFigures {
  readonly concurrency: number;
  readonly durationMs: number;
  readonly errorRate: number;
  readonly errors: number;
  /** Whole request, ms. */
  readonly latencyMs: LatencyPercentiles | null;
  /** Null: no replica reports a queue gauge. */
  readonly queueDepth: QueueDepth | null;
  readonly requests: number;
  /** Successful requests per second of wall clock. */
  readonly requestsPerSecond: number;
  /** Completion tokens of successful requests per second of wall clock. */
  readonly tokensPerSecond: number;
  /** Time to first token, ms. */
  readonly ttftMs: LatencyPercentiles | null;
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

/** Few requests of thousands of tokens; measures the gaps between streamed tokens. */
export interface LongStreamPlanInput {
  readonly concurrency: number;
  readonly outputTokens: number;
  readonly requests: number;
}

export interface LongStreamResult {
  readonly completionTokensP50: number | null;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly errorRate: number;
  readonly errors: number;
  /** Gaps between streamed tokens, ms. */
  readonly interTokenGapMs: LatencyPercentiles | null;
  /** Whole request, ms. */
  readonly latencyMs: LatencyPercentiles | null;
  /** Null: no replica reports a queue gauge. */
  readonly queueDepth: QueueDepth | null;
  readonly requests: number;
  /** Successful requests per second of wall clock. */
  readonly requestsPerSecond: number;
  /** Completion tokens of successful requests per second of wall clock. */
  readonly tokensPerSecond: number;
  /** Time to first token, ms. */
  readonly ttftMs: LatencyPercentiles | null;
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

/** Short (the profile's outputTokens) and long requests sent at the same time. */
export interface MixedPlanInput {
  readonly longConcurrency: number;
  readonly longOutputTokens: number;
  readonly longRequests: number;
  readonly shortConcurrency: number;
  readonly shortRequests: number;
}

export interface MixedResult {
  readonly long: LoadFigures;
  readonly short: LoadFigures;
}

/** A model: a name operators recognise; its versions are the deployable records. */
export interface Model {
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly description: string | null;
  readonly displayName: string;
  readonly id: string;
  readonly name: string;
  readonly updatedAt: DateTimeString;
  /** The model’s versions, by version label. */
  readonly versions: readonly ModelVersion[];
}

/** How many of a tenant’s requests named one model or alias. */
export interface ModelUsage {
  /** Rejected, Failed and TimedOut requests among them. */
  readonly errors: number;
  /** The model ref or alias the callers named. */
  readonly requestedModel: string;
  readonly requests: number;
}

/** A registered, digest-pinned model version: artifact, hardware requirements, lifecycle state, verification and evaluation (license and runtime resolve from the registry). */
export interface ModelVersion {
  /** Lifecycle events the version accepts in its state. */
  readonly allowedEvents: readonly string[];
  readonly artifact: Artifact;
  readonly artifactDigest: string;
  readonly contextLength: number | null;
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly evaluation: ModelVersionEvaluation | null;
  readonly id: string;
  /** The license the version is used under, with its review. */
  readonly license: License;
  readonly licenseId: string;
  readonly model: string;
  readonly parameterCount: number | null;
  readonly ref: string;
  /** What one replica needs. */
  readonly requirements: CompatibleHardware;
  /** The runtime record in the registry (allowlist included). */
  readonly runtime: Runtime;
  readonly runtimeEnv: readonly RuntimeEnvVar[];
  readonly runtimeId: string;
  readonly runtimeKind: string;
  /** Lifecycle state (contracts MODEL_VERSION_STATES). */
  readonly state: string;
  readonly stateReason: string | null;
  readonly updatedAt: DateTimeString;
  readonly verification: ArtifactVerification | null;
  readonly version: string;
}

/** The latest evaluation of a model version. */
export interface ModelVersionEvaluation {
  readonly evaluatedAt: string;
  readonly passed: boolean;
  readonly runId: string;
  readonly scores: readonly EvaluationScore[];
  readonly suite: string;
}

export interface Mutation {
  /** Approves a license (admin); the reviewer and note are recorded. */
  readonly approveLicense: License;
  /** Evaluated → Approved: the only state rollouts accept. Needs an Approved license. */
  readonly approveModelVersion: ModelVersion;
  /** Approves a Pending node and waits for EnrollNode to finish (credential issued, SSH checked, Active). */
  readonly approveNode: NodeOperation;
  /** Changes your own password (the current one is required; a wrong one counts as a failed sign-in). Every session of yours ends; the answer is a fresh session. */
  readonly changePassword: LoginResult;
  /** No new placements on the node; running replicas keep serving. */
  readonly cordonNode: FleetNode;
  /** Creates an alias (no revision until its first rollout promotes). */
  readonly createAlias: Alias;
  /** Issues an API token owned by the caller. The token is in this answer only. */
  readonly createApiToken: CreateApiTokenResult;
  /** Stores a benchmark profile (immutable; the same definition again returns it). */
  readonly createBenchmarkProfile: BenchmarkProfile;
  /** A single-use enrollment token (default 15 minutes). The token is in this answer only. */
  readonly createBootstrapToken: CreatedBootstrapToken;
  /** Starts the deployment workflow (place, push signed assignments, wait for Ready, keep leases). */
  readonly createDeployment: DeploymentOperation;
  /** Stores an evaluation suite (immutable; the same definition again returns it). */
  readonly createEvaluationSuite: EvaluationSuite;
  /** Issues a gateway key for a tenant and a set of existing aliases. The secret is in this answer only; the database keeps its sha256. */
  readonly createGatewayKey: CreateGatewayKeyResult;
  /** Records a license for review (PendingReview). */
  readonly createLicense: License;
  /** Creates a model; its versions are created with createModelVersion. */
  readonly createModel: Model;
  /** Registers a digest-pinned model version (state Registered). */
  readonly createModelVersion: ModelVersion;
  /** Creates an operator account. */
  readonly createOperator: Operator;
  /** Creates a tenant (CONFLICT when the id is taken); audited. */
  readonly createTenant: Tenant;
  /** Approved → Deprecated: keeps serving, no new rollouts. */
  readonly deprecateModelVersion: ModelVersion;
  /** Disables an operator: no login, and their sessions and API tokens stop working. The last enabled admin cannot be disabled. */
  readonly disableOperator: Operator;
  /** DrainNode: cordon, stop new traffic, wait for in-flight requests (bounded), stop the replicas, Drained. Refused with DRAIN_WOULD_STRAND_REPLICAS (nothing changed) when a replica on the node could not be placed on another node, unless force is true with a reason (recorded on the drain receipt). */
  readonly drainNode: DrainResult;
  /** Ends every session of an operator (their password and API tokens are unchanged). */
  readonly endOperatorSessions: Operator;
  /** Runs one healing pass (the Healing workflow: bounded actions, each with a healing.action receipt); with dryRun, only lists them and changes nothing. */
  readonly heal: HealingRun;
  /** Exchanges username and password for a 15-minute session token. Unknown user, wrong password and disabled account all answer UNAUTHENTICATED. Repeated failures for one account or from one address answer RATE_LIMITED until the block ends (it doubles per further failure, at most 15 minutes by default). */
  readonly login: LoginResult;
  /** Ends every session of the caller's account (session tokens only; API tokens are revoked). */
  readonly logout: boolean;
  /** Runs the ping system check as a Temporal workflow: one PostgreSQL row and one audit receipt. */
  readonly ping: PingResult;
  /** Deletes every kept payload of a tenant now (RetentionExpiry in purge mode), with payload.delete receipts. */
  readonly purgePayloadCaptures: PayloadPurge;
  /** Runs one Reconcile pass (a workflow): resumes missing deployment workflows, moves generations nodes are ahead of, re-pushes unreported replicas, with a fleet.reconcile receipt; with dryRun, only lists the drift. */
  readonly reconcileFleet: ReconcileRun;
  /** Registers a model version (minimal record). */
  readonly registerModelVersion: ModelVersion;
  /** Registers a runtime (validated launch spec; off the allowlist until an admin allows it). */
  readonly registerRuntime: Runtime;
  /** Trusts an Ed25519 public key to sign model artifacts; its id is its fingerprint. CONFLICT when registered already (revoked keys stay revoked). Audited. */
  readonly registerSigningKey: TrustedSigningKey;
  /** Deprecated → Approved. */
  readonly reinstateModelVersion: ModelVersion;
  /** Rejects a license (admin); versions under it do not roll out. */
  readonly rejectLicense: License;
  /** Rejects a Pending node; it must enroll again with a new token. */
  readonly rejectNode: NodeOperation;
  /** Sets another operator's password (tell it to them out of band); their sessions end. */
  readonly resetOperatorPassword: Operator;
  /** Retired (terminal): after deprecation, or a candidate that never reached Approved; withdraw: true retires an Approved or Deprecated version at once (license withdrawn, weights compromised). */
  readonly retireModelVersion: ModelVersion;
  /** Revokes an API token; it is refused from its next request on. */
  readonly revokeApiToken: ApiToken;
  /** Revokes an unused bootstrap token. */
  readonly revokeBootstrapToken: BootstrapToken;
  /** Revokes a gateway key; gateways refuse it from their next request on. Revoking a revoked key changes nothing and answers it as it is. */
  readonly revokeGatewayKey: GatewayKey;
  /** Revokes a signing key: versions it signed fail the deploy gate and the agent with SIGNATURE_INVALID from now on. Idempotent; audited. */
  readonly revokeSigningKey: TrustedSigningKey;
  /** RotateControllerKey: generates a new controller key, announces it to every agent in signed heartbeat answers and assignments, switches to it after announceSeconds and retires the old key after overlapSeconds more. No node is re-enrolled; one that missed the whole rotation turns ControllerKeyTrusted=False with the command that recovers it. CONFLICT while a rotation is in progress; VALIDATION_FAILED for windows out of range. Audited. */
  readonly rotateControllerKey: ControllerKeyRotation;
  /** RotateNodeCredential: the agent switches to a new key with no gap, then a new credential is issued. */
  readonly rotateNodeCredential: NodeOperation;
  /** Sets a tenant's data policy (audited with before and after); the gateway applies it within a refresh. */
  readonly setDataPolicy: DataPolicy;
  /** Sets how the gateway picks a replica of this deployment per request (round-robin, least-loaded, prefix-affinity); gateways apply it within about a second. Audited; an unknown policy is VALIDATION_FAILED, an unknown deployment NOT_FOUND. */
  readonly setDeploymentRoutingPolicy: Deployment;
  /** Replaces the node labels. */
  readonly setNodeLabels: FleetNode;
  /** Replaces the node taints. */
  readonly setNodeTaints: FleetNode;
  /** Changes an operator's role and ends their sessions. The last enabled admin cannot be demoted. */
  readonly setOperatorRole: Operator;
  /** Puts a runtime on the runtime allowlist or takes it off (admin). */
  readonly setRuntimeAllowed: Runtime;
  /** Whether versions without a provenance signature may be rolled out onto aliases the tenant’s gateway keys call. Audited. */
  readonly setTenantUnsignedPolicy: TenantSigningPolicy;
  /** Promote, roll back, pause, resume or abort a running rollout. */
  readonly signalRollout: Rollout;
  /** Starts a benchmark run on a deployment’s Ready replicas: a saturation sweep, a long stream and/or a mixed load, with the profile’s lengths and SLO. */
  readonly startBenchmarkRun: BenchmarkRunOperation;
  /** Evaluates a model version on a candidate deployment of it: the suite, then the benchmark profile; records scores and metrics and moves the version to Evaluated or EvaluationFailed. */
  readonly startEvaluation: EvaluationOperation;
  /** Starts a rollout of a model version to an alias: policy and digest checks, canary deployment, canary steps with analysis, promotion or rollback. Refusals carry their typed code. */
  readonly startRollout: RolloutOperation;
  /** Stops every replica and waits until the agents report them stopped. */
  readonly stopDeployment: DeploymentOperation;
  /** Placements allowed again; on a Drained node this also returns it to service (Active). */
  readonly uncordonNode: FleetNode;
  /** Changes a tenant's display name and quotas (left out: unchanged; null: unlimited); audited with before and after. Gateways apply it at once. */
  readonly updateTenant: Tenant;
  /** Hashes the artifact in its store against the digest (verifyModelVersionWorkflow) and returns the version with the verification. */
  readonly verifyModelVersion: ModelVersion;
}

export interface MutationApproveLicenseArgs {
  readonly name: string;
  readonly note: string;
}

export interface MutationApproveModelVersionArgs {
  readonly note?: string | null;
  readonly ref: string;
}

export interface MutationApproveNodeArgs {
  /** The same key again returns the first call’s answer; default: derived from the node. */
  readonly idempotencyKey?: string | null;
  readonly node: string;
}

export interface MutationChangePasswordArgs {
  readonly input: ChangePasswordInput;
}

export interface MutationCordonNodeArgs {
  readonly node: string;
}

export interface MutationCreateAliasArgs {
  readonly input: CreateAliasInput;
}

export interface MutationCreateApiTokenArgs {
  readonly input: CreateApiTokenInput;
}

export interface MutationCreateBenchmarkProfileArgs {
  readonly input: CreateBenchmarkProfileInput;
}

export interface MutationCreateBootstrapTokenArgs {
  readonly input: CreateBootstrapTokenInput;
}

export interface MutationCreateDeploymentArgs {
  readonly input: CreateDeploymentInput;
}

export interface MutationCreateEvaluationSuiteArgs {
  readonly input: CreateEvaluationSuiteInput;
}

export interface MutationCreateGatewayKeyArgs {
  readonly input: CreateGatewayKeyInput;
}

export interface MutationCreateLicenseArgs {
  readonly input: CreateLicenseInput;
}

export interface MutationCreateModelArgs {
  readonly input: CreateModelInput;
}

export interface MutationCreateModelVersionArgs {
  readonly input: CreateModelVersionInput;
}

export interface MutationCreateOperatorArgs {
  readonly input: CreateOperatorInput;
}

export interface MutationCreateTenantArgs {
  readonly input: CreateTenantInput;
}

export interface MutationDeprecateModelVersionArgs {
  readonly reason: string;
  readonly ref: string;
}

export interface MutationDisableOperatorArgs {
  readonly id: string;
}

export interface MutationDrainNodeArgs {
  /** Drain even if replicas have nowhere to go (they stop and stay unplaced); needs reason. */
  readonly force?: boolean;
  readonly idempotencyKey?: string | null;
  readonly node: string;
  /** Why a forced drain may strand replicas; audited on the drain receipt. */
  readonly reason?: string | null;
  readonly timeoutSeconds?: number;
}

export interface MutationEndOperatorSessionsArgs {
  readonly id: string;
}

export interface MutationHealArgs {
  readonly input: HealInput;
}

export interface MutationLoginArgs {
  readonly input: LoginInput;
}

export interface MutationPingArgs {
  readonly input: PingInput;
}

export interface MutationPurgePayloadCapturesArgs {
  readonly idempotencyKey?: string | null;
  readonly tenantId: string;
}

export interface MutationReconcileFleetArgs {
  readonly input: ReconcileInput;
}

export interface MutationRegisterModelVersionArgs {
  readonly input: RegisterModelVersionInput;
}

export interface MutationRegisterRuntimeArgs {
  readonly input: RegisterRuntimeInput;
}

export interface MutationRegisterSigningKeyArgs {
  readonly input: RegisterSigningKeyInput;
}

export interface MutationReinstateModelVersionArgs {
  readonly note?: string | null;
  readonly ref: string;
}

export interface MutationRejectLicenseArgs {
  readonly name: string;
  readonly note: string;
}

export interface MutationRejectNodeArgs {
  /** The same key again returns the first call’s answer; default: derived from the node. */
  readonly idempotencyKey?: string | null;
  readonly node: string;
  readonly reason: string;
}

export interface MutationResetOperatorPasswordArgs {
  readonly input: ResetOperatorPasswordInput;
}

export interface MutationRetireModelVersionArgs {
  readonly reason: string;
  readonly ref: string;
  readonly withdraw?: boolean;
}

export interface MutationRevokeApiTokenArgs {
  readonly id: string;
}

export interface MutationRevokeBootstrapTokenArgs {
  readonly id: string;
}

export interface MutationRevokeGatewayKeyArgs {
  readonly id: string;
}

export interface MutationRevokeSigningKeyArgs {
  readonly keyId: string;
}

export interface MutationRotateControllerKeyArgs {
  readonly input: RotateControllerKeyInput;
}

export interface MutationRotateNodeCredentialArgs {
  readonly idempotencyKey?: string | null;
  readonly node: string;
}

export interface MutationSetDataPolicyArgs {
  readonly input: SetDataPolicyInput;
}

export interface MutationSetDeploymentRoutingPolicyArgs {
  /** Deployment id or name. */
  readonly deployment: string;
  readonly routingPolicy: string;
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

export interface MutationSetRuntimeAllowedArgs {
  readonly allowed: boolean;
  readonly id: string;
}

export interface MutationSetTenantUnsignedPolicyArgs {
  readonly allowUnsignedVersions: boolean;
  readonly tenantId: string;
}

export interface MutationSignalRolloutArgs {
  readonly action: RolloutAction;
  /** The same key again returns the first call’s answer; default: derived from the rollout and action. */
  readonly idempotencyKey?: string | null;
  readonly reason?: string | null;
  readonly rollout: string;
}

export interface MutationStartBenchmarkRunArgs {
  readonly input: StartBenchmarkRunInput;
}

export interface MutationStartEvaluationArgs {
  readonly input: StartEvaluationInput;
}

export interface MutationStartRolloutArgs {
  readonly input: StartRolloutInput;
}

export interface MutationStopDeploymentArgs {
  readonly deployment: string;
  /** The same key again returns the first call’s answer; default: derived from the deployment. */
  readonly idempotencyKey?: string | null;
}

export interface MutationUncordonNodeArgs {
  readonly node: string;
}

export interface MutationUpdateTenantArgs {
  readonly input: UpdateTenantInput;
}

export interface MutationVerifyModelVersionArgs {
  readonly ref: string;
}

/** An operator action on a node and whether the node's lifecycle state allows it now. */
export interface NodeActionAvailability {
  /** approve, reject, cordon, uncordon, drain, rotateCredential, setLabels or setTaints. */
  readonly action: string;
  readonly allowed: boolean;
  /** Why the state refuses the action; null when allowed. */
  readonly reason: string | null;
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

/** A kept payload, as metadata: never its text. */
export interface PayloadCapture {
  readonly capturedAt: string;
  readonly correlationId: string;
  readonly deploymentId: string | null;
  /** When RetentionExpiry deletes it. */
  readonly expiresAt: string;
  readonly id: string;
  readonly modelRef: string | null;
  /** retention | evaluation */
  readonly purpose: string;
  readonly requestBytes: number;
  readonly requestId: string;
  readonly responseBytes: number;
  readonly tenantId: string;
}

/** A finished purge of one tenant's payload captures. */
export interface PayloadPurge {
  readonly deleted: number;
  /** Hashes of the payload.delete receipts in the audit log. */
  readonly receiptHashes: readonly string[];
  readonly temporalUiUrl: string;
  readonly tenantId: string;
  readonly workflowId: string;
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

/** A node the scheduler put a replica on, and why. */
export interface PlacementChoice {
  readonly node: string;
  readonly reason: string;
}

/** What to place, for a dry run of the scheduler. */
export interface PlacementPlanInput {
  /** An existing deployment: the plan adds to it (its nodes already run a replica). */
  readonly deployment?: string | null;
  /** Model version ref, name@version. */
  readonly model: string;
  /** Node id or name to place on. */
  readonly node?: string | null;
  /** Spread or Binpack. */
  readonly placementStrategy?: string;
  readonly replicas?: number;
}

/** What the scheduler would do now, and why, for every node. A dry run: nothing is placed, written or audited. */
export interface PlacementPlanView {
  readonly chosen: readonly PlacementChoice[];
  readonly rejected: readonly PlacementRejection[];
  readonly replicas: number;
  readonly strategy: string;
  /** Replicas no eligible node was left for. */
  readonly unplaced: number;
}

/** A node the scheduler passed over, with every reason it was not eligible. */
export interface PlacementRejection {
  readonly node: string;
  readonly reasons: readonly string[];
}

export interface Query {
  /** One alias by name or id; null when there is none. */
  readonly alias: Alias | null;
  /** Every alias, by name, with its revision history. */
  readonly aliases: readonly Alias[];
  /** Every API token (never the secret), newest first. */
  readonly apiTokens: readonly ApiToken[];
  /** Verifies the audit chain and reports the first break: by default the events since the last verified checkpoint; FULL walks all of it (priced 10× higher in the query budget). */
  readonly auditChainStatus: AuditChainStatus;
  /** One audit event with its chain link verified; null when no event has this seq. */
  readonly auditEvent: AuditEvent | null;
  /** Audit events, newest first, paged by seq. */
  readonly auditEvents: AuditEventPage;
  /** The latest finished run of each version on one profile, side by side, with regressions against the baseline (the first version unless named). */
  readonly benchmarkComparison: BenchmarkComparison;
  /** Every benchmark profile, by name. */
  readonly benchmarkProfiles: readonly BenchmarkProfile[];
  readonly benchmarkRun: BenchmarkRun | null;
  /** Benchmark runs, newest first; of one deployment when given. */
  readonly benchmarkRuns: readonly BenchmarkRun[];
  /** Bootstrap tokens, newest first (never the secret). */
  readonly bootstrapTokens: readonly BootstrapToken[];
  /** Per alias (one, or every alias that routes): replicas needed at the observed peak (busiest bucket of the window, default 24 h of 60 s buckets) to keep the benchmark’s p95 TTFT, headroom now, and what losing the node with most replicas leaves. */
  readonly capacityRecommendations: readonly CapacityRecommendation[];
  /** Hashes of the registry, the desired state and the audit chain, as backup.sh records them beside each dump: compare a running controller with a backup (lunanexa digest --compare). Changes nothing. */
  readonly controlPlaneDigest: ControlPlaneDigestView;
  /** What an agent needs to pin the controller: key id and fingerprint. */
  readonly controllerIdentity: ControllerIdentity;
  /** The controller's signing keys (public halves) with their states, and the rotation in progress. */
  readonly controllerKeyRing: ControllerKeyRingView;
  /** Every configured tenant data policy, by tenant id. */
  readonly dataPolicies: readonly DataPolicy[];
  /** A tenant's data policy; the default (configured: false) when nobody set one. */
  readonly dataPolicy: DataPolicy;
  readonly deployment: Deployment | null;
  readonly deployments: readonly Deployment[];
  readonly evaluationRun: EvaluationRun | null;
  /** Evaluation runs, newest first; of one model version and/or one profile when given. */
  readonly evaluationRuns: readonly EvaluationRun[];
  /** Every evaluation suite, by name. */
  readonly evaluationSuites: readonly EvaluationSuite[];
  /** The gateway's base URL as this API reaches it (LUNANEXA_GATEWAY_URL, else the local gateway port); its OpenAI-compatible API is under /v1. */
  readonly gatewayEndpoint: string;
  /** A tenant's gateway keys, newest first, without secrets; revoked ones only with includeRevoked (NOT_FOUND for an unknown tenant). */
  readonly gatewayKeys: readonly GatewayKey[];
  /** Dry run of the healing rules: the actions a pass would take now (rule, target, reason, evidence) and the candidates a bound held back. Changes nothing. */
  readonly healingPlan: HealingPlanView;
  /** Version, commit and dependency checks. Readable by anyone. */
  readonly health: Health;
  readonly license: License | null;
  /** Every license, by name, with its review state. */
  readonly licenses: readonly License[];
  /** The caller: account, effective role and credential. */
  readonly me: Me;
  /** One model by name or id; null when there is none. */
  readonly model: Model | null;
  /** One version by ref (name@version) or id. */
  readonly modelVersion: ModelVersion | null;
  /** Model versions by ref; of one model when given. */
  readonly modelVersions: readonly ModelVersion[];
  /** Every model, by name. */
  readonly models: readonly Model[];
  /** One node by id or name; null when there is none. */
  readonly node: FleetNode | null;
  /** Every enrolled node, by name. */
  readonly nodes: readonly FleetNode[];
  /** Every operator account, by username. */
  readonly operators: readonly Operator[];
  /** Kept payloads, newest first, as metadata only (never the text); of one tenant when given. */
  readonly payloadCaptures: readonly PayloadCapture[];
  /** Dry run of the scheduler: where replicas of a model version would go now and why every node was or was not chosen. Changes nothing. */
  readonly placementPlan: PlacementPlanView;
  /** The most recent ping system checks, newest first. */
  readonly recentPings: readonly PingRecord[];
  /** Dry run of Reconcile: every difference between the desired state and the running workflows and agents, with the repair a pass would take. Changes nothing. */
  readonly reconcilePlan: ReconcileRun;
  /** Inference requests the gateway served, newest first (metadata only, never payloads). */
  readonly requestRecords: RequestRecordPage;
  readonly rollout: Rollout | null;
  /** Rollouts, newest first; of one alias when given. */
  readonly rollouts: readonly Rollout[];
  readonly runtime: Runtime | null;
  /** Every runtime, by name and version, with its allowlist flag. */
  readonly runtimes: readonly Runtime[];
  /** Finds a request id, correlation id, workflow id, audit seq, or node / deployment / model name (prefix). */
  readonly search: readonly SearchHit[];
  /** One tenant; null when there is none with this id. */
  readonly tenant: Tenant | null;
  /** A tenant's unsigned-version policy; null when there is no such tenant. */
  readonly tenantSigningPolicy: TenantSigningPolicy | null;
  /** Every tenant, by id, with its quotas and key counts. */
  readonly tenants: readonly Tenant[];
  /** Request rate, errors, 429s, tokens, latency and time-to-first-token percentiles over a recent window, per bucket, per deployment and per tenant (with its top models), with the in-flight requests replicas report now. */
  readonly traffic: TrafficReport;
  /** Every registered signing key, revoked ones included. */
  readonly trustedSigningKeys: readonly TrustedSigningKey[];
  /** Workflows that failed, timed out or were terminated in the last `hours`, newest first. */
  readonly workflowAlerts: readonly WorkflowAlert[];
}

export interface QueryAliasArgs {
  readonly alias: string;
}

export interface QueryAuditChainStatusArgs {
  readonly mode?: AuditChainVerificationMode;
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

export interface QueryBenchmarkComparisonArgs {
  readonly baseline?: string | null;
  readonly modelVersions: readonly string[];
  readonly profile: string;
  readonly thresholds?: BenchmarkRegressionThresholdsInput | null;
}

export interface QueryBenchmarkRunArgs {
  readonly id: string;
}

export interface QueryBenchmarkRunsArgs {
  readonly deployment?: string | null;
  readonly limit?: number | null;
}

export interface QueryCapacityRecommendationsArgs {
  readonly alias?: string | null;
  readonly bucketSeconds?: number | null;
  readonly windowHours?: number | null;
}

export interface QueryDataPolicyArgs {
  readonly tenantId: string;
}

export interface QueryDeploymentArgs {
  readonly deployment: string;
}

export interface QueryEvaluationRunArgs {
  readonly id: string;
}

export interface QueryEvaluationRunsArgs {
  readonly limit?: number | null;
  readonly modelVersion?: string | null;
  readonly profile?: string | null;
}

export interface QueryGatewayKeysArgs {
  readonly includeRevoked?: boolean | null;
  readonly tenantId: string;
}

export interface QueryHealingPlanArgs {
  readonly rules?: HealingRulesInput | null;
}

export interface QueryLicenseArgs {
  readonly name: string;
}

export interface QueryModelArgs {
  readonly name: string;
}

export interface QueryModelVersionArgs {
  readonly ref: string;
}

export interface QueryModelVersionsArgs {
  readonly model?: string | null;
}

export interface QueryNodeArgs {
  readonly node: string;
}

export interface QueryPayloadCapturesArgs {
  readonly limit?: number | null;
  readonly tenantId?: string | null;
}

export interface QueryPlacementPlanArgs {
  readonly input: PlacementPlanInput;
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

export interface QueryRolloutArgs {
  readonly id: string;
}

export interface QueryRolloutsArgs {
  readonly alias?: string | null;
  readonly limit?: number | null;
}

export interface QueryRuntimeArgs {
  readonly id: string;
}

export interface QuerySearchArgs {
  readonly term: string;
}

export interface QueryTenantArgs {
  readonly id: string;
}

export interface QueryTenantSigningPolicyArgs {
  readonly tenantId: string;
}

export interface QueryTrafficArgs {
  readonly bucketSeconds?: number;
  /** Deployment id or name. */
  readonly deployment?: string | null;
  /** Only requests that counted against this tenant (its usage over time). */
  readonly tenant?: string | null;
  readonly windowMinutes?: number;
}

export interface QueryWorkflowAlertsArgs {
  readonly hours?: number;
  readonly limit?: number;
}

/** Requests waiting in the replicas’ runtime queues (summed), sampled during a load. */
export interface QueueDepth {
  readonly max: number;
  readonly mean: number;
  readonly samples: number;
}

/** One difference between the desired state and what runs. */
export interface ReconcileDriftView {
  readonly deploymentId: string | null;
  /** What the desired state says. */
  readonly desired: string;
  /** DeploymentWorkflowMissing, GenerationBehindNode, ReplicaNotReported or UnknownReplicaOnNode. */
  readonly kind: string;
  readonly nodeId: string | null;
  readonly note: string;
  /** What was observed instead. */
  readonly observed: string;
  /** The repair taken for it; null when none is the controller’s to take (see note). */
  readonly repair: string | null;
  /** The deployment id (DeploymentWorkflowMissing) or the replica assignment id. */
  readonly target: string;
}

export interface ReconcileInput {
  /** Only find the drift: no repair, no write, no receipt. */
  readonly dryRun: boolean;
  /** Repeating a key returns the same reconcile pass. */
  readonly idempotencyKey?: string | null;
}

/** One repair of a reconcile pass and what came of it. */
export interface ReconcileRepairView {
  readonly deploymentId: string;
  readonly fromGeneration: number | null;
  /** AdvanceGeneration, ResumeDeploymentWorkflow or PushAssignments. */
  readonly kind: string;
  /** `applied`, `already done`, why not, or `not applied: dry run`. */
  readonly outcome: string;
  readonly reason: string;
  /** A Stopping deployment resumed with its stop. */
  readonly stop: boolean;
  /** The deployment id, or the assignment id for AdvanceGeneration. */
  readonly target: string;
  readonly toGeneration: number | null;
}

/** A reconcile pass: the drift it found and the repairs it took (none in a dry run). */
export interface ReconcileRun {
  readonly correlationId: string;
  readonly drift: readonly ReconcileDriftView[];
  readonly dryRun: boolean;
  /** No drift was found. */
  readonly inSync: boolean;
  /** The fleet.reconcile receipt; null in a dry run. */
  readonly receiptHash: string | null;
  readonly receiptSeq: number | null;
  readonly repairs: readonly ReconcileRepairView[];
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

export interface RegisterModelVersionInput {
  /** Fake runtime: share of inference requests answered with an injected 500 (0-1, spread evenly and predictably) — for exercising canary analysis and rollback. */
  readonly errorRate?: number | null;
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

/** A new runtime; its id is runtime-<name>-<version>. It starts off the allowlist. */
export interface RegisterRuntimeInput {
  readonly health: RuntimeHealthCheckInput;
  /** fake or openai-compatible. */
  readonly kind: string;
  readonly launch: LaunchSpecInput;
  /** vllm, sglang, llamacpp or none; derived from kind and name when omitted (fake and vllm runtimes: vllm). */
  readonly metricsFormat?: string | null;
  /** A DNS label, e.g. vllm. */
  readonly name: string;
  readonly packaging: RuntimePackagingInput;
  readonly supportedHardware: CompatibleHardwareInput;
  readonly version: string;
}

export interface RegisterSigningKeyInput {
  /** 1-200 characters, no control characters. */
  readonly label: string;
  /** The Ed25519 public key: base64 of the raw 32 bytes, or a PEM SubjectPublicKeyInfo (`lunanexa signing-key generate` writes one). */
  readonly publicKey: string;
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
  /** The tenant whose key made the request (its quotas applied); null for operator credentials. */
  readonly tenantId: string | null;
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
  /** Only requests that counted against this tenant. */
  readonly tenant?: string | null;
}

export interface RequestRecordPage {
  readonly items: readonly RequestRecord[];
  /** Pass as `before` for the next (older) page. */
  readonly nextBefore: string | null;
}

/** Set another operator's password; their sessions end. */
export interface ResetOperatorPasswordInput {
  /** 12-1024 characters. */
  readonly newPassword: string;
  readonly operatorId: string;
}

/** Operator roles, lowest first; each can do everything the roles below it can. */
export type Role = 'admin' | 'operator' | 'viewer';

/** Moving an alias to a model version through canary steps. */
export interface Rollout {
  /** Every operator signal with whether the rollout's state allows it (the caller's role is not considered). */
  readonly actions: readonly RolloutActionAvailability[];
  readonly alias: string;
  readonly analyses: readonly RolloutAnalysis[];
  readonly analysisWindowSeconds: number;
  readonly bakeSeconds: number;
  /** The alias revision serving when the rollout started; rollback restores it. */
  readonly baseRevision: number;
  readonly canaryDeploymentId: string | null;
  readonly createdAt: string;
  readonly createdBy: string;
  /** Index into steps of the current (or last) step; -1 before the first. */
  readonly currentStep: number;
  /** The canary weight now in effect (0 when none). */
  readonly currentWeight: number;
  readonly finishedAt: string | null;
  readonly id: string;
  readonly maxErrorRateIncrease: number;
  readonly maxEvaluationScoreDrop: number;
  readonly maxP95LatencyRatio: number;
  readonly maxWindowsPerStep: number;
  readonly modelRef: string;
  readonly p95SlackMs: number;
  /** The receipts of this rollout, in order. */
  readonly receipts: readonly RolloutReceipt[];
  /** The typed code of a refusal (LICENSE_NOT_APPROVED, DIGEST_MISMATCH, …). */
  readonly refusalCode: string | null;
  readonly replicas: number;
  readonly samplesPerStep: number;
  /** Verifying | Deploying | Canary | Paused | Promoted | RolledBack | Aborted | Refused | Failed */
  readonly state: string;
  readonly stateReason: string | null;
  /** Canary weights in percent, in order. */
  readonly steps: readonly number[];
  readonly temporalUiUrl: string;
  readonly updatedAt: string;
  readonly workflowId: string;
}

/** Operator signals to a running rollout: promote now, roll back, pause or resume the step timer, abort. */
export type RolloutAction = 'ABORT' | 'PAUSE' | 'PROMOTE' | 'RESUME' | 'ROLLBACK';

/** An operator signal to a rollout and whether the console should offer it in the rollout's state. */
export interface RolloutActionAvailability {
  readonly action: RolloutAction;
  /** Whether the signal changes something now (signalRollout itself refuses only signals the workflow no longer takes). */
  readonly allowed: boolean;
  /** Why the state refuses the signal; null when allowed. */
  readonly reason: string | null;
}

/** The judgement of one canary analysis window (canary against stable). */
export interface RolloutAnalysis {
  readonly canaryErrorRate: number;
  readonly canaryErrors: number;
  readonly canaryEvaluationScore: number | null;
  readonly canaryP95Ms: number | null;
  readonly canaryRequests: number;
  readonly reasons: readonly string[];
  readonly stableErrorRate: number | null;
  readonly stableEvaluationScore: number | null;
  readonly stableP95Ms: number | null;
  /** Null on an alias’s first rollout. */
  readonly stableRequests: number | null;
  readonly step: number;
  /** pass | breach | insufficient */
  readonly verdict: string;
  /** Canary weight in percent during the step. */
  readonly weight: number;
  /** Window of the step (more than 1 when the sample was not complete in time). */
  readonly window: number;
}

export interface RolloutOperation {
  readonly correlationId: string;
  readonly rollout: Rollout;
  readonly temporalUiUrl: string;
  readonly workflowId: string;
}

/** A receipt the rollout workflow wrote (one per step), from the hash-chained audit log. */
export interface RolloutReceipt {
  /** rollout.start, rollout.step, rollout.analysis, rollout.promote, rollout.rollback, … */
  readonly action: string;
  readonly actor: string;
  readonly decision: string;
  /** The receipt evidence as JSON (ids and outcomes, never payloads). */
  readonly evidenceJson: string;
  readonly hash: string;
  readonly occurredAt: string;
  readonly result: string;
  readonly seq: number;
}

export interface RotateControllerKeyInput {
  /** Seconds the next key is announced before it signs (1 s to 30 days; default 1 day). */
  readonly announceSeconds?: number | null;
  /** Seconds the previous key stays accepted after the switch (1 s to 90 days; default 7 days). */
  readonly overlapSeconds?: number | null;
  /** Why (3-500 characters); audited. */
  readonly reason: string;
}

/** A runtime registry record and whether it is on the runtime allowlist. */
export interface Runtime {
  /** On the runtime allowlist: only versions on an allowed runtime roll out. */
  readonly allowed: boolean;
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly health: RuntimeHealthCheck;
  readonly id: string;
  /** fake or openai-compatible. */
  readonly kind: string;
  readonly launch: LaunchSpec;
  /** Which metric names its /metrics page uses: vllm, sglang, llamacpp or none (not scraped). Derived for runtimes registered without one. */
  readonly metricsFormat: string;
  readonly name: string;
  readonly packaging: RuntimePackaging;
  readonly supportedHardware: CompatibleHardware;
  readonly updatedAt: DateTimeString;
  readonly version: string;
}

/** An environment variable a model version passes to its runtime. */
export interface RuntimeEnvVar {
  readonly name: string;
  readonly value: string;
}

export interface RuntimeEnvVarInput {
  /** Must be on the runtime’s envAllowlist. */
  readonly name: string;
  readonly value: string;
}

export interface RuntimeHealthCheck {
  readonly intervalMs: number;
  readonly path: string;
  readonly startupTimeoutMs: number;
}

export interface RuntimeHealthCheckInput {
  readonly intervalMs: number;
  readonly path: string;
  readonly startupTimeoutMs: number;
}

export interface RuntimePackaging {
  readonly digest: string;
  /** Image repository without tag (containers). */
  readonly image: string | null;
  /** container or binary. */
  readonly type: string;
}

export interface RuntimePackagingInput {
  readonly digest: string;
  readonly image?: string | null;
  /** container or binary. */
  readonly type: string;
}

/** Closed-loop steps of rising concurrency; stops at the first step over the SLO. */
export interface SaturationPlanInput {
  /** Strictly rising, e.g. [1, 2, 4, 8]; at most 12 steps. */
  readonly concurrencySteps: readonly number[];
  /** Requests sent at each step. */
  readonly requestsPerStep: number;
}

export interface SaturationResult {
  /** First step over the SLO; null when none broke it. */
  readonly brokeAtConcurrency: number | null;
  /** Requests per second one replica sustains within the SLO (that step’s rate ÷ replicas). */
  readonly perReplicaRequestsPerSecond: number | null;
  /** Replicas the load was spread over. */
  readonly replicas: number;
  readonly steps: readonly SaturationStep[];
  /** Highest concurrency within the SLO. */
  readonly sustainableConcurrency: number | null;
}

export interface SaturationStep {
  /** Null: within the SLO; otherwise why it broke it. */
  readonly breach: string | null;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly errorRate: number;
  readonly errors: number;
  /** Whole request, ms. */
  readonly latencyMs: LatencyPercentiles | null;
  /** Null: no replica reports a queue gauge. */
  readonly queueDepth: QueueDepth | null;
  readonly requests: number;
  /** Successful requests per second of wall clock. */
  readonly requestsPerSecond: number;
  /** Completion tokens of successful requests per second of wall clock. */
  readonly tokensPerSecond: number;
  /** Time to first token, ms. */
  readonly ttftMs: LatencyPercentiles | null;
}

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

export interface SetDataPolicyInput {
  /** public | internal | confidential | restricted */
  readonly dataClass: string;
  /** Default false. */
  readonly evaluationCaptureConsent?: boolean | null;
  /** With retentionMode days: 1-3650. */
  readonly retentionDays?: number | null;
  /** none | days */
  readonly retentionMode: string;
  readonly tenantId: string;
}

/** Change an operator's role; their sessions end. */
export interface SetOperatorRoleInput {
  readonly operatorId: string;
  readonly role: Role;
}

export interface StartBenchmarkRunInput {
  readonly coldStart?: ColdStartPlanInput | null;
  /** Deployment (name or id) with at least one Ready replica. */
  readonly deployment: string;
  /** The same key returns the same run. */
  readonly idempotencyKey?: string | null;
  readonly longStream?: LongStreamPlanInput | null;
  readonly mixed?: MixedPlanInput | null;
  /** Benchmark profile (name or id): prompt and answer lengths, request deadline, SLO. */
  readonly profile: string;
  readonly saturation?: SaturationPlanInput | null;
}

export interface StartEvaluationInput {
  /** A deployment of that version (name or id), with a Ready replica. */
  readonly deployment: string;
  /** The same key returns the same run. */
  readonly idempotencyKey?: string | null;
  /** Model version ref (name@version) or id. */
  readonly modelVersion: string;
  /** Benchmark profile name or id; none: the suite only. */
  readonly profile?: string | null;
  /** Suite name or id. */
  readonly suite: string;
}

/** Every plan field is optional; omitted ones take the defaults (10 → 50 → 100 %). */
export interface StartRolloutInput {
  readonly alias: string;
  readonly analysisWindowSeconds?: number | null;
  readonly bakeSeconds?: number | null;
  /** Same key, same rollout (default: a new rollout). */
  readonly idempotencyKey?: string | null;
  readonly maxErrorRateIncrease?: number | null;
  readonly maxEvaluationScoreDrop?: number | null;
  readonly maxP95LatencyRatio?: number | null;
  readonly maxWindowsPerStep?: number | null;
  /** The model version ref (name@version) or id. */
  readonly modelVersion: string;
  readonly p95SlackMs?: number | null;
  readonly replicas?: number | null;
  readonly samplesPerStep?: number | null;
  readonly steps?: readonly number[] | null;
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

/** A tenant: the opaque id its requests carry (x-lunanexa-tenant-id, or the tenant of its gateway key) and its quotas. */
export interface Tenant {
  /** Gateway keys the gateway accepts now: neither revoked nor expired. */
  readonly activeKeyCount: number;
  readonly createdAt: string;
  readonly createdBy: string;
  /** For people; requests name the tenant by id. */
  readonly displayName: string | null;
  /** Opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}. */
  readonly id: string;
  /** Gateway keys ever issued to the tenant, revoked and expired ones included. */
  readonly keyCount: number;
  /** Highest priority (low | normal | high) the gateway runs this tenant's requests at; a higher x-lunanexa-priority is lowered to it and recorded on the request. Null: any. */
  readonly maxPriority: string | null;
  readonly quota: TenantQuota;
  readonly updatedAt: string;
  readonly updatedBy: string;
}

/** What the gateway lets a tenant use, counted across all of its keys; each limit null = unlimited (429 QUOTA_EXCEEDED beyond it). */
export interface TenantQuota {
  /** Requests in flight at once, 1-100000; null: unlimited. */
  readonly maxConcurrentRequests: number | null;
  /** Requests per minute, 1-1000000; null: unlimited. */
  readonly requestsPerMinute: number | null;
  /** Prompt + completion tokens per minute, a whole number 1-10000000000 (Float: past 32 bits); null: unlimited. */
  readonly tokensPerMinute: number | null;
}

/** A tenant's artifact-signature policy. */
export interface TenantSigningPolicy {
  /** Whether versions without a provenance signature may be rolled out onto aliases this tenant’s gateway keys call (UNSIGNED_VERSION_NOT_ALLOWED otherwise). */
  readonly allowUnsignedVersions: boolean;
  readonly tenantId: string;
}

/** One tenant over the whole window. */
export interface TenantTraffic {
  /** Null for requests made without a tenant (operator sessions and API tokens). */
  readonly tenantId: string | null;
  /** The models or aliases it called most, at most five. */
  readonly topModels: readonly ModelUsage[];
  /** The whole window as one bucket. */
  readonly totals: TrafficBucket;
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
  readonly promptTokens: number;
  /** Requests refused with HTTP 429 (a tenant quota or concurrency limit). */
  readonly rateLimited: number;
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
  /** In-flight requests all replicas in scope report now. */
  readonly inFlightNow: number;
  /** Requests waiting in the gateways' admission queues in scope now (queue depth). */
  readonly queuedNow: number;
  /** Busiest first, at most 50 tenants. */
  readonly tenants: readonly TenantTraffic[];
  readonly totals: TrafficBucket;
  readonly windowEnd: DateTimeString;
  readonly windowStart: DateTimeString;
}

/** An Ed25519 public key an admin trusts to sign model artifacts. A version whose provenance signature names it verifies only while it is not revoked. */
export interface TrustedSigningKey {
  /** Always ed25519. */
  readonly algorithm: string;
  readonly createdAt: string;
  readonly createdBy: string;
  /** Fingerprint: 'ed25519:' + the first 32 hex digits of sha256 over the raw public key. */
  readonly keyId: string;
  /** What the key is for, e.g. the CI pipeline that holds it. */
  readonly label: string;
  /** Base64 of the raw 32-byte public key. */
  readonly publicKey: string;
  /** When it was revoked; null while trusted. */
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
}

/** Changes a tenant's display name and quotas. A field left out keeps its value; null means unlimited (no display name). */
export interface UpdateTenantInput {
  readonly displayName?: string | null;
  readonly id: string;
  /** 1-100000; null: unlimited. */
  readonly maxConcurrentRequests?: number | null;
  /** low | normal | high: the highest priority its requests run at; null: any. Left out: unchanged. */
  readonly maxPriority?: string | null;
  /** 1-1000000; null: unlimited. */
  readonly requestsPerMinute?: number | null;
  /** A whole number 1-10000000000; null: unlimited. */
  readonly tokensPerMinute?: number | null;
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
