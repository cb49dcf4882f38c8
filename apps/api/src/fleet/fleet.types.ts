import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import {
  Artifact,
  ArtifactVerification,
  CompatibleHardware,
  ModelVersionEvaluation,
  RuntimeEnvVar,
} from '../registry/registry.types';
import { WorkflowOperation } from '../common/workflow-operation.types';

/**
 * GraphQL shapes of the node lifecycle and the deployment slice. State
 * fields are strings holding the names in libs/contracts lifecycle.ts (the one
 * vocabulary); inputs are validated in the services against the contracts'
 * zod schemas, so the API and the agent refuse the same things (`@Allow` only
 * lets the fields past the global whitelist pipe).
 */

@ObjectType()
export class Label {
  @Field()
  key!: string;

  @Field()
  value!: string;
}

@InputType()
export class LabelInput {
  @Allow()
  @Field()
  key!: string;

  @Allow()
  @Field({ defaultValue: '' })
  value!: string;
}

@ObjectType()
export class Taint {
  @Field()
  key!: string;

  @Field()
  value!: string;

  @Field({ description: 'NoSchedule, PreferNoSchedule or NoExecute.' })
  effect!: string;
}

@InputType()
export class TaintInput {
  @Allow()
  @Field()
  key!: string;

  @Allow()
  @Field({ defaultValue: '' })
  value!: string;

  @Allow()
  @Field({ description: 'NoSchedule, PreferNoSchedule or NoExecute.' })
  effect!: string;
}

@ObjectType({
  description:
    'A GPU as the node agent reported it. Memory figures are null when not reported, never 0-for-unknown.',
})
export class Gpu {
  @Field(() => Int)
  index!: number;

  @Field()
  name!: string;

  @Field()
  uuid!: string;

  @Field({ description: 'unified (GB10: GPU shares system memory) or discrete.' })
  memoryModel!: string;

  @Field({ description: 'nvml, proc-meminfo or simulated: where the memory figure comes from.' })
  memorySource!: string;

  @Field(() => Float, { nullable: true })
  totalMemoryBytes!: number | null;

  @Field(() => Float, { nullable: true })
  freeMemoryBytes!: number | null;

  @Field()
  computeCapability!: string;
}

@ObjectType({
  description: 'One replica of a deployment on one node: desired (generation, intent, lease) and observed.',
})
export class Assignment {
  @Field(() => ID)
  id!: string;

  @Field()
  deploymentId!: string;

  @Field()
  nodeId!: string;

  @Field()
  nodeName!: string;

  @Field(() => Int)
  generation!: number;

  @Field({ description: 'Run or Stop.' })
  intent!: string;

  @Field()
  leaseExpiresAt!: Date;

  @Field(() => Int, { nullable: true, description: 'Newest generation the agent acknowledged (persisted).' })
  ackedGeneration!: number | null;

  @Field(() => String, { nullable: true, description: 'Replica state the agent last reported.' })
  observedState!: string | null;

  @Field(() => Int, { nullable: true })
  observedGeneration!: number | null;

  @Field(() => Int, { nullable: true })
  endpointPort!: number | null;

  @Field(() => Int, { nullable: true, description: 'In-flight requests the runtime reported.' })
  inFlight!: number | null;

  @Field(() => String, { nullable: true })
  message!: string | null;

  @Field(() => Date, { nullable: true })
  observedAt!: Date | null;
}

@ObjectType()
export class NodeCondition {
  @Field()
  type!: string;

  @Field({ description: 'True, False or Unknown.' })
  status!: string;

  @Field()
  reason!: string;

  @Field(() => String, { nullable: true })
  message!: string | null;

  @Field()
  lastTransitionAt!: Date;
}

