import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { WorkflowOperation } from '../common/workflow-operation.types';
import { Assignment } from '../deployments';

/**
 * GraphQL shapes of the node lifecycle. State fields are strings holding the
 * names in libs/contracts lifecycle.ts (the one vocabulary); inputs are
 * validated in the services against the contracts' zod schemas, so the API
 * and the agent refuse the same things (`@Allow` only lets the fields past the
 * global whitelist pipe).
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
  description:
    "One GPU's figures from the node's latest heartbeat. Null means the driver did not report it, never zero.",
})
export class GpuTelemetry {
  @Field()
  uuid!: string;

  @Field(() => Int, { nullable: true, description: 'Null from agents before v1.1 (the inventory has it).' })
  index!: number | null;

  @Field(() => Date, { nullable: true, description: 'When the agent read these figures.' })
  sampledAt!: Date | null;

  @Field(() => Float, { nullable: true })
  utilizationPercent!: number | null;

  @Field(() => Float, { nullable: true })
  memoryUsedBytes!: number | null;

  @Field(() => Float, { nullable: true })
  memoryTotalBytes!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'nvml, proc-meminfo (unified GB10, where NVML says [N/A]) or simulated; null without figures.',
  })
  memorySource!: string | null;

  @Field(() => Float, { nullable: true })
  temperatureCelsius!: number | null;

  @Field(() => Float, { nullable: true, description: 'Power draw.' })
  powerWatts!: number | null;

  @Field(() => Float, { nullable: true })
  powerLimitWatts!: number | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Active clocks-throttle reasons (NVML names, e.g. SwPowerCap, HwThermalSlowdown); [] none.',
  })
  throttleReasons!: string[] | null;

  @Field(() => Int, { nullable: true, description: 'Uncorrected ECC errors since the driver loaded.' })
  eccUncorrectedErrors!: number | null;

  @Field(() => Int, { nullable: true, description: 'The last Xid the kernel logged for this GPU.' })
  lastXid!: number | null;

  @Field(() => String, { nullable: true, description: "The driver's last error for this GPU, in its words." })
  lastError!: string | null;

  @Field({ description: 'The GPU fell off the bus: nvidia-smi cannot reach it.' })
  lost!: boolean;

  @Field(() => Float, {
    description: 'Memory the GPU processes use, summed (per-process figures stay on the node).',
  })
  processMemoryBytes!: number;

  @Field(() => Int)
  processCount!: number;
}

@ObjectType({ description: "One GPU's figures in one stored sample. Null means not reported, never zero." })
export class GpuSeriesPoint {
  @Field()
  at!: Date;

  @Field(() => Float, { nullable: true })
  utilizationPercent!: number | null;

  @Field(() => Float, { nullable: true })
  memoryUsedBytes!: number | null;

  @Field(() => Float, { nullable: true })
  memoryTotalBytes!: number | null;

  @Field(() => Float, { nullable: true })
  temperatureCelsius!: number | null;

  @Field(() => Float, { nullable: true, description: 'Power draw.' })
  powerWatts!: number | null;
}

@ObjectType({
  description:
    "One GPU's recent history: samples the controller kept from heartbeats, at most one per node every 15 s, " +
    'kept 24 h. A GPU absent from a sample (a missed heartbeat, a lost GPU) has no point there: a gap, not a zero.',
})
export class GpuSeries {
  @Field()
  uuid!: string;

  @Field(() => Int, { nullable: true })
  index!: number | null;

  @Field(() => [GpuSeriesPoint], { description: 'Oldest first.' })
  points!: GpuSeriesPoint[];
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

@ObjectType({
  description: "An operator action on a node and whether the node's lifecycle state allows it now.",
})
export class NodeActionAvailability {
  @Field({
    description: 'approve, reject, cordon, uncordon, drain, rotateCredential, setLabels or setTaints.',
  })
  action!: string;

  @Field()
  allowed!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'Why the state refuses the action; null when allowed.',
  })
  reason!: string | null;
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

  @Field(() => [NodeCondition], {
    description:
      'Ready (from the lease, on every read), then MemoryPressure, DiskPressure, GpuHealthy and ClockSynchronized as ' +
      'the last accepted heartbeat left them (absent before the first); the scheduler refuses a node with ' +
      'MemoryPressure or DiskPressure True or GpuHealthy False.',
  })
  conditions!: NodeCondition[];

  @Field({ description: 'Cordoned nodes keep their replicas but receive no new placements.' })
  cordoned!: boolean;

  @Field(() => [NodeActionAvailability], {
    description:
      "Every operator action with whether the node's state allows it (the caller's role is not considered).",
  })
  actions!: NodeActionAvailability[];

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

  @Field(() => [GpuTelemetry], {
    description:
      'GPU figures from the latest heartbeat ([] before the first, or from an agent that sends none).',
  })
  gpuTelemetry!: GpuTelemetry[];

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
