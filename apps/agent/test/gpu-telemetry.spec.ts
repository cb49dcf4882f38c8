import { HeartbeatSchema, NodeInventorySchema, type NodeInventory } from '@lunanexa/contracts';
import { expect } from 'chai';
import { collectNvidiaInventory } from '../src/inventory/collect';
import { NvidiaSmiParseError } from '../src/inventory/nvidia-smi';
import { GpuTelemetryCollector, type CommandOutput, type TelemetryProbe } from '../src/telemetry/collect';
import { parseKernelXids } from '../src/telemetry/kernel-xid';
import {
  COMPUTE_APPS_QUERY_ARGS,
  TELEMETRY_QUERY_ARGS,
  decodeThrottleReasons,
  parseComputeAppsCsv,
  parseTelemetryCsv,
  pciKey,
} from '../src/telemetry/nvidia-smi-telemetry';
import {
  GB10_HOST,
  GB10_MEM_AVAILABLE_BYTES,
  GB10_MEM_TOTAL_BYTES,
  H100_HOST,
  MIB,
  capturedHost,
  fixture,
} from './support';

const now = () => new Date('2025-11-20T09:14:04.500Z');

async function inventoryOf(host: Parameters<typeof capturedHost>[0]): Promise<NodeInventory> {
  return (await collectNvidiaInventory(capturedHost(host), { agentVersion: '0.2.0', now })).inventory;
}

/** nvidia-smi as captured: answers only the two telemetry argv vectors; the query output can change between calls. */
function telemetryHost(options: {
  query: CommandOutput;
  apps?: string;
  meminfo?: string;
  kernelLog?: string | null;
}): TelemetryProbe & { calls: string[][]; query: CommandOutput } {
  const calls: string[][] = [];
  const host = {
    calls,
    query: options.query,
    nvidiaSmi(args: readonly string[]): Promise<CommandOutput> {
      calls.push([...args]);
      if (args.join(' ') === TELEMETRY_QUERY_ARGS.join(' ')) return Promise.resolve(host.query);
      if (args.join(' ') === COMPUTE_APPS_QUERY_ARGS.join(' '))
        return Promise.resolve({ stdout: options.apps ?? '', stderr: '', exitCode: 0 });
      return Promise.reject(new Error(`no output for nvidia-smi ${args.join(' ')}`));
    },
    readProcMeminfo: () => Promise.resolve(options.meminfo ?? fixture('gb10-proc-meminfo.txt')),
    readKernelLog: () => Promise.resolve(options.kernelLog ?? null),
  };
  return host;
}

const ok = (stdout: string): CommandOutput => ({ stdout, stderr: '', exitCode: 0 });

