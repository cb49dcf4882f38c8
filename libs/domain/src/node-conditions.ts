import {
  ErrorCode,
  LunaNexaError,
  type ConditionStatus,
  type FieldViolation,
  CONDITION_STATUSES,
  type GpuTelemetry,
  type NodeCondition,
  type NodeLifecycleState,
} from '@lunanexa/contracts';
import type { NodeKeyTrust } from './controller-key-ring';
import { HEARTBEATING_LIFECYCLES, leaseHolds } from './node-readiness';

/**
 * The node conditions heartbeats decide (DESIGN.md "Fleet truth"): from what
 * the controller last concluded and one new heartbeat observation, what it
 * concludes now. Pure; the scheduler (placement.ts) refuses a node with
 * MemoryPressure or DiskPressure True or GpuHealthy False, and healing
 * cordons a node whose GPU is unhealthy. `Ready` is not here: it is derived
 * from the lease on read (node-readiness.ts).
 *
 * Every condition has hysteresis, so a figure that flaps around a threshold
 * does not flap the condition: it enters the bad state at one threshold and
 * leaves it only at a safer one, held for several heartbeats in a row. A
 * heartbeat in between the two keeps whatever state the condition is in and
 * restarts the count. A figure the heartbeat does not carry makes the
 * condition Unknown (never a guess) and forgets the count. `lastTransitionAt`
 * moves only when the status changes; the reason and message describe the
 * latest heartbeat.
 *
 * The heartbeat interval is 5 s, so N heartbeats are about 5·N seconds.
 */

const GiB = 1024 ** 3;

/**
 * MemoryPressure enters when the node's available memory (MemAvailable; on a
 * unified-memory GB10 that is the GPU's memory too) falls below either figure:
 * below 5 % an engine's next allocation or the page cache's next fill can
 * already fail, and 4 GiB is what the OS and agent need on a large node.
 */
export const MEMORY_PRESSURE_ENTER = { fraction: 0.05, bytes: 4 * GiB } as const;
/** It leaves when available memory is at or above both figures for MEMORY_PRESSURE_CLEAR_HEARTBEATS heartbeats. */
export const MEMORY_PRESSURE_EXIT = { fraction: 0.08, bytes: 6 * GiB } as const;
export const MEMORY_PRESSURE_CLEAR_HEARTBEATS = 3;

/**
 * DiskPressure enters when the model store's volume has less free than either
 * figure (16 GiB: less than one mid-sized model's weights, so a pull would fail).
 */
export const DISK_PRESSURE_ENTER = { fraction: 0.05, bytes: 16 * GiB } as const;
export const DISK_PRESSURE_EXIT = { fraction: 0.08, bytes: 24 * GiB } as const;
export const DISK_PRESSURE_CLEAR_HEARTBEATS = 3;

/**
 * GpuHealthy turns False at once on a GPU fault (fallen off the bus, missing
 * from the GPUs the node is known to have, uncorrected ECC errors, an Xid
 * that is not the application's), and on thermal throttling only once it is
 * sustained for this many heartbeats in a row (≈ 30 s): a hot moment is no fault.
 */
export const GPU_THERMAL_THROTTLE_HEARTBEATS = 6;
/** Clean heartbeats in a row before a GPU that was unhealthy counts as healthy again (≈ 1 min). */
export const GPU_HEALTHY_CLEAR_HEARTBEATS = 12;
/**
 * Xids NVIDIA's Xid catalog attributes mostly to the application (13 graphics
 * engine exception, 31 GPU memory page fault, 43 GPU stopped processing, 45
 * preemptive cleanup): a runtime crashing is healing's crash rules' business,
 * not evidence against the GPU.
 */
export const APPLICATION_XIDS: readonly number[] = [13, 31, 43, 45];
/** A throttle reason naming thermal slowdown (nvidia-smi `hw_thermal_slowdown`, NVML `SwThermalSlowdown`, …). */
const THERMAL_THROTTLE = /thermal/i;

