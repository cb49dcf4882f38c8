import { expect } from 'chai';
import { NodeConditionSchema, type GpuTelemetry, type NodeCondition } from '@lunanexa/contracts';
import {
  APPLICATION_XIDS,
  CLOCK_SKEW_CLEAR_HEARTBEATS,
  CLOCK_SKEW_ENTER_HEARTBEATS,
  CLOCK_SKEW_ENTER_MS,
  CLOCK_SKEW_EXIT_MS,
  DISK_PRESSURE_CLEAR_HEARTBEATS,
  DISK_PRESSURE_ENTER,
  DISK_PRESSURE_EXIT,
  GPU_HEALTHY_CLEAR_HEARTBEATS,
  GPU_THERMAL_THROTTLE_HEARTBEATS,
  MEMORY_PRESSURE_CLEAR_HEARTBEATS,
  MEMORY_PRESSURE_ENTER,
  MEMORY_PRESSURE_EXIT,
  conditionOf,
  countNodeConditions,
  heartbeatObservation,
  nextNodeConditions,
  nodeConditionTransitions,
  type GpuObservation,
  type NodeConditionsState,
  type NodeObservation,
} from '../src';

const GiB = 1024 ** 3;
const T0 = new Date('2026-12-05T12:00:00.000Z');
const GPU = 'GPU-11111111-2222-3333-4444-555555555555';
const GPU_2 = 'GPU-66666666-7777-8888-9999-000000000000';

/** Heartbeat n arrives 5·n seconds after T0 and, unless told, was sent 100 ms before. */
const at = (n: number) => new Date(T0.getTime() + n * 5000);

type Observed = Omit<NodeObservation, 'receivedAt'>;

/** Feeds heartbeats in order (the n-th arrives at `at(n)`); returns every state, each checked against the contract. */
function run(
  observations: readonly Observed[],
  start: NodeConditionsState | null = null,
): NodeConditionsState[] {
  const states: NodeConditionsState[] = [];
  let state = start;
  observations.forEach((observation, n) => {
    state = nextNodeConditions(state, {
      sentAt: new Date(at(n).getTime() - 100),
      ...observation,
      receivedAt: at(n),
    });
    for (const condition of state.conditions) NodeConditionSchema.parse(condition);
    states.push(state);
  });
  return states;
}

const repeat = <T>(count: number, value: T): T[] => Array.from({ length: count }, () => value);
const last = <T>(items: readonly T[]): T => items[items.length - 1];
const of = (state: NodeConditionsState, type: NodeCondition['type']) =>
  conditionOf(state, type) as NodeCondition;