describe('GPU telemetry parsers', () => {
  it('decodes the documented throttle bits, in contract order, and flags undocumented ones', () => {
    expect(decodeThrottleReasons('0x0000000000000040')).to.deep.equal(['HwThermalSlowdown']);
    expect(decodeThrottleReasons('0x0000000000000044')).to.deep.equal(['SwPowerCap', 'HwThermalSlowdown']);
    expect(decodeThrottleReasons('0x0000000000000028')).to.deep.equal(['HwSlowdown', 'SwThermalSlowdown']);
    expect(decodeThrottleReasons('0x0000000000000000')).to.deep.equal([]);
    expect(decodeThrottleReasons('0x0000000000001001')).to.deep.equal(['GpuIdle', 'Unknown']);
    expect(decodeThrottleReasons('[N/A]')).to.equal(null);
    expect(decodeThrottleReasons('Not Supported')).to.equal(null);
    expect(() => decodeThrottleReasons('64')).to.throw(NvidiaSmiParseError);
  });

  it('reads a GB10 row: [N/A] memory, power limit and ECC stay null, never zero', () => {
    const { rows, lost } = parseTelemetryCsv(fixture('gb10-telemetry.csv'));
    expect(lost).to.deep.equal([]);
    expect(rows).to.deep.equal([
      {
        index: 0,
        uuid: 'GPU-6d5f0f1c-3e9b-b0c2-8f1a-2c7d9e4b5a61',
        pci: 'f:1:0',
        utilizationPercent: 96,
        memoryUsedMiB: null,
        memoryTotalMiB: null,
        temperatureCelsius: 62,
        powerWatts: 78.42,
        powerLimitWatts: null,
        throttleReasons: [],
        eccUncorrectedErrors: null,
        lost: false,
      },
    ]);
  });

  it('turns "Unable to determine the device handle" and "GPU is lost" lines into lost devices by PCI address', () => {
    const { rows, lost } = parseTelemetryCsv(fixture('h100-8x-telemetry-gpu-lost.csv'));
    expect(rows.map((row) => row.index)).to.deep.equal([0, 1, 2, 3, 5, 6, 7]);
    expect(lost).to.deep.equal([{ pci: pciKey('0000', '9a', '00'), message: 'Unknown Error' }]);
    expect(
      parseTelemetryCsv('GPU 00000000:AB:00.0: GPU is lost.  Reboot the system to recover this GPU').lost,
    ).to.deep.equal([{ pci: '0:ab:0', message: 'GPU is lost.  Reboot the system to recover this GPU' }]);
  });

  it('refuses a row with a wrong column count or a non-numeric figure', () => {
    expect(() => parseTelemetryCsv('0, GPU-6d5f0f1c-3e9b-b0c2-8f1a-2c7d9e4b5a61, 96')).to.throw(
      NvidiaSmiParseError,
      /expected 11 columns/,
    );
    const hot = fixture('gb10-telemetry.csv').replace(', 62,', ', hot,');
    expect(() => parseTelemetryCsv(hot)).to.throw(NvidiaSmiParseError, /temperature\.gpu/);
  });

  it('reads per-process memory, keeping a process whose figure is [N/A] out of the sums', () => {
    expect(parseComputeAppsCsv(fixture('h100-8x-compute-apps.csv'))).to.deep.equal([
      { gpuUuid: 'GPU-1b9d6f4e-8c2a-7e53-d1f7-9a4c2e6b0d38', pid: 48211, usedMemoryMiB: 71250 },
      { gpuUuid: 'GPU-e5a3c8b1-4d6f-2a97-c8e1-7f5b3d9a1c62', pid: 48342, usedMemoryMiB: 71250 },
      { gpuUuid: 'GPU-e5a3c8b1-4d6f-2a97-c8e1-7f5b3d9a1c62', pid: 51007, usedMemoryMiB: null },
    ]);
    expect(parseComputeAppsCsv('No running processes found\n')).to.deep.equal([]);
  });

  it('keeps the latest Xid per GPU from kernel log records, without pid and process name', () => {
    const xids = parseKernelXids(fixture('h100-8x-kmsg.txt'));
    expect([...xids.entries()]).to.deep.equal([
      ['0:3a:0', { xid: 43, message: 'Ch 00000008' }],
      ['0:9a:0', { xid: 79, message: 'GPU has fallen off the bus.' }],
    ]);
  });
});