/**
 * ClockSynchronized turns False when the heartbeat's `sentAt` (node clock)
 * and the controller's receive time differ by more than CLOCK_SKEW_ENTER_MS in
 * CLOCK_SKEW_ENTER_HEARTBEATS heartbeats in a row (one slow delivery is not
 * skew; signed heartbeats' replay window and leases assume clocks agree), and
 * True again after CLOCK_SKEW_CLEAR_HEARTBEATS within CLOCK_SKEW_EXIT_MS.
 */
export const CLOCK_SKEW_ENTER_MS = 2000;
export const CLOCK_SKEW_ENTER_HEARTBEATS = 2;
export const CLOCK_SKEW_EXIT_MS = 1000;
export const CLOCK_SKEW_CLEAR_HEARTBEATS = 3;

/**
 * One GPU as a heartbeat reports it. Most field names follow GpuTelemetry; its ECC and Xid fields differ
 * (`eccUncorrectedErrors`, `lastXid`), so a heartbeat goes through heartbeatObservation, never as it is.
 */
export interface GpuObservation {
  readonly uuid: string;
  /** Carried for the console and load; no condition judges utilisation or temperature alone. */
  readonly utilizationPercent?: number | null;
  readonly temperatureCelsius?: number | null;
  /** Active clock-throttle reasons as the driver names them; a thermal one counts toward GPU_THERMAL_THROTTLE_HEARTBEATS. */
  readonly throttleReasons?: readonly string[] | null;
  /** Uncorrected ECC errors since the driver loaded (volatile count); above 0 the GPU needs a reset. */
  readonly eccUncorrected?: number | null;
  /** Xid codes the driver logged since the previous heartbeat. */
  readonly xidErrors?: readonly number[] | null;
  /** The GPU fell off the bus (nvidia-smi "GPU is lost", Xid 79). */
  readonly lost?: boolean | null;
  /** The GPU's own memory (discrete GPUs); MemoryPressure judges the node's memory, not an engine's preallocation. */
  readonly memoryAvailableBytes?: number | null;
  readonly memoryTotalBytes?: number | null;
}

/** What one heartbeat says about the node, and when the controller received it. Absent figures are unknown. */
export interface NodeObservation {
  /** The controller's clock when the heartbeat arrived. */
  readonly receivedAt: Date;
  /** The heartbeat's `sentAt` (the node's clock). */
  readonly sentAt?: Date | null;
  /** System memory: `/proc/meminfo` MemTotal and MemAvailable. */
  readonly memory?: { readonly availableBytes: number; readonly totalBytes: number } | null;
  /** The volume holding the model store. */
  readonly disk?: { readonly freeBytes: number; readonly totalBytes: number } | null;
  readonly gpus?: readonly GpuObservation[] | null;
  /** GPUs the node is known to have (its recorded inventory); one absent from `gpus` is missing. */
  readonly expectedGpuUuids?: readonly string[] | null;
  /** Whether the node can verify what the controller signs (controller-key-ring.ts nodeKeyTrust); absent: unknown. */
  readonly controllerKeyTrust?: Pick<NodeKeyTrust, 'trusted' | 'reason' | 'message'> | null;
}

export const HEARTBEAT_CONDITION_TYPES = [
  'MemoryPressure',
  'DiskPressure',
  'GpuHealthy',
  'ClockSynchronized',
  'ControllerKeyTrusted',
] as const;
export type HeartbeatConditionType = (typeof HEARTBEAT_CONDITION_TYPES)[number];

/** Heartbeats in a row beyond the enter threshold (`bad`) and at the safe level (`good`). */
export interface ConditionStreak {
  readonly bad: number;
  readonly good: number;
}

/** What the controller keeps per node between heartbeats (plain JSON: it can be stored as it is). */
export interface NodeConditionsState {
  /** One per HEARTBEAT_CONDITION_TYPES, in that order. */
  readonly conditions: readonly NodeCondition[];
  readonly streaks: Readonly<Record<HeartbeatConditionType, ConditionStreak>>;
}

/** What one heartbeat says about one condition. */
interface Sample {
  /** beyond the enter threshold, in the band between, at the safe level, or not reported. */
  readonly kind: 'bad' | 'between' | 'good' | 'unknown';
  readonly reason: string;
  readonly message: string;
  /** A fault that enters the bad state without waiting for a streak. */
  readonly immediate?: boolean;
}