describe('node conditions from heartbeats', () => {
  describe('MemoryPressure', () => {
    const memory = (availableGiB: number, totalGiB = 128) => ({
      memory: { availableBytes: availableGiB * GiB, totalBytes: totalGiB * GiB },
    });

    it('enters at once below 5 % of memory or below 4 GiB, with the figures; exactly 5 % is not below', () => {
      expect(MEMORY_PRESSURE_ENTER).to.deep.equal({ fraction: 0.05, bytes: 4 * GiB });
      const [low] = run([memory(6)]);
      expect(of(low, 'MemoryPressure')).to.deep.equal({
        type: 'MemoryPressure',
        status: 'True',
        reason: 'MemoryAvailableLow',
        message: '6.0 GiB (4.7 %) of 128.0 GiB memory free, below 5.0 % or 4.0 GiB',
        lastTransitionAt: at(0).toISOString(),
      });
      // A small node: 3.5 GiB is 10.9 % of 32 GiB but below the 4 GiB floor.
      expect(of(last(run([memory(3.5, 32)])), 'MemoryPressure').status).to.equal('True');
      const boundary = of(last(run([memory(5, 100)])), 'MemoryPressure');
      expect(boundary).to.include({ status: 'False', reason: 'MemoryAvailable' });
      expect(boundary.message).to.equal('5.0 GiB (5.0 %) of 100.0 GiB memory free');
    });

    it(`leaves only at 8 % and 6 GiB, held for ${MEMORY_PRESSURE_CLEAR_HEARTBEATS} heartbeats in a row`, () => {
      expect(MEMORY_PRESSURE_EXIT).to.deep.equal({ fraction: 0.08, bytes: 6 * GiB });
      const states = run([memory(4), memory(12), memory(12), memory(8), memory(12), memory(12), memory(12)]);
      const statuses = states.map((state) => of(state, 'MemoryPressure').status);
      // 8 GiB of 128 is 6.25 %: between the thresholds, so it restarts the count.
      expect(statuses).to.deep.equal(['True', 'True', 'True', 'True', 'True', 'True', 'False']);
      const holding = of(states[2], 'MemoryPressure');
      expect(holding.reason).to.equal('MemoryAvailableLow');
      expect(holding.message).to.match(/clears after 3 heartbeat\(s\) at the safe level, 2 so far$/);
      expect(of(states[3], 'MemoryPressure').message).to.match(/, 0 so far$/);
      expect(of(last(states), 'MemoryPressure')).to.include({
        reason: 'MemoryAvailable',
        lastTransitionAt: at(6).toISOString(),
      });
      expect(last(states).streaks.MemoryPressure).to.deep.equal({ bad: 0, good: 3 });
    });

    it('a figure flapping around the enter threshold does not flap the condition', () => {
      const states = run([memory(6), memory(7), memory(6), memory(7), memory(6), memory(7)]);
      expect(states.map((state) => of(state, 'MemoryPressure').status)).to.deep.equal(repeat(6, 'True'));
      expect(states.map((state) => of(state, 'MemoryPressure').lastTransitionAt)).to.deep.equal(
        repeat(6, at(0).toISOString()),
      );
      // The same band without pressure first stays False: the band never enters.
      const calm = run([memory(7), memory(9), memory(7)]);
      expect(calm.map((state) => of(state, 'MemoryPressure').status)).to.deep.equal([
        'False',
        'False',
        'False',
      ]);
    });

    it('both exit figures must hold: 8 % of a 64 GiB node is under 6 GiB', () => {
      const states = run([memory(2, 64), ...repeat(4, memory(5.2, 64))]);
      expect(of(last(states), 'MemoryPressure').status).to.equal('True');
      expect(of(last(run([memory(2, 64), ...repeat(3, memory(6, 64))])), 'MemoryPressure').status).to.equal(
        'False',
      );
    });

    it('is Unknown when the heartbeat carries no memory figure, and forgets the count', () => {
      const states = run([memory(4), memory(12), {}, memory(12)]);
      expect(of(states[2], 'MemoryPressure')).to.include({
        status: 'Unknown',
        reason: 'MemoryNotReported',
        lastTransitionAt: at(2).toISOString(),
      });
      expect(states[2]?.streaks.MemoryPressure).to.deep.equal({ bad: 0, good: 0 });
      expect(of(last(states), 'MemoryPressure').status).to.equal('False');
    });
  });

  describe('DiskPressure', () => {
    const disk = (freeGiB: number, totalGiB = 1000) => ({
      disk: { freeBytes: freeGiB * GiB, totalBytes: totalGiB * GiB },
    });

    it('enters below 5 % or 16 GiB free on the model store, leaves at 8 % and 24 GiB after 3 heartbeats', () => {
      expect(DISK_PRESSURE_ENTER).to.deep.equal({ fraction: 0.05, bytes: 16 * GiB });
      expect(DISK_PRESSURE_EXIT).to.deep.equal({ fraction: 0.08, bytes: 24 * GiB });
      expect(DISK_PRESSURE_CLEAR_HEARTBEATS).to.equal(3);
      expect(of(last(run([disk(49)])), 'DiskPressure')).to.include({
        status: 'True',
        reason: 'ModelStoreDiskLow',
      });
      expect(of(last(run([disk(15, 200)])), 'DiskPressure').status).to.equal('True');
      expect(of(last(run([disk(50)])), 'DiskPressure')).to.include({
        status: 'False',
        reason: 'ModelStoreDiskAvailable',
      });
      const states = run([disk(40), disk(70), disk(90), disk(90), disk(90)]);
      expect(states.map((state) => of(state, 'DiskPressure').status)).to.deep.equal([
        'True',
        'True',
        'True',
        'True',
        'False',
      ]);
    });

    it('is Unknown when no disk figure is reported', () => {
      expect(of(last(run([{}])), 'DiskPressure')).to.deep.equal({
        type: 'DiskPressure',
        status: 'Unknown',
        reason: 'DiskNotReported',
        message: 'model store disk not reported',
        lastTransitionAt: at(0).toISOString(),
      });
    });
  });

  describe('GpuHealthy', () => {
    const gpu = (overrides: Partial<GpuObservation> = {}): GpuObservation => ({ uuid: GPU, ...overrides });
    const gpus = (...list: GpuObservation[]) => ({ gpus: list, expectedGpuUuids: [GPU] });
    const healthy = gpus(gpu({ utilizationPercent: 40, temperatureCelsius: 61, throttleReasons: [] }));

    it('turns False at once on a lost GPU, a missing one, uncorrected ECC errors or a GPU Xid, naming each', () => {
      expect(of(last(run([healthy])), 'GpuHealthy')).to.include({ status: 'True', reason: 'GpusHealthy' });
      const cases: [Observed, string, string][] = [
        [gpus(gpu({ lost: true })), 'GpuLost', `${GPU} fell off the bus`],
        [{ gpus: [], expectedGpuUuids: [GPU] }, 'GpuMissing', `${GPU} is no longer reported`],
        [gpus(gpu({ eccUncorrected: 2 })), 'GpuEccUncorrected', `${GPU} has 2 uncorrected ECC error(s)`],
        [gpus(gpu({ xidErrors: [79, 13] })), 'GpuXidError', `${GPU} logged Xid 79`],
      ];
      for (const [observation, reason, message] of cases) {
        const states = run([healthy, observation]);
        expect(of(last(states), 'GpuHealthy'), reason).to.deep.equal({
          type: 'GpuHealthy',
          status: 'False',
          reason,
          message,
          lastTransitionAt: at(1).toISOString(),
        });
      }
      // Several faults: the first by severity names the reason, the message lists all.
      const both = of(
        last(run([{ gpus: [gpu({ xidErrors: [48] })], expectedGpuUuids: [GPU, GPU_2] }])),
        'GpuHealthy',
      );
      expect(both.reason).to.equal('GpuMissing');
      expect(both.message).to.equal(`${GPU_2} is no longer reported; ${GPU} logged Xid 48`);
    });

    it("ignores Xids that are the application's (a crashing runtime is not the GPU's fault)", () => {
      expect(APPLICATION_XIDS).to.deep.equal([13, 31, 43, 45]);
      expect(of(last(run([gpus(gpu({ xidErrors: [13, 31, 43, 45] }))])), 'GpuHealthy').status).to.equal(
        'True',
      );
    });

    it(`counts thermal throttling only once sustained for ${GPU_THERMAL_THROTTLE_HEARTBEATS} heartbeats in a row`, () => {
      const hot = gpus(
        gpu({ temperatureCelsius: 91, throttleReasons: ['sw_power_cap', 'hw_thermal_slowdown'] }),
      );
      const states = run(repeat(GPU_THERMAL_THROTTLE_HEARTBEATS, hot));
      expect(states.map((state) => of(state, 'GpuHealthy').status)).to.deep.equal([
        ...repeat(GPU_THERMAL_THROTTLE_HEARTBEATS - 1, 'True'),
        'False',
      ]);
      expect(of(states[4], 'GpuHealthy')).to.include({
        reason: 'GpusHealthy',
        message: `${GPU} thermally throttled, 5 of 6 heartbeat(s) in a row before it counts`,
      });
      expect(of(last(states), 'GpuHealthy')).to.include({
        reason: 'GpuThermalThrottled',
        lastTransitionAt: at(5).toISOString(),
      });
      // One cool heartbeat restarts the count; a power cap is no thermal throttle; NVML's names count too.
      const interrupted = run([...repeat(5, hot), healthy, ...repeat(5, hot)]);
      expect(of(last(interrupted), 'GpuHealthy').status).to.equal('True');
      const capped = gpus(gpu({ throttleReasons: ['sw_power_cap'] }));
      expect(of(last(run(repeat(8, capped))), 'GpuHealthy').status).to.equal('True');
      const nvml = gpus(gpu({ throttleReasons: ['SwThermalSlowdown'] }));
      expect(of(last(run(repeat(6, nvml))), 'GpuHealthy').status).to.equal('False');
    });

    it(`is healthy again only after ${GPU_HEALTHY_CLEAR_HEARTBEATS} clean heartbeats in a row, keeping its reason until then`, () => {
      const xid = gpus(gpu({ xidErrors: [79] }));
      const states = run([xid, ...repeat(GPU_HEALTHY_CLEAR_HEARTBEATS - 1, healthy)]);
      expect(of(last(states), 'GpuHealthy')).to.deep.include({
        status: 'False',
        reason: 'GpuXidError',
        message: '1 GPU(s) report no fault; clears after 12 heartbeat(s) at the safe level, 11 so far',
        lastTransitionAt: at(0).toISOString(),
      });
      const cleared = run([healthy], last(states));
      expect(of(last(cleared), 'GpuHealthy')).to.include({ status: 'True', reason: 'GpusHealthy' });
      // Throttling during recovery restarts the count; ECC errors that stay counted keep it False.
      const hot = gpus(gpu({ throttleReasons: ['hw_thermal_slowdown'] }));
      const restarted = run([xid, ...repeat(11, healthy), hot, ...repeat(11, healthy)]);
      expect(of(last(restarted), 'GpuHealthy').status).to.equal('False');
      const ecc = gpus(gpu({ eccUncorrected: 1 }));
      expect(of(last(run(repeat(20, ecc))), 'GpuHealthy').status).to.equal('False');
    });

    it('is Unknown without GPU telemetry, and takes GpuTelemetry records as they are', () => {
      expect(of(last(run([{}])), 'GpuHealthy')).to.include({ status: 'Unknown', reason: 'NoGpuTelemetry' });
      expect(of(last(run([{ gpus: [] }])), 'GpuHealthy').status).to.equal('Unknown');
      const telemetry: GpuTelemetry = {
        uuid: GPU,
        utilizationPercent: 0,
        powerWatts: 11.17,
        temperatureCelsius: 35,
        processes: [],
      };
      expect(of(last(run([{ gpus: [telemetry], expectedGpuUuids: [GPU] }])), 'GpuHealthy').status).to.equal(
        'True',
      );
    });
  });

  describe('ClockSynchronized', () => {
    const skewed = (ms: number, n: number) => ({ sentAt: new Date(at(n).getTime() - ms) });

    it(`turns False after ${CLOCK_SKEW_ENTER_HEARTBEATS} heartbeats skewed beyond ${CLOCK_SKEW_ENTER_MS} ms, either way; exactly the limit is within`, () => {
      const states = run([skewed(2500, 0), skewed(-2500, 1)]);
      expect(states.map((state) => of(state, 'ClockSynchronized').status)).to.deep.equal(['True', 'False']);
      expect(of(states[0], 'ClockSynchronized').message).to.equal(
        "the node's clock is 2500 ms behind the controller's (limit 2000 ms), 1 of 2 heartbeat(s) in a row before it counts",
      );
      expect(of(last(states), 'ClockSynchronized')).to.deep.equal({
        type: 'ClockSynchronized',
        status: 'False',
        reason: 'ClockSkewed',
        message: "the node's clock is 2500 ms ahead of the controller's (limit 2000 ms)",
        lastTransitionAt: at(1).toISOString(),
      });
      const limit = run([skewed(CLOCK_SKEW_ENTER_MS, 0), skewed(CLOCK_SKEW_ENTER_MS, 1)]);
      expect(of(last(limit), 'ClockSynchronized')).to.include({ status: 'True', reason: 'ClockInSync' });
    });

    it(`is synchronized again after ${CLOCK_SKEW_CLEAR_HEARTBEATS} heartbeats within ${CLOCK_SKEW_EXIT_MS} ms, not within the band`, () => {
      const states = run([
        skewed(3000, 0),
        skewed(3000, 1),
        skewed(1500, 2),
        skewed(1500, 3),
        skewed(900, 4),
        skewed(900, 5),
        skewed(1200, 6),
        skewed(900, 7),
        skewed(-900, 8),
        skewed(CLOCK_SKEW_EXIT_MS, 9),
      ]);
      expect(states.map((state) => of(state, 'ClockSynchronized').status)).to.deep.equal([
        'True',
        'False',
        'False',
        'False',
        'False',
        'False',
        'False',
        'False',
        'False',
        'True',
      ]);
      expect(of(last(states), 'ClockSynchronized').lastTransitionAt).to.equal(at(9).toISOString());
    });

    it('is Unknown when the heartbeat has no sentAt', () => {
      expect(of(last(run([{ sentAt: null }])), 'ClockSynchronized')).to.include({
        status: 'Unknown',
        reason: 'SentAtNotReported',
      });
    });
  });

  it('keeps lastTransitionAt while the status holds and reports all five conditions in order', () => {
    const steady = run(repeat(3, { memory: { availableBytes: 60 * GiB, totalBytes: 128 * GiB } }));
    expect(last(steady).conditions.map((condition) => condition.type)).to.deep.equal([
      'MemoryPressure',
      'DiskPressure',
      'GpuHealthy',
      'ClockSynchronized',
      'ControllerKeyTrusted',
    ]);
    expect(last(steady).conditions.map((condition) => condition.lastTransitionAt)).to.deep.equal(
      repeat(5, at(0).toISOString()),
    );
    // The state is plain JSON: stored and read back, it decides the same.
    const stored = JSON.parse(JSON.stringify(last(steady))) as NodeConditionsState;
    expect(run([{}], stored)).to.deep.equal(run([{}], last(steady)));
  });

  it('refuses figures no agent can report with VALIDATION_FAILED, naming each field', () => {
    const attempt = (observation: NodeObservation) => {
      try {
        nextNodeConditions(null, observation);
        return null;
      } catch (error) {
        const { code, violations } = error as { code: string; violations: { path: string }[] };
        return { code, paths: violations.map((violation) => violation.path) };
      }
    };
    expect(
      attempt({
        receivedAt: T0,
        sentAt: new Date(Number.NaN),
        memory: { availableBytes: 9 * GiB, totalBytes: 8 * GiB },
        disk: { freeBytes: -1, totalBytes: 8 * GiB },
        gpus: [{ uuid: GPU, eccUncorrected: 0.5 }],
      }),
    ).to.deep.equal({
      code: 'VALIDATION_FAILED',
      paths: ['sentAt', 'memory.availableBytes', 'disk.freeBytes', 'gpus[0].eccUncorrected'],
    });
    expect(attempt({ receivedAt: T0 })).to.equal(null);
  });
});

