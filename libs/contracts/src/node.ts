import { z } from 'zod';
import {
  ArchitectureSchema,
  ByteCountSchema,
  DigestSchema,
  GenerationSchema,
  IsoTimestampSchema,
  NameSchema,
  OpaqueIdSchema,
  ShortTextSchema,
  VersionStringSchema,
} from './common';
import { NodeLifecycleStateSchema, NodeReadinessSchema } from './lifecycle';

/**
 * Node inventory and node records. The agent produces `NodeInventory` (at
 * enrollment and inside heartbeats); the controller owns `Node`.
 *
 * Memory is the part that tools get wrong on unified-memory parts (DGX Spark /
 * GB10): NVML reports no GPU memory there, and a missing figure must never be
 * read as zero. So figures are nullable, and every GPU says where its
 * schedulable capacity comes from (`memorySource`).
 */

/** `unified`: GPU and CPU share system memory (GB10). `discrete`: dedicated VRAM/HBM (H100). */
export const GPU_MEMORY_MODELS = ['unified', 'discrete'] as const;
export const GpuMemoryModelSchema = z.enum(GPU_MEMORY_MODELS);
export type GpuMemoryModel = z.infer<typeof GpuMemoryModelSchema>;

/**
 * Where the schedulable memory figure for a GPU comes from:
 * - `nvml`: the GPU's own total/free as reported by NVML / nvidia-smi;
 * - `proc-meminfo`: the node's system memory (`MemTotal`/`MemAvailable`),
 *   because the GPU has no memory of its own (unified) and NVML says N/A;
 * - `simulated`: a simulated agent made the figures up deterministically.
 */
export const GPU_MEMORY_SOURCES = ['nvml', 'proc-meminfo', 'simulated'] as const;
export const GpuMemorySourceSchema = z.enum(GPU_MEMORY_SOURCES);
export type GpuMemorySource = z.infer<typeof GpuMemorySourceSchema>;

export const SYSTEM_MEMORY_SOURCES = ['proc-meminfo', 'simulated'] as const;
export const SystemMemorySourceSchema = z.enum(SYSTEM_MEMORY_SOURCES);
export type SystemMemorySource = z.infer<typeof SystemMemorySourceSchema>;

/** MIG state of a GPU; `null` on the GPU record means the GPU does not support MIG (GB10). */
export const MIG_MODES = ['enabled', 'disabled'] as const;
export const MigModeSchema = z.enum(MIG_MODES);
export type MigMode = z.infer<typeof MigModeSchema>;

/** NVIDIA GPU UUID as nvidia-smi prints it. Simulated agents generate the same shape. */
export const GPU_UUID_PATTERN = /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const GpuInventorySchema = z
  .object({
    /** Marketing name as the driver reports it, e.g. "NVIDIA GB10", "NVIDIA H100 80GB HBM3". */
    name: z.string().min(1).max(128),
    uuid: z
      .string()
      .regex(
        GPU_UUID_PATTERN,
        'must be a GPU UUID: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (lower-case hex)',
      ),
    /** Driver index (nvidia-smi `index`); stable per boot only, so placement pins by uuid. */
    index: z.int().nonnegative(),
    /** CUDA compute capability "major.minor": GB10 is 12.1 (sm_121), H100 is 9.0. */
    computeCapability: z.string().regex(/^\d{1,2}\.\d{1,2}$/, 'must be major.minor, e.g. 12.1'),
    memoryModel: GpuMemoryModelSchema,
    /** Bytes as reported by `memorySource`; null when not reported ([N/A] / Not Supported). Never 0-for-unknown. */
    totalMemoryBytes: ByteCountSchema.nullable(),
    freeMemoryBytes: ByteCountSchema.nullable(),
    memorySource: GpuMemorySourceSchema,
    migMode: MigModeSchema.nullable(),
    driverVersion: VersionStringSchema,
    /** CUDA version the driver supports, "major.minor" (nvidia-smi header), e.g. 13.0. */
    cudaVersion: z.string().regex(/^\d{1,2}\.\d{1,2}$/, 'must be major.minor, e.g. 13.0'),
  })
  .strict()
  .superRefine((gpu, ctx) => {
    // NVML as the source with no total is exactly the GB10 misreading this schema exists to stop.
    if (gpu.memorySource === 'nvml' && gpu.totalMemoryBytes === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['totalMemoryBytes'],
        message:
          'memorySource nvml requires totalMemoryBytes; use proc-meminfo for unified-memory GPUs without an NVML figure',
      });
    }
    // The whole point of reading /proc/meminfo is to have a figure: a unified GPU is sized by MemTotal.
    if (gpu.memorySource === 'proc-meminfo' && gpu.totalMemoryBytes === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['totalMemoryBytes'],
        message: 'memorySource proc-meminfo requires totalMemoryBytes (MemTotal of the node)',
      });
    }
    // Discrete VRAM cannot be measured through /proc/meminfo.
    if (gpu.memorySource === 'proc-meminfo' && gpu.memoryModel !== 'unified') {
      ctx.addIssue({
        code: 'custom',
        path: ['memorySource'],
        message: 'proc-meminfo is only valid for unified-memory GPUs',
      });
    }
    if (
      gpu.totalMemoryBytes !== null &&
      gpu.freeMemoryBytes !== null &&
      gpu.freeMemoryBytes > gpu.totalMemoryBytes
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['freeMemoryBytes'],
        message: 'must not exceed totalMemoryBytes',
      });
    }
  });