@ObjectType({ description: 'An enrolled GPU node.' })
export class FleetNode {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'Pending, Approved, Active, Draining, Drained, Rejected or Revoked.' })
  lifecycle!: string;

  @Field({ description: 'Ready, NotReady or Unreachable — derived from the heartbeat lease on every read.' })
  readiness!: string;

  @Field(() => [NodeCondition])
  conditions!: NodeCondition[];

  @Field({ description: 'Cordoned nodes keep their replicas but receive no new placements.' })
  cordoned!: boolean;

  @Field(() => [Label])
  labels!: Label[];

  @Field(() => [Taint])
  taints!: Taint[];

  @Field()
  address!: string;

  @Field(() => Int)
  sshPort!: number;

  @Field({ description: 'SSH host key pinned at enrollment (SHA256:…).' })
  hostKeyFingerprint!: string;

  @Field({ description: 'Key id of the node key that signs heartbeats.' })
  keyId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'During a credential rotation: the key that takes over.',
  })
  nextKeyId!: string | null;

  @Field(() => Int)
  credentialSerial!: number;

  @Field(() => Date, { nullable: true })
  credentialExpiresAt!: Date | null;

  @Field(() => Date, { nullable: true })
  leaseRenewedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  leaseExpiresAt!: Date | null;

  @Field(() => Float, { nullable: true })
  heartbeatAgeSeconds!: number | null;

  @Field()
  architecture!: string;

  @Field(() => Int)
  cpuCores!: number;

  @Field(() => Float)
  systemMemoryBytes!: number;

  @Field()
  agentVersion!: string;

  @Field(() => Int, {
    description:
      'Agent protocol the node speaks; 1 when its agent does not report one (releases up to 0.1.0).',
  })
  agentProtocol!: number;

  @Field({
    description:
      "True while the node's agent is behind this controller's agent protocol: upgrade it (docs/UPGRADING.md).",
  })
  agentOutdated!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'What the node goes without until its agent is upgraded; null when current.',
  })
  agentOutdatedReason!: string | null;

  @Field(() => [Gpu])
  gpus!: Gpu[];

  @Field(() => [Assignment])
  assignments!: Assignment[];

  @Field()
  enrollWorkflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  enrolledAt!: Date;

  @Field()
  updatedAt!: Date;
}

@ObjectType()
export class BootstrapToken {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The first characters of the token, for recognising it.' })
  prefix!: string;

  @Field(() => String, {
    nullable: true,
    description: 'When set, only an agent with this node name may use it.',
  })
  nodeName!: string | null;

  @Field(() => [Label])
  labels!: Label[];

  @Field()
  autoApprove!: boolean;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  expiresAt!: Date;

  @Field(() => Date, { nullable: true })
  usedAt!: Date | null;

  @Field(() => String, { nullable: true })
  usedByNodeId!: string | null;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;
}

@InputType()
export class CreateBootstrapTokenInput {
  @Allow()
  @Field(() => String, { nullable: true, description: 'Restrict the token to this node name.' })
  nodeName?: string | null;

  @Allow()
  @Field(() => [LabelInput], { nullable: true, description: 'Labels the node gets on enrollment.' })
  labels?: LabelInput[] | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Lifetime in seconds (default 900, 60-86400).' })
  ttlSeconds?: number | null;

  @Allow()
  @Field({ defaultValue: false, description: 'Approve the node on enrollment without an operator.' })
  autoApprove!: boolean;
}

@ObjectType({ description: 'A new bootstrap token. The token is shown here once and never again.' })
export class CreatedBootstrapToken {
  @Field()
  token!: string;

  @Field(() => BootstrapToken)
  bootstrapToken!: BootstrapToken;

  @Field()
  controllerUrl!: string;

  @Field({ description: 'SHA256 fingerprint of the controller key the agent must pin.' })
  controllerKeyFingerprint!: string;

  @Field({ description: 'The command to paste on the node.' })
  agentInvocation!: string;
}

@ObjectType({ description: 'The outcome of a node workflow, with its receipt and Temporal link.' })
export class NodeOperation extends WorkflowOperation {
  @Field(() => FleetNode)
  node!: FleetNode;