interface Rule {
  readonly type: HeartbeatConditionType;
  readonly badStatus: ConditionStatus;
  readonly goodStatus: ConditionStatus;
  readonly goodReason: string;
  readonly enterAfter: number;
  readonly clearAfter: number;
  readonly sample: (observation: NodeObservation) => Sample;
}

const gib = (bytes: number) => `${(bytes / GiB).toFixed(1)} GiB`;
const percent = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;

function headroomSample(
  figure: { available: number; total: number } | null,
  enter: { fraction: number; bytes: number },
  exit: { fraction: number; bytes: number },
  what: string,
  reasons: { low: string; fine: string; unknown: string },
): Sample {
  if (figure === null) return { kind: 'unknown', reason: reasons.unknown, message: `${what} not reported` };
  const share = figure.total > 0 ? figure.available / figure.total : 0;
  const message = `${gib(figure.available)} (${percent(share)}) of ${gib(figure.total)} ${what} free`;
  if (share < enter.fraction || figure.available < enter.bytes) {
    return {
      kind: 'bad',
      immediate: true,
      reason: reasons.low,
      message: `${message}, below ${percent(enter.fraction)} or ${gib(enter.bytes)}`,
    };
  }
  const safe = share >= exit.fraction && figure.available >= exit.bytes;
  return { kind: safe ? 'good' : 'between', reason: reasons.fine, message };
}

function gpuSample(observation: NodeObservation): Sample {
  const gpus = observation.gpus;
  const expected = observation.expectedGpuUuids ?? [];
  if ((gpus === undefined || gpus === null || gpus.length === 0) && expected.length === 0) {
    return { kind: 'unknown', reason: 'NoGpuTelemetry', message: 'the heartbeat carries no GPU telemetry' };
  }
  const seen = new Set((gpus ?? []).map((gpu) => gpu.uuid));
  const faults: { reason: string; message: string }[] = [];
  for (const gpu of gpus ?? []) {
    if (gpu.lost === true) faults.push({ reason: 'GpuLost', message: `${gpu.uuid} fell off the bus` });
  }
  for (const uuid of expected) {
    if (!seen.has(uuid)) faults.push({ reason: 'GpuMissing', message: `${uuid} is no longer reported` });
  }
  for (const gpu of gpus ?? []) {
    if ((gpu.eccUncorrected ?? 0) > 0) {
      faults.push({
        reason: 'GpuEccUncorrected',
        message: `${gpu.uuid} has ${gpu.eccUncorrected} uncorrected ECC error(s)`,
      });
    }
  }
  for (const gpu of gpus ?? []) {
    const xids = (gpu.xidErrors ?? []).filter((xid) => !APPLICATION_XIDS.includes(xid));
    if (xids.length > 0)
      faults.push({ reason: 'GpuXidError', message: `${gpu.uuid} logged Xid ${xids.join(', ')}` });
  }
  if (faults.length > 0) {
    const [first] = faults;
    return {
      kind: 'bad',
      immediate: true,
      reason: (first as { reason: string }).reason,
      message: faults.map((fault) => fault.message).join('; '),
    };
  }
  const throttled = (gpus ?? []).filter((gpu) =>
    (gpu.throttleReasons ?? []).some((reason) => THERMAL_THROTTLE.test(reason)),
  );
  if (throttled.length > 0) {
    return {
      kind: 'bad',
      reason: 'GpuThermalThrottled',
      message: `${throttled.map((gpu) => gpu.uuid).join(', ')} thermally throttled`,
    };
  }
  return { kind: 'good', reason: 'GpusHealthy', message: `${seen.size} GPU(s) report no fault` };
}

