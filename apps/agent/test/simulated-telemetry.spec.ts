import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GpuTelemetry } from '@lunanexa/contracts';
import { expect } from 'chai';
import { simulatedInventory, type SimulatedProfile } from '../src/inventory/simulated';
import { GpuTelemetryCollector, type TelemetryReport } from '../src/telemetry/collect';
import { TelemetrySampler } from '../src/telemetry/sampler';
import {
  SIMULATED_GPU_FAULTS_FILE,
  SimulatedFaultsError,
  simulatedTelemetryProbe,
  type SimulatedLoad,
} from '../src/telemetry/simulated';
import { capturingLogger } from './ssh-support';

const GIB = 1024 ** 3;
const now = () => new Date('2025-11-20T09:14:04.500Z');

describe('simulated GPU telemetry (nvidia-smi stand-in)', () => {
  let dataDir: string;
  let load: SimulatedLoad;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lunanexa-simgpu-'));
    load = { readyRuntimes: 0, inFlightRequests: 0, pids: [] };
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  function collector(profile: SimulatedProfile) {
    const { inventory } = simulatedInventory(profile, 'spark-1', { agentVersion: '0.2.0', now });
    const probe = simulatedTelemetryProbe({ inventory: () => inventory, dataDir, load: () => load });
    return {
      inventory,
      collect: () =>
        new GpuTelemetryCollector({ probe, inventory: () => inventory, now, simulated: true }).collect(),
    };
  }

  it('shows an idle DGX Spark as idle, its unified memory from the stand-in /proc/meminfo, labelled simulated', async () => {
    const spark = collector('dgx-spark');
    const { telemetry, problems } = await spark.collect();
    expect(problems).to.deep.equal([]);
    expect(telemetry).to.have.length(1);
    const [gpu] = telemetry;
    expect(gpu).to.deep.include({
      uuid: spark.inventory.gpus[0]?.uuid,
      utilizationPercent: 0,
      memoryTotalBytes: spark.inventory.systemMemory.totalBytes,
      memorySource: 'simulated',
      powerWatts: 11.17,
      powerLimitWatts: null,
      temperatureCelsius: 35,
      eccUncorrectedErrors: null,
      lost: false,
      processes: [],
    });
    expect(gpu?.throttleReasons).to.deep.equal(['GpuIdle']);
    expect(gpu?.memoryUsedBytes).to.be.within(5 * GIB, 7 * GIB);
  });

  it("follows the node's load: Ready runtimes hold memory, in-flight requests raise utilisation, power and heat", async () => {
    const spark = collector('dgx-spark');
    const [idle] = (await spark.collect()).telemetry;
    load = { readyRuntimes: 2, inFlightRequests: 3, pids: [4101, 4102] };
    const [busy] = (await spark.collect()).telemetry;
    expect(busy?.utilizationPercent).to.equal(50);
    expect((busy?.memoryUsedBytes ?? 0) - (idle?.memoryUsedBytes ?? 0)).to.be.within(39.9 * GIB, 40.1 * GIB);
    expect(busy?.powerWatts).to.be.greaterThan(idle?.powerWatts ?? Infinity);
    expect(busy?.temperatureCelsius).to.be.greaterThan(idle?.temperatureCelsius ?? Infinity);
    expect(busy?.throttleReasons).to.deep.equal([]);
    expect(busy?.processes.map((process) => process.pid)).to.deep.equal([4101, 4102]);
  });

  it('spreads an 8x H100 node’s runtimes over its GPUs, with NVML-style figures and a power cap at full load', async () => {
    const h100 = collector('h100-8x');
    load = { readyRuntimes: 2, inFlightRequests: 20, pids: [7001, 7002] };
    const { telemetry, problems } = await h100.collect();
    expect(problems).to.deep.equal([]);
    expect(telemetry.map((gpu) => gpu.utilizationPercent)).to.deep.equal([100, 100, 0, 0, 0, 0, 0, 0]);
    expect(telemetry[0]).to.deep.include({
      memorySource: 'simulated',
      powerLimitWatts: 700,
      eccUncorrectedErrors: 0,
    });
    expect(telemetry[0]?.throttleReasons).to.deep.equal(['SwPowerCap']);
    expect(telemetry[0]?.memoryUsedBytes).to.equal((4 + 20 * 1024) * 1024 * 1024);
    expect(telemetry[2]?.memoryUsedBytes).to.equal(4 * 1024 * 1024);
    expect(telemetry.map((gpu) => gpu.processes.map((process) => process.pid))).to.deep.equal([
      [7001],
      [7002],
      [],
      [],
      [],
      [],
      [],
      [],
    ]);
  });

  it('makes a GPU log an Xid or fall off the bus from the faults file, through the real parsers', async () => {
    const h100 = collector('h100-8x');
    writeFileSync(
      join(dataDir, SIMULATED_GPU_FAULTS_FILE),
      JSON.stringify({
        3: { xid: 79, lost: true },
        5: { xid: 48, message: 'DBE (Double Bit Error) ECC Error' },
      }),
    );
    const { telemetry, problems } = await h100.collect();
    expect(problems).to.deep.equal([]);
    const byIndex = new Map(telemetry.map((gpu) => [gpu.index, gpu]));
    expect(byIndex.get(3)).to.deep.include({
      uuid: h100.inventory.gpus[3]?.uuid,
      lost: true,
      lastXid: 79,
      lastError: 'GPU has fallen off the bus.',
      powerWatts: null,
    });
    expect(byIndex.get(5)).to.deep.include({
      lost: false,
      lastXid: 48,
      lastError: 'DBE (Double Bit Error) ECC Error',
    });
    expect(byIndex.get(0)).to.deep.include({ lost: false, lastXid: null });
  });

  it('refuses a faults file it cannot read as faults', async () => {
    const spark = collector('dgx-spark');
    writeFileSync(join(dataDir, SIMULATED_GPU_FAULTS_FILE), JSON.stringify({ 0: { xid: 'seventy-nine' } }));
    let failure: unknown;
    await spark.collect().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(SimulatedFaultsError);
  });
});

