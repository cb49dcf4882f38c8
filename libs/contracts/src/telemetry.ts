import { z } from 'zod';
import {
  ByteCountSchema,
  DigestSchema,
  GenerationSchema,
  IsoTimestampSchema,
  OpaqueIdSchema,
  ShortTextSchema,
} from './common';
import { ReplicaStateSchema, RuntimeProcessStateSchema } from './lifecycle';
import { GPU_UUID_PATTERN, GpuMemorySourceSchema, NodeInventorySchema, type NodeInventory } from './node';
import { RuntimeLoadSchema } from './runtime-load';

/**
 * The agent's heartbeat: lease renewal plus everything the controller needs to
 * compare desired with observed state. The agent-protocol envelope signs it
 * with the node key; `sequence`, `sentAt` and `nonce` are inside the signed
 * body so a captured heartbeat cannot be replayed or reordered.
 */

export const ObservedAssignmentSchema = z
  .object({
    assignmentId: OpaqueIdSchema,
    deploymentId: OpaqueIdSchema,
    /** Generation of the assignment the agent is acting on (fencing: never older than one it accepted). */
    generation: GenerationSchema,
    state: ReplicaStateSchema,
    /** Host port the runtime answers on once started; null before. */
    endpointPort: z.int().min(1).max(65535).nullable(),
    restarts: z.int().nonnegative(),
    /** Last problem in operator words (never a payload); null if none. */
    message: ShortTextSchema.nullable(),
    /**
     * Requests the runtime is serving right now, as it reports them (the fake
     * runtime's and vLLM's own gauges); null when it does not say. DrainNode
     * waits for this to reach zero. Optional: agents before v1.1 omit it.
     */
    inFlightRequests: z.int().nonnegative().nullable().optional(),
    /** Queue and cache pressure from the runtime's /metrics page; null when unread. Optional: older agents omit it. */
    load: RuntimeLoadSchema.nullable().optional(),
  })
  .strict();
export type ObservedAssignment = z.infer<typeof ObservedAssignmentSchema>;

export const RuntimeObservationSchema = z
  .object({
    /** Null for an orphan: a runtime the agent found running with no accepted assignment. */
    assignmentId: OpaqueIdSchema.nullable(),
    runtimeId: OpaqueIdSchema,
    pid: z.int().positive().nullable(),
    state: RuntimeProcessStateSchema,
    startedAt: IsoTimestampSchema.nullable(),
    /** Set once state is Exited; a signal death is 128 + signal number. */
    exitCode: z.int().min(0).max(255).nullable(),
  })
  .strict();
export type RuntimeObservation = z.infer<typeof RuntimeObservationSchema>;

export const GpuProcessSchema = z
  .object({
    pid: z.int().positive(),
    /** Per-process use still works on GB10 where device totals read [N/A]. */
    usedMemoryBytes: ByteCountSchema,
  })
  .strict();

/**
 * The clocks-throttle (NVML "clocks event") reasons nvidia-smi reports as a bit
 * mask, by their NVML names. `Unknown` stands for any bit newer drivers add, so
 * the list stays bounded (it becomes a metric label) and nothing is dropped.
 */
export const GPU_THROTTLE_REASONS = [
  'GpuIdle',
  'ApplicationsClocksSetting',
  'SwPowerCap',
  'HwSlowdown',
  'SyncBoost',
  'SwThermalSlowdown',
  'HwThermalSlowdown',
  'HwPowerBrakeSlowdown',
  'DisplayClockSetting',
  'Unknown',
] as const;
export const GpuThrottleReasonSchema = z.enum(GPU_THROTTLE_REASONS);
export type GpuThrottleReason = z.infer<typeof GpuThrottleReasonSchema>;

/**
 * One GPU's figures from one heartbeat. Nulls mean "not reported by the
 * driver", never zero. Everything after `processes` arrived with agent v1.1
 * and is optional, so heartbeats of older agents still validate; absent and
 * null read the same.
 */