function clockSample(observation: NodeObservation): Sample {
  const { sentAt, receivedAt } = observation;
  if (sentAt === undefined || sentAt === null) {
    return { kind: 'unknown', reason: 'SentAtNotReported', message: 'the heartbeat carries no sentAt' };
  }
  const skew = receivedAt.getTime() - sentAt.getTime();
  const message = `the node's clock is ${Math.abs(skew)} ms ${skew >= 0 ? 'behind' : 'ahead of'} the controller's`;
  if (Math.abs(skew) > CLOCK_SKEW_ENTER_MS) {
    return { kind: 'bad', reason: 'ClockSkewed', message: `${message} (limit ${CLOCK_SKEW_ENTER_MS} ms)` };
  }
  return { kind: Math.abs(skew) <= CLOCK_SKEW_EXIT_MS ? 'good' : 'between', reason: 'ClockInSync', message };
}

const RULES: readonly Rule[] = [
  {
    type: 'MemoryPressure',
    badStatus: 'True',
    goodStatus: 'False',
    goodReason: 'MemoryAvailable',
    enterAfter: 1,
    clearAfter: MEMORY_PRESSURE_CLEAR_HEARTBEATS,
    sample: ({ memory }) =>
      headroomSample(
        memory ? { available: memory.availableBytes, total: memory.totalBytes } : null,
        MEMORY_PRESSURE_ENTER,
        MEMORY_PRESSURE_EXIT,
        'memory',
        { low: 'MemoryAvailableLow', fine: 'MemoryAvailable', unknown: 'MemoryNotReported' },
      ),
  },
  {
    type: 'DiskPressure',
    badStatus: 'True',
    goodStatus: 'False',
    goodReason: 'ModelStoreDiskAvailable',
    enterAfter: 1,
    clearAfter: DISK_PRESSURE_CLEAR_HEARTBEATS,
    sample: ({ disk }) =>
      headroomSample(
        disk ? { available: disk.freeBytes, total: disk.totalBytes } : null,
        DISK_PRESSURE_ENTER,
        DISK_PRESSURE_EXIT,
        'model store disk',
        { low: 'ModelStoreDiskLow', fine: 'ModelStoreDiskAvailable', unknown: 'DiskNotReported' },
      ),
  },
  {
    type: 'GpuHealthy',
    badStatus: 'False',
    goodStatus: 'True',
    goodReason: 'GpusHealthy',
    enterAfter: GPU_THERMAL_THROTTLE_HEARTBEATS,
    clearAfter: GPU_HEALTHY_CLEAR_HEARTBEATS,
    sample: gpuSample,
  },
  {
    type: 'ClockSynchronized',
    badStatus: 'False',
    goodStatus: 'True',
    goodReason: 'ClockInSync',
    enterAfter: CLOCK_SKEW_ENTER_HEARTBEATS,
    clearAfter: CLOCK_SKEW_CLEAR_HEARTBEATS,
    sample: clockSample,
  },
  {
    type: 'ControllerKeyTrusted',
    badStatus: 'False',
    goodStatus: 'True',
    goodReason: 'TrustsCurrentKey',
    enterAfter: 1,
    clearAfter: 1,
    sample: ({ controllerKeyTrust }) => {
      if (
        controllerKeyTrust === undefined ||
        controllerKeyTrust === null ||
        controllerKeyTrust.reason === 'NotReported'
      ) {
        return {
          kind: 'unknown',
          reason: 'NotReported',
          message: 'the agent does not report its controller keys',
        };
      }
      return {
        kind: controllerKeyTrust.trusted ? 'good' : 'bad',
        immediate: true,
        reason: controllerKeyTrust.reason,
        message: controllerKeyTrust.message,
      };
    },
  },
];

function violationsOf(observation: NodeObservation): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const bytes = (path: string, value: number) => {
    if (!Number.isFinite(value) || value < 0)
      violations.push({ path, message: `must be a byte count, got ${value}` });
  };
  const time = (path: string, value: Date | null | undefined) => {
    if (value !== undefined && value !== null && Number.isNaN(value.getTime()))
      violations.push({ path, message: 'must be a valid time' });
  };
  time('receivedAt', observation.receivedAt);
  time('sentAt', observation.sentAt);
  const pair = (path: string, part: string, available: number, total: number) => {
    bytes(`${path}.${part}`, available);
    bytes(`${path}.totalBytes`, total);
    if (available > total)
      violations.push({ path: `${path}.${part}`, message: 'must not exceed totalBytes' });
  };
  if (observation.memory)
    pair('memory', 'availableBytes', observation.memory.availableBytes, observation.memory.totalBytes);
  if (observation.disk) pair('disk', 'freeBytes', observation.disk.freeBytes, observation.disk.totalBytes);
  (observation.gpus ?? []).forEach((gpu, index) => {
    const ecc = gpu.eccUncorrected;
    if (ecc !== undefined && ecc !== null && !(Number.isInteger(ecc) && ecc >= 0))
      violations.push({ path: `gpus[${index}].eccUncorrected`, message: `must be a count, got ${ecc}` });
  });
  return violations;
}

