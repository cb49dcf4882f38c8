import './support/contract-modules';

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
} from '@lunanexa/domain';
import { expect } from 'chai';

import {
  CONDITION_THRESHOLDS,
  GPU_HOT_CELSIUS,
  conditionBadges,
  conditionDescription,
  conditionTone,
  formatCelsius,
  formatEcc,
  formatXid,
  formatGpuMemory,
  formatPercent,
  formatPower,
  formatProcesses,
  gpuCharts,
  gpuFigures,
  gpuTrouble,
  memoryNoteText,
  sortedTelemetry,
} from '../src/app/pages/nodes/gpu-rules';
import type { GpuSeries, GpuTelemetry, NodeCondition } from '../src/app/pages/nodes/nodes.queries';

const GIB = 1024 ** 3;

const telemetry = (overrides: Partial<GpuTelemetry> = {}): GpuTelemetry => ({
  uuid: 'GPU-aaaaaaaa-0000-0000-0000-000000000000',
  index: 0,
  sampledAt: '2026-12-06T12:00:00.000Z',
  utilizationPercent: 96.4,
  memoryUsedBytes: 28 * GIB,
  memoryTotalBytes: 119.7 * GIB,
  memorySource: 'proc-meminfo',
  temperatureCelsius: 62,
  powerWatts: 78.42,
  powerLimitWatts: null,
  throttleReasons: [],
  eccUncorrectedErrors: null,
  lastXid: null,
  lastError: null,
  lost: false,
  processMemoryBytes: 0,
  processCount: 0,
  ...overrides,
});

const condition = (
  type: string,
  status: string,
  reason = 'Reason',
  message: string | null = null,
): NodeCondition => ({
  type,
  status,
  reason,
  message,
  lastTransitionAt: '2026-12-06T12:00:05.000Z',
});

const thresholdText = (type: string): string => CONDITION_THRESHOLDS.find((t) => t.type === type)?.text ?? '';