describe('heartbeatObservation and nodeConditionTransitions', () => {
  const received = new Date('2026-12-05T12:00:01.000Z');
  const beat = (gpu: Partial<GpuTelemetry>) => ({
    sentAt: '2026-12-05T12:00:00.900Z',
    inventory: { systemMemory: { availableBytes: 100 * GiB, totalBytes: 128 * GiB } },
    gpuTelemetry: [
      { uuid: GPU, utilizationPercent: 0, powerWatts: 10, temperatureCelsius: 40, processes: [], ...gpu },
    ],
  });

  it('reads a reported lastXid and eccUncorrectedErrors as faults, memory and sentAt as they are', () => {
    const xid = heartbeatObservation(beat({ lastXid: 79 }), received, [GPU]);
    expect(xid.gpus?.[0]).to.include({ eccUncorrected: null, lost: false });
    expect(xid.gpus?.[0]?.xidErrors).to.deep.equal([79]);
    expect(xid.memory).to.deep.equal({ availableBytes: 100 * GiB, totalBytes: 128 * GiB });
    expect(xid.sentAt?.toISOString()).to.equal('2026-12-05T12:00:00.900Z');
    expect(xid.disk).to.equal(null);
    const state = nextNodeConditions(null, xid);
    expect(conditionOf(state, 'GpuHealthy')).to.include({ status: 'False', reason: 'GpuXidError' });
    expect(conditionOf(state, 'ClockSynchronized')?.status).to.equal('True');
    const ecc = nextNodeConditions(
      null,
      heartbeatObservation(beat({ eccUncorrectedErrors: 2 }), received, [GPU]),
    );
    expect(conditionOf(ecc, 'GpuHealthy')?.reason).to.equal('GpuEccUncorrected');
    const lost = nextNodeConditions(null, heartbeatObservation(beat({ lost: true }), received, [GPU]));
    expect(conditionOf(lost, 'GpuHealthy')?.reason).to.equal('GpuLost');
    const missing = nextNodeConditions(null, heartbeatObservation(beat({}), received, [GPU, GPU_2]));
    expect(conditionOf(missing, 'GpuHealthy')?.reason).to.equal('GpuMissing');
    const silent = heartbeatObservation({ ...beat({}), gpuTelemetry: [] }, received, [GPU]);
    expect(conditionOf(nextNodeConditions(null, silent), 'GpuHealthy')).to.include({
      status: 'Unknown',
      reason: 'NoGpuTelemetry',
    });
    const clean = nextNodeConditions(null, heartbeatObservation(beat({ lastXid: null }), received, [GPU]));
    expect(conditionOf(clean, 'GpuHealthy')?.status).to.equal('True');
  });

  it('lists only status changes: the first state’s bad conditions, none for a steady one', () => {
    const first = nextNodeConditions(null, heartbeatObservation(beat({}), received, [GPU]));
    expect(nodeConditionTransitions(null, first)).to.deep.equal([]);
    const faultyFirst = nextNodeConditions(
      null,
      heartbeatObservation(beat({ lastXid: 48 }), received, [GPU]),
    );
    expect(nodeConditionTransitions(null, faultyFirst).map((t) => [t.type, t.from, t.to])).to.deep.equal([
      ['GpuHealthy', null, 'False'],
    ]);
    const later = new Date(received.getTime() + 5000);
    const steady = nextNodeConditions(
      first,
      heartbeatObservation(beat({ temperatureCelsius: 60 }), later, [GPU]),
    );
    expect(nodeConditionTransitions(first, steady)).to.deep.equal([]);
    const fault = nextNodeConditions(first, heartbeatObservation(beat({ lost: true }), later, [GPU]));
    expect(nodeConditionTransitions(first, fault)).to.deep.equal([
      {
        type: 'GpuHealthy',
        from: 'True',
        to: 'False',
        reason: 'GpuLost',
        message: `${GPU} fell off the bus`,
      },
    ]);
  });
});