  @Field(() => String, {
    nullable: true,
    description: 'Hash of the receipt that closed the operation, when it has finished.',
  })
  receiptHash!: string | null;
}

@ObjectType()
export class DrainResult extends WorkflowOperation {
  @Field(() => FleetNode)
  node!: FleetNode;

  @Field(() => Int)
  replicasAtStart!: number;

  @Field(() => Int)
  inFlightAtStart!: number;

  @Field(() => Int, { description: 'In-flight requests cut off by the timeout (0 when all finished).' })
  inFlightAtTimeout!: number;

  @Field()
  receiptHash!: string;
}

@ObjectType({
  description:
    'A registered, digest-pinned model version: artifact, hardware requirements, lifecycle state, verification and evaluation (license and runtime resolve from the registry).',
})
export class ModelVersion {
  @Field(() => ID)
  id!: string;

  @Field()
  ref!: string;

  @Field()
  model!: string;

  @Field()
  version!: string;

  @Field()
  runtimeKind!: string;

  @Field()
  artifactDigest!: string;

  @Field({ description: 'Lifecycle state (contracts MODEL_VERSION_STATES).' })
  state!: string;

  @Field(() => String, { nullable: true })
  stateReason!: string | null;

  @Field(() => [String], { description: 'Lifecycle events the version accepts in its state.' })
  allowedEvents!: string[];

  @Field(() => Artifact)
  artifact!: Artifact;

  @Field(() => CompatibleHardware, { description: 'What one replica needs.' })
  requirements!: CompatibleHardware;

  @Field(() => ArtifactVerification, { nullable: true })
  verification!: ArtifactVerification | null;

  @Field(() => ModelVersionEvaluation, { nullable: true })
  evaluation!: ModelVersionEvaluation | null;

  @Field(() => Int, { nullable: true })
  contextLength!: number | null;

  @Field(() => Float, { nullable: true })
  parameterCount!: number | null;

  @Field(() => [RuntimeEnvVar])
  runtimeEnv!: RuntimeEnvVar[];

  @Field()
  licenseId!: string;

  @Field()
  runtimeId!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType()
export class RegisterModelVersionInput {
  @Allow()
  @Field({ description: 'Model name (a DNS label).' })
  model!: string;

  @Allow()
  @Field({ description: 'Version label, unique per model.' })
  version!: string;

  @Allow()
  @Field({
    defaultValue: 'fake',
    description: 'Runtime kind: fake (deterministic test runtime) in this release.',
  })
  runtime!: string;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Fake runtime: time to first token in ms.' })
  ttftMs?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Fake runtime: tokens per second.' })
  tokensPerSecond?: number | null;

  @Allow()
  @Field(() => Float, {
    nullable: true,
    description:
      'Fake runtime: share of inference requests answered with an injected 500 (0-1, spread evenly and predictably) — for exercising canary analysis and rollback.',
  })
  errorRate?: number | null;
}

@ObjectType({ description: 'A node the scheduler put a replica on, and why.' })
export class PlacementChoice {
  @Field()
  node!: string;

  @Field()
  reason!: string;
}

@ObjectType({ description: 'A node the scheduler passed over, with every reason it was not eligible.' })
export class PlacementRejection {
  @Field()
  node!: string;

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType({
  description:
    "The scheduler's last decision for a deployment: eligibility (Active, not cordoned, no NoSchedule/NoExecute taint, live lease, node selector) and hardware fit of one replica on each node.",
})
export class DeploymentPlacement {
  @Field()
  decidedAt!: string;

  @Field(() => [PlacementChoice])
  chosen!: PlacementChoice[];

  @Field(() => [PlacementRejection])
  rejected!: PlacementRejection[];

  @Field(() => Int, { description: 'Replicas no eligible node was left for.' })
  unplaced!: number;
}

@ObjectType()
export class Deployment {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field()
  modelRef!: string;

  @Field({
    description:
      'Serving (passed the full deploy gate, as a rollout canary does) or Candidate (deployed to evaluate a version before approval; no alias routes to it).',
  })
  purpose!: string;