export const GpuTelemetrySchema = z
  .object({
    uuid: z.string().regex(GPU_UUID_PATTERN),
    utilizationPercent: z.number().min(0).max(100).nullable(),
    /** Power draw. */
    powerWatts: z.number().nonnegative().nullable(),
    temperatureCelsius: z.number().min(-50).max(150).nullable(),
    processes: z.array(GpuProcessSchema).max(1024),
    /** nvidia-smi's index, as in the inventory; metrics label GPUs by it. */
    index: z.int().min(0).max(63).optional(),
    /** When the agent read these figures (a heartbeat may carry the last good sample when a read timed out). */
    sampledAt: IsoTimestampSchema.optional(),
    memoryUsedBytes: ByteCountSchema.nullable().optional(),
    memoryTotalBytes: ByteCountSchema.nullable().optional(),
    /** Where the memory figures come from: NVML, `/proc/meminfo` (unified GB10, where NVML says [N/A]), or simulated. */
    memorySource: GpuMemorySourceSchema.nullable().optional(),
    powerLimitWatts: z.number().nonnegative().nullable().optional(),
    /** Active reasons; [] means none active, null means the driver did not say. */
    throttleReasons: z.array(GpuThrottleReasonSchema).max(GPU_THROTTLE_REASONS.length).nullable().optional(),
    /** Uncorrected ECC errors since the driver loaded (volatile); null where ECC is off or unsupported. */
    eccUncorrectedErrors: z.int().nonnegative().nullable().optional(),
    /** The most recent Xid the kernel logged for this GPU; null when none was seen or the log is not readable. */
    lastXid: z.int().min(1).max(9999).nullable().optional(),
    /** The driver's last error for this GPU in its own words (the Xid text, "GPU is lost"); never a payload. */
    lastError: ShortTextSchema.nullable().optional(),
    /** The GPU fell off the bus: nvidia-smi has no handle for it, so every figure is null. */
    lost: z.boolean().optional(),
  })
  .strict()
  .superRefine((gpu, ctx) => {
    const { memoryUsedBytes: used, memoryTotalBytes: total } = gpu;
    if (used !== null && used !== undefined && total !== null && total !== undefined && used > total) {
      ctx.addIssue({
        code: 'custom',
        path: ['memoryUsedBytes'],
        message: 'must not exceed memoryTotalBytes',
      });
    }
    if ((used ?? total ?? null) !== null && (gpu.memorySource ?? null) === null) {
      ctx.addIssue({ code: 'custom', path: ['memorySource'], message: 'a memory figure needs its source' });
    }
  });
export type GpuTelemetry = z.infer<typeof GpuTelemetrySchema>;

export const HeartbeatSchema = z
  .object({
    nodeId: OpaqueIdSchema,
    /** Strictly increasing per node across agent restarts (persisted); the controller drops anything not newer. */
    sequence: z.int().nonnegative(),
    sentAt: IsoTimestampSchema,
    /** 16–64 random bytes, base64url without padding; remembered by the controller for the replay window. */
    nonce: z
      .string()
      .regex(/^[A-Za-z0-9_-]{22,86}$/, 'must be 16-64 random bytes, base64url without padding'),
    observedAssignments: z.array(ObservedAssignmentSchema).max(1024),
    runtimes: z.array(RuntimeObservationSchema).max(1024),
    gpuTelemetry: z.array(GpuTelemetrySchema).max(64),
    /**
     * The node's inventory, or instead `inventoryDigest` when the last ack said the controller holds
     * exactly this inventory (`heartbeat.ack` `inventoryDigest`): the inventory changes at its refresh
     * interval, not every heartbeat, and is most of a heartbeat's size. Exactly one of the two.
     */
    inventory: NodeInventorySchema.optional(),
    /** sha256 of the canonical JSON of the inventory the agent would send (inventoryDigest in agent-protocol). */
    inventoryDigest: DigestSchema.optional(),
  })
  .strict()
  .superRefine((heartbeat, ctx) => {
    if ((heartbeat.inventory === undefined) === (heartbeat.inventoryDigest === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['inventory'],
        message: 'carries either the inventory or its inventoryDigest, exactly one',
      });
    }
  });
export type Heartbeat = z.infer<typeof HeartbeatSchema>;
/** A heartbeat with its inventory: as sent, or as the controller holds it for the digest the heartbeat named. */
export type HeartbeatWithInventory = Heartbeat & { readonly inventory: NodeInventory };