export type GpuInventory = z.infer<typeof GpuInventorySchema>;

export const CpuInventorySchema = z
  .object({
    /** e.g. "Cortex-X925 + Cortex-A725" or "AMD EPYC 9654". */
    model: z.string().min(1).max(256),
    /** Logical CPUs the OS schedules on. */
    cores: z.int().positive(),
  })
  .strict();
export type CpuInventory = z.infer<typeof CpuInventorySchema>;

export const SystemMemorySchema = z
  .object({
    /** `MemTotal` in bytes (the kB figure × 1024). */
    totalBytes: ByteCountSchema,
    /** `MemAvailable` in bytes: what a new runtime can actually get, page cache included. */
    availableBytes: ByteCountSchema,
    source: SystemMemorySourceSchema,
  })
  .strict()
  .refine((memory) => memory.availableBytes <= memory.totalBytes, {
    path: ['availableBytes'],
    message: 'must not exceed totalBytes',
  });
export type SystemMemory = z.infer<typeof SystemMemorySchema>;

export const OsInventorySchema = z
  .object({
    /** e.g. "DGX OS" or "Ubuntu". */
    name: z.string().min(1).max(128),
    /** e.g. "24.04". */
    version: z.string().min(1).max(64),
    /** `uname -r`. */
    kernel: z.string().min(1).max(128),
  })
  .strict();
export type OsInventory = z.infer<typeof OsInventorySchema>;

/**
 * The agent protocol this release's agent speaks; each step names what a
 * controller may send it. Agents that do not report one (releases up to
 * 0.1.0) are treated as protocol 1.
 * - 1: assignments without `trustedSigningKeys` (older agents refuse the field).
 * - 2: assignments may carry `trustedSigningKeys`; the agent reports `agentProtocol`;
 *   `heartbeat.ack` and `assignment.put` may carry the controller key ring
 *   notice (`controllerKeys`), `heartbeat.ack` the digest of the inventory the
 *   controller holds (`inventoryDigest`), and heartbeats may be MAC'd or send
 *   that digest instead of the inventory. Every envelope schema is strict, so
 *   an agent below 2 refuses a message with either member: it is never sent one.
 */
export const AGENT_PROTOCOL_VERSION = 2;
/** What a controller assumes of an agent that does not report its protocol. */
export const UNREPORTED_AGENT_PROTOCOL = 1;
/** The first agent protocol that accepts `controllerKeys` (the key ring notice) in what the controller sends. */
export const CONTROLLER_KEY_NOTICE_PROTOCOL = 2;
/** The first agent protocol that accepts `inventoryDigest` in `heartbeat.ack` (and may send only the digest). */
export const INVENTORY_DIGEST_PROTOCOL = 2;

/** What a node has, as its agent observed it at `collectedAt`. */
export const NodeInventorySchema = z
  .object({
    architecture: ArchitectureSchema,
    cpu: CpuInventorySchema,
    systemMemory: SystemMemorySchema,
    /** May be empty: a node whose driver failed still reports, so the operator sees why. */
    gpus: z.array(GpuInventorySchema).max(64),
    os: OsInventorySchema,
    agentVersion: VersionStringSchema,
    /** AGENT_PROTOCOL_VERSION of the agent. Optional: agents up to release 0.1.0 omit it (protocol 1). */
    agentProtocol: z.int().min(1).max(1000).optional(),
    collectedAt: IsoTimestampSchema,
  })
  .strict()
  .superRefine((inventory, ctx) => {
    const uuids = new Set<string>();
    const indexes = new Set<number>();
    inventory.gpus.forEach((gpu, i) => {
      if (uuids.has(gpu.uuid))
        ctx.addIssue({ code: 'custom', path: ['gpus', i, 'uuid'], message: 'duplicate GPU uuid' });
      if (indexes.has(gpu.index))
        ctx.addIssue({ code: 'custom', path: ['gpus', i, 'index'], message: 'duplicate GPU index' });
      uuids.add(gpu.uuid);
      indexes.add(gpu.index);
      // A unified GPU sized from /proc/meminfo shares the node's memory: the two figures are one.
      if (gpu.memorySource === 'proc-meminfo' && gpu.totalMemoryBytes !== inventory.systemMemory.totalBytes) {
        ctx.addIssue({
          code: 'custom',
          path: ['gpus', i, 'totalMemoryBytes'],
          message: 'a proc-meminfo GPU total must equal systemMemory.totalBytes',
        });
      }
    });
  });