  @Field({ description: 'How the scheduler ranks nodes for its replicas: Spread or Binpack.' })
  placementStrategy!: string;

  @Field()
  state!: string;

  @Field(() => String, { nullable: true })
  stateReason!: string | null;

  @Field(() => Int)
  generation!: number;

  @Field(() => Int)
  observedGeneration!: number;

  @Field(() => Int)
  desiredReplicas!: number;

  @Field(() => Int)
  readyReplicas!: number;

  @Field(() => [Assignment])
  assignments!: Assignment[];

  @Field(() => DeploymentPlacement, {
    nullable: true,
    description:
      'Why the replicas run where they do, or why some run nowhere; null before the first placement.',
  })
  placement!: DeploymentPlacement | null;

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType()
export class CreateDeploymentInput {
  @Allow()
  @Field({ description: 'Deployment name (a DNS label), unique.' })
  name!: string;

  @Allow()
  @Field({ description: 'Model version ref, name@version.' })
  model!: string;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'Node id or name to place on; otherwise the scheduler chooses.',
  })
  node?: string | null;

  @Allow()
  @Field(() => Int, { defaultValue: 1 })
  replicas!: number;

  @Allow()
  @Field(() => String, {
    defaultValue: 'Serving',
    description:
      'Serving: to serve traffic; the version passes the same deploy gate as a rollout (license, runtime allowlist, hardware, evaluation passed, Approved, digest). Candidate: to evaluate a version before approval; the same gate without evaluation and approval (the version must be verified, not Deprecated or Retired). Asked for explicitly.',
  })
  purpose!: string;

  @Allow()
  @Field(() => String, {
    defaultValue: 'Spread',
    description:
      'How the scheduler ranks eligible nodes: Spread (least memory claimed after placing first) or Binpack (most claimed that still fits first); ties by name.',
  })
  placementStrategy!: string;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'Repeating a request with the same key returns the same deployment.',
  })
  idempotencyKey?: string | null;
}

@InputType({ description: 'What to place, for a dry run of the scheduler.' })
export class PlacementPlanInput {
  @Allow()
  @Field({ description: 'Model version ref, name@version.' })
  model!: string;

  @Allow()
  @Field(() => Int, { defaultValue: 1 })
  replicas!: number;

  @Allow()
  @Field(() => String, { defaultValue: 'Spread', description: 'Spread or Binpack.' })
  placementStrategy!: string;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Node id or name to place on.' })
  node?: string | null;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'An existing deployment: the plan adds to it (its nodes already run a replica).',
  })
  deployment?: string | null;
}

@ObjectType({
  description:
    'What the scheduler would do now, and why, for every node. A dry run: nothing is placed, written or audited.',
})
export class PlacementPlanView {
  @Field()
  strategy!: string;

  @Field(() => Int)
  replicas!: number;

  @Field(() => [PlacementChoice])
  chosen!: PlacementChoice[];

  @Field(() => [PlacementRejection])
  rejected!: PlacementRejection[];

  @Field(() => Int, { description: 'Replicas no eligible node was left for.' })
  unplaced!: number;
}

@ObjectType()
export class DeploymentOperation extends WorkflowOperation {
  @Field(() => Deployment, { nullable: true, description: 'Null until the workflow has written the record.' })
  deployment!: Deployment | null;

  @Field()
  deploymentId!: string;
}

@ObjectType({ description: 'The controller identity agents pin at enrollment.' })
export class ControllerIdentity {
  @Field({ description: 'Key id agents trust the controller key under (ed25519:…).' })
  keyId!: string;

  @Field({
    description: 'OpenSSH SHA256 fingerprint: what an agent config sets as controllerKeyFingerprint.',
  })
  sshFingerprint!: string;

  @Field({ description: 'The public key as an OpenSSH line.' })
  publicKey!: string;

  @Field({ description: 'The URL agents enroll and heartbeat at.' })
  controllerUrl!: string;
}