describe('countNodeConditions', () => {
  const now = new Date('2026-12-05T12:00:00.000Z');
  const live = new Date(now.getTime() + 10_000);
  const gone = new Date(now.getTime() - 1);
  const gpu = (status: NodeCondition['status']) => [{ type: 'GpuHealthy' as const, status }];
  it('counts live enrolled nodes per condition and status, every combination present', () => {
    const counts = countNodeConditions(
      [
        { lifecycle: 'Active', leaseExpiresAt: live, conditions: gpu('False') },
        { lifecycle: 'Draining', leaseExpiresAt: live, conditions: gpu('False') },
        { lifecycle: 'Active', leaseExpiresAt: live, conditions: gpu('True') },
        { lifecycle: 'Active', leaseExpiresAt: gone, conditions: gpu('False') },
        { lifecycle: 'Pending', leaseExpiresAt: live, conditions: gpu('False') },
        { lifecycle: 'Active', leaseExpiresAt: null, conditions: [] },
      ],
      now,
    );
    expect(counts).to.have.length(15);
    const of = (type: string, status: string) =>
      counts.find((count) => count.type === type && count.status === status)?.nodes;
    expect(of('GpuHealthy', 'False')).to.equal(2);
    expect(of('GpuHealthy', 'True')).to.equal(1);
    expect(of('MemoryPressure', 'True')).to.equal(0);
  });
});