const NO_STREAK: ConditionStreak = { bad: 0, good: 0 };

/**
 * The conditions after one heartbeat. `previous` is what the last call
 * returned for the node (null before its first heartbeat). Throws
 * VALIDATION_FAILED for figures no agent can report (negative, available
 * above total, an invalid time).
 */
export function nextNodeConditions(
  previous: NodeConditionsState | null,
  observation: NodeObservation,
): NodeConditionsState {
  const violations = violationsOf(observation);
  if (violations.length > 0) {
    throw new LunaNexaError(
      ErrorCode.VALIDATION_FAILED,
      'the heartbeat observation is not possible',
      violations,
    );
  }
  const at = observation.receivedAt.toISOString();
  const conditions: NodeCondition[] = [];
  const streaks = {} as Record<HeartbeatConditionType, ConditionStreak>;
  for (const rule of RULES) {
    const before = previous?.conditions.find((condition) => condition.type === rule.type);
    const streak = previous?.streaks[rule.type] ?? NO_STREAK;
    const sample = rule.sample(observation);
    const next: ConditionStreak =
      sample.kind === 'bad'
        ? { bad: streak.bad + 1, good: 0 }
        : sample.kind === 'good'
          ? { bad: 0, good: streak.good + 1 }
          : NO_STREAK;
    streaks[rule.type] = next;
    let status: ConditionStatus;
    let reason = sample.reason;
    let message = sample.message;
    if (sample.kind === 'unknown') {
      status = 'Unknown';
    } else if (before?.status === rule.badStatus) {
      if (sample.kind === 'good' && next.good >= rule.clearAfter) {
        status = rule.goodStatus;
      } else {
        status = rule.badStatus;
        // A heartbeat that is no longer bad keeps the reason the condition entered with until it clears.
        if (sample.kind !== 'bad') {
          reason = before.reason;
          message = `${message}; clears after ${rule.clearAfter} heartbeat(s) at the safe level, ${next.good} so far`;
        }
      }
    } else if (sample.kind === 'bad' && (sample.immediate === true || next.bad >= rule.enterAfter)) {
      status = rule.badStatus;
    } else {
      status = rule.goodStatus;
      if (sample.kind === 'bad') {
        reason = rule.goodReason;
        message = `${message}, ${next.bad} of ${rule.enterAfter} heartbeat(s) in a row before it counts`;
      }
    }
    conditions.push({
      type: rule.type,
      status,
      reason,
      message: message.slice(0, 1024),
      lastTransitionAt: before !== undefined && before.status === status ? before.lastTransitionAt : at,
    });
  }
  return { conditions, streaks };
}

/** The condition of `type` in `state`, if the state has one. */
export function conditionOf(
  state: Pick<NodeConditionsState, 'conditions'> | null | undefined,
  type: NodeCondition['type'],
): NodeCondition | undefined {
  return state?.conditions.find((condition) => condition.type === type);
}

/** The parts of a heartbeat (libs/contracts Heartbeat) the conditions read. */
export interface HeartbeatFigures {
  readonly sentAt: string;
  readonly gpuTelemetry: readonly GpuTelemetry[];
  readonly inventory: {
    readonly systemMemory: { readonly availableBytes: number; readonly totalBytes: number };
  };
}

/**
 * The observation one accepted heartbeat makes, received at `receivedAt`. `expectedGpuUuids` are the GPUs of
 * the node's recorded inventory. A reported `lastXid` counts as an Xid: the agent reports the latest one the
 * kernel log still holds, so the GPU stays unhealthy until that log no longer shows it. Heartbeats carry no
 * model-store disk figure yet, so DiskPressure is Unknown.
 */