describe('TelemetrySampler', () => {
  const gpu = (utilizationPercent: number): GpuTelemetry => ({
    uuid: 'GPU-6d5f0f1c-3e9b-b0c2-8f1a-2c7d9e4b5a61',
    utilizationPercent,
    powerWatts: null,
    temperatureCelsius: null,
    processes: [],
  });

  it('never holds a heartbeat longer than its timeout: a hung read yields the last figures, then none once too old', async () => {
    let calls = 0;
    let release: (report: TelemetryReport) => void = () => undefined;
    const sampler = new TelemetrySampler({
      collect: () => {
        calls += 1;
        if (calls === 1) return Promise.resolve({ telemetry: [gpu(40)], problems: [] });
        return new Promise<TelemetryReport>((resolve) => (release = resolve));
      },
      timeoutMs: 50,
      maxAgeMs: 400,
      logger: capturingLogger().logger,
    });
    expect(await sampler.sample()).to.deep.equal([gpu(40)]);
    const started = performance.now();
    expect(await sampler.sample()).to.deep.equal([gpu(40)]);
    expect(performance.now() - started).to.be.lessThan(400);
    // The hung read is joined, not started again.
    await sampler.sample();
    expect(calls).to.equal(2);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await sampler.sample()).to.deep.equal([]);
    release({ telemetry: [gpu(70)], problems: [] });
    expect(await sampler.sample()).to.deep.equal([gpu(70)]);
  });

  it('keeps heartbeats going when reads fail, and says so once', async () => {
    const { logger, lines } = capturingLogger();
    const sampler = new TelemetrySampler({
      collect: () => Promise.reject(new Error('nvidia-smi did not run: spawn nvidia-smi ENOENT')),
      timeoutMs: 50,
      maxAgeMs: 1000,
      logger,
    });
    expect(await sampler.sample()).to.deep.equal([]);
    expect(await sampler.sample()).to.deep.equal([]);
    // The repeat goes to debug, below this logger's level.
    const notRead = lines().filter((line) => String(line['msg']).startsWith('GPU telemetry not read'));
    expect(notRead.map((line) => line['level'])).to.deep.equal(['warn']);
  });
});
