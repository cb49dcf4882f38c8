import { z } from 'zod';
import {
  ByteCountSchema,
  GenerationSchema,
  IsoTimestampSchema,
  OpaqueIdSchema,
  ShortTextSchema,
} from './common';
import { ReplicaStateSchema, RuntimeProcessStateSchema } from './lifecycle';
import { GPU_UUID_PATTERN, NodeInventorySchema } from './node';
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

export const GpuTelemetrySchema = z
  .object({
    uuid: z.string().regex(GPU_UUID_PATTERN),
    /** Nulls mean "not reported by the driver", never zero. */
    utilizationPercent: z.number().min(0).max(100).nullable(),
    powerWatts: z.number().nonnegative().nullable(),
    temperatureCelsius: z.number().min(-50).max(150).nullable(),
    processes: z.array(GpuProcessSchema).max(1024),
  })
  .strict();
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
    inventory: NodeInventorySchema,
  })
  .strict();
export type Heartbeat = z.infer<typeof HeartbeatSchema>;