describe('GpuTelemetryCollector', () => {
  it('sizes a GB10 from /proc/meminfo when NVML says [N/A], with its per-process memory', async () => {
    const inventory = await inventoryOf(GB10_HOST);
    const host = telemetryHost({
      query: ok(fixture('gb10-telemetry.csv')),
      apps: fixture('gb10-compute-apps.csv'),
    });
    const collector = new GpuTelemetryCollector({ probe: host, inventory: () => inventory, now });
    const { telemetry, problems } = await collector.collect();
    expect(problems).to.deep.equal([]);
    expect(host.calls).to.deep.equal([[...TELEMETRY_QUERY_ARGS], [...COMPUTE_APPS_QUERY_ARGS]]);
    expect(telemetry).to.deep.equal([
      {
        uuid: 'GPU-6d5f0f1c-3e9b-b0c2-8f1a-2c7d9e4b5a61',
        index: 0,
        sampledAt: '2025-11-20T09:14:04.500Z',
        utilizationPercent: 96,
        memoryTotalBytes: GB10_MEM_TOTAL_BYTES,
        memoryUsedBytes: GB10_MEM_TOTAL_BYTES - GB10_MEM_AVAILABLE_BYTES,
        memorySource: 'proc-meminfo',
        temperatureCelsius: 62,
        powerWatts: 78.42,
        powerLimitWatts: null,
        throttleReasons: [],
        eccUncorrectedErrors: null,
        lastXid: null,
        lastError: null,
        lost: false,
        processes: [{ pid: 114687, usedMemoryBytes: 19135 * MIB }],
      },
    ]);
  });

  it('reports eight H100s with NVML figures, throttle reasons, ECC errors and Xids', async () => {
    const inventory = await inventoryOf(H100_HOST);
    const host = telemetryHost({
      query: ok(fixture('h100-8x-telemetry.csv')),
      apps: fixture('h100-8x-compute-apps.csv'),
      kernelLog: fixture('h100-8x-kmsg.txt'),
    });
    const collector = new GpuTelemetryCollector({ probe: host, inventory: () => inventory, now });
    const { telemetry, problems } = await collector.collect();
    expect(problems).to.deep.equal([]);
    expect(telemetry).to.have.length(8);
    const [gpu0, , gpu2, gpu3, gpu4] = telemetry;
    expect(gpu0).to.include({
      utilizationPercent: 0,
      memoryUsedBytes: 4 * MIB,
      memorySource: 'nvml',
      lastXid: null,
    });
    expect(gpu0?.throttleReasons).to.deep.equal(['GpuIdle']);
    expect(gpu2).to.include({ lastXid: 43, lastError: 'Ch 00000008' });
    expect(gpu3).to.include({ memoryTotalBytes: 81559 * MIB, powerWatts: 693.71, powerLimitWatts: 700 });
    expect(gpu3?.throttleReasons).to.deep.equal(['SwPowerCap', 'HwThermalSlowdown']);
    expect(gpu3?.processes).to.deep.equal([{ pid: 48211, usedMemoryBytes: 71250 * MIB }]);
    expect(gpu4).to.include({ eccUncorrectedErrors: 2, lastXid: 79, lost: false });
    expect(gpu4?.processes).to.deep.equal([{ pid: 48342, usedMemoryBytes: 71250 * MIB }]);
    // What the heartbeat carries validates against the contract as a whole.
    expect(() => HeartbeatSchema.shape.gpuTelemetry.parse(telemetry)).to.not.throw();
  });

  it('reports the H100 that fell off the bus as lost, by the address it was last seen at', async () => {
    const inventory = await inventoryOf(H100_HOST);
    const host = telemetryHost({
      query: ok(fixture('h100-8x-telemetry.csv')),
      kernelLog: fixture('h100-8x-kmsg.txt'),
    });
    const collector = new GpuTelemetryCollector({ probe: host, inventory: () => inventory, now });
    await collector.collect();
    host.query = { stdout: fixture('h100-8x-telemetry-gpu-lost.csv'), stderr: '', exitCode: 15 };
    const { telemetry, problems } = await collector.collect();
    expect(problems).to.deep.equal([]);
    expect(telemetry.map((gpu) => [gpu.index, gpu.lost])).to.deep.equal([
      [0, false],
      [1, false],
      [2, false],
      [3, false],
      [5, false],
      [6, false],
      [7, false],
      [4, true],
    ]);
    expect(telemetry[7]).to.deep.equal({
      uuid: 'GPU-e5a3c8b1-4d6f-2a97-c8e1-7f5b3d9a1c62',
      index: 4,
      sampledAt: '2025-11-20T09:14:04.500Z',
      utilizationPercent: null,
      memoryUsedBytes: null,
      memoryTotalBytes: null,
      memorySource: null,
      temperatureCelsius: null,
      powerWatts: null,
      powerLimitWatts: null,
      throttleReasons: null,
      eccUncorrectedErrors: null,
      lastXid: 79,
      lastError: 'GPU has fallen off the bus.',
      lost: true,
      processes: [],
    });
  });

  it('puts a lost line on the inventory GPU nvidia-smi stopped listing when the address was never seen', async () => {
    const inventory = NodeInventorySchema.parse(await inventoryOf(H100_HOST));
    const host = telemetryHost({
      // This driver prints the lost line on stderr.
      query: {
        stdout: fixture('h100-8x-telemetry-gpu-lost.csv').replace(/^Unable.*\n/m, ''),
        stderr: 'Unable to determine the device handle for GPU0000:9A:00.0: Unknown Error\n',
        exitCode: 15,
      },
    });
    const collector = new GpuTelemetryCollector({ probe: host, inventory: () => inventory, now });
    const { telemetry } = await collector.collect();
    const lost = telemetry.filter((gpu) => gpu.lost === true);
    expect(lost.map((gpu) => [gpu.index, gpu.lastXid, gpu.lastError])).to.deep.equal([
      [4, null, 'Unknown Error'],
    ]);
  });

  it('names a GPU that vanished without a lost line, and fails when nvidia-smi printed nothing usable', async () => {
    const inventory = await inventoryOf(H100_HOST);
    const withoutGpu7 = fixture('h100-8x-telemetry.csv').split('\n').slice(0, 7).join('\n');
    const host = telemetryHost({ query: ok(withoutGpu7) });
    const collector = new GpuTelemetryCollector({ probe: host, inventory: () => inventory, now });
    const { telemetry, problems } = await collector.collect();
    expect(telemetry).to.have.length(7);
    expect(problems).to.deep.equal([
      'GPU 7 (GPU-9c5e2b7d-6f3a-1d84-e2c5-5a9b1e8f3c73) is missing from nvidia-smi',
    ]);
    host.query = {
      stdout: '',
      stderr: 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.',
      exitCode: 9,
    };
    let failure: unknown;
    await collector.collect().catch((error: unknown) => (failure = error));
    expect(String(failure)).to.match(/exited with 9: NVIDIA-SMI has failed/);
  });
});