export function heartbeatObservation(
  heartbeat: HeartbeatFigures,
  receivedAt: Date,
  expectedGpuUuids: readonly string[],
  controllerKeyTrust: NodeObservation['controllerKeyTrust'] = null,
): NodeObservation {
  return {
    receivedAt,
    controllerKeyTrust,
    sentAt: new Date(heartbeat.sentAt),
    memory: {
      availableBytes: heartbeat.inventory.systemMemory.availableBytes,
      totalBytes: heartbeat.inventory.systemMemory.totalBytes,
    },
    disk: null,
    // No telemetry at all (an agent before v1.1, or nvidia-smi not answering) says nothing about the GPUs:
    // Unknown, not every inventory GPU missing, or every older agent's node would be refused.
    expectedGpuUuids: heartbeat.gpuTelemetry.length === 0 ? [] : expectedGpuUuids,
    gpus: heartbeat.gpuTelemetry.map((gpu) => ({
      uuid: gpu.uuid,
      utilizationPercent: gpu.utilizationPercent,
      temperatureCelsius: gpu.temperatureCelsius,
      throttleReasons: gpu.throttleReasons ?? null,
      eccUncorrected: gpu.eccUncorrectedErrors ?? null,
      xidErrors: gpu.lastXid === undefined || gpu.lastXid === null ? [] : [gpu.lastXid],
      lost: gpu.lost ?? false,
    })),
  };
}

/** One condition whose status a heartbeat changed (audited as `node.condition.changed`). */
export interface NodeConditionTransition {
  readonly type: NodeCondition['type'];
  /** Null before the node's first computed conditions. */
  readonly from: ConditionStatus | null;
  readonly to: ConditionStatus;
  readonly reason: string;
  readonly message: string | null;
}

/**
 * The conditions whose status differs between two states, in `next`'s order. Only status changes count: a new
 * reason or message on the same status is no transition, so a steady node writes no audit event per heartbeat.
 * Before any state (`previous` null) only conditions that start out in their bad state are listed: a node's first
 * heartbeat finding it healthy (or not reporting a figure) is no news, one finding its GPU unhealthy is.
 */
export function nodeConditionTransitions(
  previous: Pick<NodeConditionsState, 'conditions'> | null,
  next: Pick<NodeConditionsState, 'conditions'>,
): NodeConditionTransition[] {
  const transitions: NodeConditionTransition[] = [];
  for (const condition of next.conditions) {
    const before = conditionOf(previous, condition.type);
    if (before?.status === condition.status) continue;
    if (
      before === undefined &&
      RULES.find((rule) => rule.type === condition.type)?.badStatus !== condition.status
    )
      continue;
    transitions.push({
      type: condition.type,
      from: before?.status ?? null,
      to: condition.status,
      reason: condition.reason,
      message: condition.message ?? null,
    });
  }
  return transitions;
}

/**
 * Nodes per heartbeat condition and status, for the `lunanexa_node_condition{condition,status}` gauge: every
 * combination (zeros too, so an alert can rely on the series), counting enrolled nodes whose lease holds — an
 * unreachable node's conditions describe the past, and its readiness already counts it.
 */
export function countNodeConditions(
  nodes: readonly {
    readonly lifecycle: NodeLifecycleState;
    readonly leaseExpiresAt: Date | null;
    readonly conditions: readonly Pick<NodeCondition, 'type' | 'status'>[];
  }[],
  now: Date,
): { type: HeartbeatConditionType; status: ConditionStatus; nodes: number }[] {
  const counts = HEARTBEAT_CONDITION_TYPES.flatMap((type) =>
    CONDITION_STATUSES.map((status) => ({ type, status, nodes: 0 })),
  );
  for (const node of nodes) {
    if (!HEARTBEATING_LIFECYCLES.includes(node.lifecycle) || !leaseHolds(node.leaseExpiresAt, now)) continue;
    for (const condition of node.conditions) {
      const entry = counts.find(
        (count) => count.type === condition.type && count.status === condition.status,
      );
      if (entry) entry.nodes += 1;
    }
  }
  return counts;
}