describe('console GPU figures and node conditions', () => {
  describe('figures', () => {
    it('formats utilisation, temperature and power, with — for what the driver did not report (never 0)', () => {
      expect(formatPercent(96.4)).to.equal('96 %');
      expect(formatPercent(0)).to.equal('0 %');
      expect(formatPercent(null)).to.equal('—');
      expect(formatCelsius(61.6)).to.equal('62 °C');
      expect(formatCelsius(null)).to.equal('—');
      expect(formatPower(78.42, null)).to.equal('78.4 W');
      expect(formatPower(250, 300)).to.equal('250 / 300 W');
      expect(formatPower(60, 300)).to.equal('60 / 300 W');
      expect(formatPower(null, 300)).to.equal('—');
    });

    it('shows memory used / total and says when it is unified memory read from /proc/meminfo', () => {
      expect(formatGpuMemory({ memoryUsedBytes: 28 * GIB, memoryTotalBytes: 120 * GIB })).to.equal(
        '28.0 GiB / 120.0 GiB',
      );
      expect(formatGpuMemory({ memoryUsedBytes: null, memoryTotalBytes: null })).to.equal('—');
      expect(memoryNoteText('proc-meminfo')).to.equal(' (unified, from /proc/meminfo)');
      expect(memoryNoteText('nvml')).to.equal('');
      expect(memoryNoteText('simulated')).to.equal(' (simulated)');
      expect(gpuFigures(telemetry())).to.deep.include({
        label: 'GPU 0',
        utilization: '96 %',
        memoryNote: 'unified, from /proc/meminfo',
        temperature: '62 °C',
        power: '78.4 W',
        hot: false,
        trouble: '',
      });
    });

    it('flags a hot GPU from GPU_HOT_CELSIUS on', () => {
      expect(gpuFigures(telemetry({ temperatureCelsius: GPU_HOT_CELSIUS - 1 })).hot).to.equal(false);
      expect(gpuFigures(telemetry({ temperatureCelsius: GPU_HOT_CELSIUS })).hot).to.equal(true);
      expect(gpuFigures(telemetry({ temperatureCelsius: null })).hot).to.equal(false);
    });

    it('names trouble: lost, an Xid, ECC errors and slowdowns, but not routine throttling (idle, power cap)', () => {
      expect(gpuTrouble(telemetry({ throttleReasons: ['GpuIdle', 'SwPowerCap'] }))).to.equal('');
      expect(gpuTrouble(telemetry({ eccUncorrectedErrors: 0 }))).to.equal('');
      expect(
        gpuTrouble(
          telemetry({
            lost: true,
            lastXid: 79,
            eccUncorrectedErrors: 2,
            throttleReasons: ['SwPowerCap', 'HwThermalSlowdown'],
          }),
        ),
      ).to.equal('lost (fell off the bus); Xid 79; 2 uncorrected ECC; slowed: HwThermalSlowdown');
    });

    it('words the Xid and ECC figures, telling "none" from "not reported"', () => {
      expect(formatXid(79)).to.equal('Xid 79');
      expect(formatXid(null)).to.equal('no Xid seen');
      expect(formatEcc(0)).to.equal('ECC: 0 uncorrected');
      expect(formatEcc(2)).to.equal('ECC: 2 uncorrected');
      expect(formatEcc(null)).to.equal('ECC: not reported');
    });

    it('counts processes and their memory', () => {
      expect(formatProcesses({ processCount: 0, processMemoryBytes: 0 })).to.equal('no processes');
      expect(formatProcesses({ processCount: 1, processMemoryBytes: 2 * GIB })).to.equal(
        '1 process using 2.0 GiB',
      );
      expect(formatProcesses({ processCount: 3, processMemoryBytes: 18.7 * GIB })).to.equal(
        '3 processes using 18.7 GiB',
      );
    });

    it('orders GPUs by index, those without one (old agents) last', () => {
      const order = sortedTelemetry([
        telemetry({ uuid: 'GPU-c', index: null }),
        telemetry({ uuid: 'GPU-b', index: 1 }),
        telemetry({ uuid: 'GPU-a', index: 0 }),
      ]).map((gpu) => gpu.uuid);
      expect(order).to.deep.equal(['GPU-a', 'GPU-b', 'GPU-c']);
    });
  });

  describe('conditions', () => {
    it('reads pressure conditions as bad when True and the others as bad when False; Unknown is a warning', () => {
      expect(conditionTone({ type: 'GpuHealthy', status: 'False' })).to.equal('error');
      expect(conditionTone({ type: 'GpuHealthy', status: 'True' })).to.equal('ok');
      expect(conditionTone({ type: 'MemoryPressure', status: 'True' })).to.equal('error');
      expect(conditionTone({ type: 'MemoryPressure', status: 'False' })).to.equal('ok');
      expect(conditionTone({ type: 'DiskPressure', status: 'Unknown' })).to.equal('warn');
      expect(conditionTone({ type: 'ClockSynchronized', status: 'False' })).to.equal('error');
      expect(conditionTone({ type: 'SomethingNew', status: 'True' })).to.equal('neutral');
    });

    it('badges the conditions in trouble, worst first, folds the good ones into one, and leaves Ready to its column', () => {
      const badges = conditionBadges([
        condition('Ready', 'True'),
        condition('MemoryPressure', 'True', 'MemoryLow', '3 % available'),
        condition('DiskPressure', 'Unknown', 'DiskNotReported'),
        condition('GpuHealthy', 'False', 'GpuLost', 'GPU 0 fell off the bus'),
        condition('ClockSynchronized', 'True', 'ClockInSync'),
      ]);
      expect(badges.problems.map((b) => [b.text, b.tone])).to.deep.equal([
        ['GpuHealthy False', 'error'],
        ['MemoryPressure True', 'error'],
        ['DiskPressure Unknown', 'warn'],
      ]);
      expect(badges.healthy).to.deep.include({ text: '1 OK', tone: 'ok' });
      expect(badges.healthy?.description).to.include('ClockSynchronized True: ClockInSync');
      const fine = conditionBadges([condition('GpuHealthy', 'True'), condition('MemoryPressure', 'False')]);
      expect(fine.problems).to.deep.equal([]);
      expect(fine.healthy?.text).to.equal('All OK');
      expect(conditionBadges([]).healthy).to.equal(null);
    });

    it('describes a condition with its reason, message and last transition (the hover and focus text)', () => {
      expect(
        conditionDescription(condition('GpuHealthy', 'False', 'GpuLost', 'GPU 0 fell off the bus')),
      ).to.equal('GpuHealthy False: GpuLost — GPU 0 fell off the bus (since 2026-12-06 12:00:05 UTC)');
      expect(conditionDescription(condition('GpuHealthy', 'True', 'GpusHealthy'))).to.equal(
        'GpuHealthy True: GpusHealthy (since 2026-12-06 12:00:05 UTC)',
      );
    });

    it('states the thresholds libs/domain decides conditions by', () => {
      const percent = (fraction: number) => `${Math.round(fraction * 100)} %`;
      const gib = (bytes: number) => `${bytes / GIB} GiB`;
      const memory = thresholdText('MemoryPressure');
      for (const figure of [
        percent(MEMORY_PRESSURE_ENTER.fraction),
        gib(MEMORY_PRESSURE_ENTER.bytes),
        percent(MEMORY_PRESSURE_EXIT.fraction),
        gib(MEMORY_PRESSURE_EXIT.bytes),
        `${MEMORY_PRESSURE_CLEAR_HEARTBEATS} heartbeats`,
      ])
        expect(memory).to.include(figure);
      const disk = thresholdText('DiskPressure');
      for (const figure of [
        percent(DISK_PRESSURE_ENTER.fraction),
        gib(DISK_PRESSURE_ENTER.bytes),
        percent(DISK_PRESSURE_EXIT.fraction),
        gib(DISK_PRESSURE_EXIT.bytes),
        `${DISK_PRESSURE_CLEAR_HEARTBEATS} heartbeats`,
      ])
        expect(disk).to.include(figure);
      const gpu = thresholdText('GpuHealthy');
      expect(gpu).to.include(`${GPU_THERMAL_THROTTLE_HEARTBEATS} heartbeats`);
      expect(gpu).to.include(`${GPU_HEALTHY_CLEAR_HEARTBEATS} clean heartbeats`);
      expect(gpu).to.include(`Xids ${APPLICATION_XIDS.join(', ')}`);
      const clock = thresholdText('ClockSynchronized');
      expect(clock).to.include(
        `${CLOCK_SKEW_ENTER_MS / 1000} s in ${CLOCK_SKEW_ENTER_HEARTBEATS} heartbeats`,
      );
      expect(clock).to.include(
        `${CLOCK_SKEW_CLEAR_HEARTBEATS} heartbeats within ${CLOCK_SKEW_EXIT_MS / 1000} s`,
      );
    });
  });

  describe('history charts', () => {
    const series: GpuSeries = {
      uuid: 'GPU-a',
      index: 0,
      points: [
        {
          at: '2026-12-06T12:00:30.000Z',
          utilizationPercent: 50,
          memoryUsedBytes: 2 * GIB,
          memoryTotalBytes: 8 * GIB,
          temperatureCelsius: 70,
          powerWatts: 200,
        },
        {
          at: '2026-12-06T12:00:00.000Z',
          utilizationPercent: 10,
          memoryUsedBytes: null,
          memoryTotalBytes: null,
          temperatureCelsius: 60,
          powerWatts: null,
        },
      ],
    };

    it('draws utilisation with memory (GiB) and temperature with power, oldest first, nulls as gaps', () => {
      const [chart] = gpuCharts([series]);
      expect(chart?.label).to.equal('GPU 0');
      expect(chart?.x).to.deep.equal([
        Date.parse('2026-12-06T12:00:00Z'),
        Date.parse('2026-12-06T12:00:30Z'),
      ]);
      expect(chart?.load.map((s) => [s.label, s.unit, s.values])).to.deep.equal([
        ['Utilisation', '%', [10, 50]],
        ['Memory used', 'GiB', [null, 2]],
      ]);
      expect(chart?.heat.map((s) => [s.label, s.unit, s.values])).to.deep.equal([
        ['Temperature', '°C', [60, 70]],
        ['Power', 'W', [null, 200]],
      ]);
    });

    it('spans the whole window with empty ends, so one sample still reads as the last hour', () => {
      const fromMs = Date.parse('2026-12-06T11:01:00Z');
      const toMs = Date.parse('2026-12-06T12:01:00Z');
      const [chart] = gpuCharts([series], { fromMs, toMs });
      expect(chart?.x).to.deep.equal([
        fromMs,
        Date.parse('2026-12-06T12:00:00Z'),
        Date.parse('2026-12-06T12:00:30Z'),
        toMs,
      ]);
      expect(chart?.load[0]?.values).to.deep.equal([null, 10, 50, null]);
    });
  });
});