export type NodeInventory = z.infer<typeof NodeInventorySchema>;

/**
 * Label keys and values follow the Kubernetes rules operators already know:
 * optional DNS-subdomain prefix + "/" + name of at most 63 characters.
 */
export const LABEL_KEY_PATTERN =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\/)?[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/;
export const LABEL_VALUE_PATTERN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)?$/;
export const LabelKeySchema = z
  .string()
  .max(253 + 1 + 63)
  .regex(
    LABEL_KEY_PATTERN,
    'must be [prefix/]name, name ≤ 63 of [A-Za-z0-9_.-] starting and ending alphanumeric',
  );
export const LabelValueSchema = z
  .string()
  .regex(LABEL_VALUE_PATTERN, 'must be empty or ≤ 63 of [A-Za-z0-9_.-] starting and ending alphanumeric');

export const MAX_NODE_LABELS = 64;
export const NodeLabelsSchema = z
  .record(LabelKeySchema, LabelValueSchema)
  .refine((labels) => Object.keys(labels).length <= MAX_NODE_LABELS, {
    message: `at most ${MAX_NODE_LABELS} labels`,
  });
export type NodeLabels = z.infer<typeof NodeLabelsSchema>;

/**
 * Taint effects, with the scheduler semantics operators know from Kubernetes:
 * NoSchedule keeps new replicas off, PreferNoSchedule is a soft preference,
 * NoExecute also evicts running replicas that do not tolerate it.
 */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export const TaintEffectSchema = z.enum(TAINT_EFFECTS);
export type TaintEffect = z.infer<typeof TaintEffectSchema>;

export const TaintSchema = z
  .object({
    key: LabelKeySchema,
    value: LabelValueSchema,
    effect: TaintEffectSchema,
  })
  .strict();
export type Taint = z.infer<typeof TaintSchema>;

/**
 * Condition types the controller reports on a node. `Ready` is the
 * lease-derived readiness: status True = Ready, False = NotReady, Unknown =
 * Unreachable (see `NODE_READINESS`). The others are detail an agent reports
 * in heartbeats and the scheduler may filter on.
 */
export const NODE_CONDITION_TYPES = [
  'Ready',
  'MemoryPressure',
  'DiskPressure',
  'GpuHealthy',
  'ClockSynchronized',
  'ControllerKeyTrusted',
] as const;
export const NodeConditionTypeSchema = z.enum(NODE_CONDITION_TYPES);
export type NodeConditionType = z.infer<typeof NodeConditionTypeSchema>;

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export const ConditionStatusSchema = z.enum(CONDITION_STATUSES);
export type ConditionStatus = z.infer<typeof ConditionStatusSchema>;

export const NodeConditionSchema = z
  .object({
    type: NodeConditionTypeSchema,
    status: ConditionStatusSchema,
    /** Machine-readable CamelCase reason, e.g. LeaseExpired, HeartbeatReceived. */
    reason: z.string().regex(/^[A-Z][A-Za-z0-9]{0,127}$/, 'must be a CamelCase reason'),
    message: ShortTextSchema.optional(),
    lastTransitionAt: IsoTimestampSchema,
  })
  .strict();
export type NodeCondition = z.infer<typeof NodeConditionSchema>;

/** The controller's lease on a node: renewed by each accepted heartbeat. */
export const NodeLeaseSchema = z
  .object({
    renewedAt: IsoTimestampSchema,
    expiresAt: IsoTimestampSchema,
    /** Sequence number of the heartbeat that last renewed the lease. */
    lastHeartbeatSequence: z.int().nonnegative(),
  })
  .strict();
export type NodeLease = z.infer<typeof NodeLeaseSchema>;

/** A node as the controller records and the API/console show it. */
export const NodeSchema = z
  .object({
    id: OpaqueIdSchema,
    /** Operator-facing name (usually the hostname), unique in the fleet. */
    name: NameSchema,
    lifecycle: NodeLifecycleStateSchema,
    /** Cordoned nodes keep running what they have but receive no new placements. */
    cordoned: z.boolean(),
    readiness: NodeReadinessSchema,
    conditions: z.array(NodeConditionSchema).max(32),
    labels: NodeLabelsSchema,
    taints: z.array(TaintSchema).max(32),
    /** Last inventory the agent reported (enrollment always carries one). */
    inventory: NodeInventorySchema,
    /** Fingerprint of the node's Ed25519 public key that signs heartbeats. */
    publicKeyDigest: DigestSchema,
    /** Generation of the node's desired state (assignments); bumps on every change. */
    generation: GenerationSchema,
    /** Null until the first heartbeat after approval. */
    lease: NodeLeaseSchema.nullable(),
    enrolledAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
  })
  .strict();
export type Node = z.infer<typeof NodeSchema>;
