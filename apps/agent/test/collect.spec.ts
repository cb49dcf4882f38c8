import { NodeInventorySchema } from '@lunanexa/contracts';
import { expect } from 'chai';
import { collectNvidiaInventory } from '../src/inventory/collect';
import { UnsupportedArchitectureError, cpuModelSummary, parseOsRelease } from '../src/inventory/host';
import { memoryModelOf } from '../src/inventory/nvidia-gpus';
import {
  NVIDIA_SMI_QUERY_ARGS,
  NVIDIA_SMI_SUMMARY_ARGS,
  parseNvidiaSmiGpuCsv,
} from '../src/inventory/nvidia-smi';
import {
  GB10_HOST,
  GB10_MEM_AVAILABLE_BYTES,
  GB10_MEM_TOTAL_BYTES,
  H100_HOST,
  MIB,
  capturedHost,
  fixture,
} from './support';

const options = { agentVersion: '0.1.0', now: () => new Date('2025-10-14T09:12:41.000Z') };

describe('collectNvidiaInventory', () => {
  it('reports a GB10 with [N/A] memory as a unified GPU sized by /proc/meminfo', async () => {
    const host = capturedHost(GB10_HOST);
    const { inventory, problems } = await collectNvidiaInventory(host, options);

    expect(problems).to.deep.equal([]);
    expect(NodeInventorySchema.safeParse(inventory).success).to.equal(true);
    expect(inventory.architecture).to.equal('arm64');
    expect(inventory.gpus).to.deep.equal([
      {
        name: 'NVIDIA GB10',
        uuid: 'GPU-6d5f0f1c-3e9b-b0c2-8f1a-2c7d9e4b5a61',
        index: 0,
        computeCapability: '12.1',
        memoryModel: 'unified',
        totalMemoryBytes: GB10_MEM_TOTAL_BYTES,
        freeMemoryBytes: GB10_MEM_AVAILABLE_BYTES,
        memorySource: 'proc-meminfo',
        migMode: null,
        driverVersion: '580.95.05',
        cudaVersion: '13.0',
      },
    ]);
    expect(inventory.systemMemory).to.deep.equal({
      totalBytes: GB10_MEM_TOTAL_BYTES,
      availableBytes: GB10_MEM_AVAILABLE_BYTES,
      source: 'proc-meminfo',
    });
    expect(inventory.cpu).to.deep.equal({ model: 'Cortex-X925 + Cortex-A725', cores: 20 });
    expect(inventory.os).to.deep.equal({ name: 'Ubuntu', version: '24.04', kernel: '6.11.0-1016-nvidia' });
    expect(inventory.collectedAt).to.equal('2025-10-14T09:12:41.000Z');
  });

  it('runs only the two fixed nvidia-smi command lines', async () => {
    const host = capturedHost(GB10_HOST);
    await collectNvidiaInventory(host, options);
    expect(host.calls).to.deep.equal([[...NVIDIA_SMI_QUERY_ARGS], [...NVIDIA_SMI_SUMMARY_ARGS]]);
  });

  it('reports 8x H100 as discrete GPUs sized by NVML (81559 MiB each)', async () => {
    const { inventory, problems } = await collectNvidiaInventory(capturedHost(H100_HOST), options);

    expect(problems).to.deep.equal([]);
    expect(NodeInventorySchema.safeParse(inventory).success).to.equal(true);
    expect(inventory.architecture).to.equal('amd64');
    expect(inventory.gpus).to.have.length(8);
    for (const gpu of inventory.gpus) {
      expect(gpu).to.include({
        name: 'NVIDIA H100 80GB HBM3',
        memoryModel: 'discrete',
        memorySource: 'nvml',
        totalMemoryBytes: 81_559 * MIB,
        computeCapability: '9.0',
        migMode: 'disabled',
        driverVersion: '550.54.15',
        cudaVersion: '12.4',
      });
    }
    expect(inventory.gpus[3]?.freeMemoryBytes).to.equal(9_741 * MIB);
    // The node's own memory still comes from /proc/meminfo; it is not the GPUs' memory.
    expect(inventory.systemMemory.source).to.equal('proc-meminfo');
  });

  it('reports MIG mode per GPU', async () => {
    const host = capturedHost({ ...H100_HOST, queryCsv: fixture('h100-mig-query-gpu.csv') });
    const { inventory } = await collectNvidiaInventory(host, options);
    expect(inventory.gpus.map((gpu) => [gpu.index, gpu.migMode])).to.deep.equal([
      [0, 'disabled'],
      [1, 'enabled'],
    ]);
  });

  it('keeps the node visible with no GPUs and says why when nvidia-smi is missing', async () => {
    const missing: NodeJS.ErrnoException = Object.assign(new Error('spawn nvidia-smi ENOENT'), {
      code: 'ENOENT',
    });
    const { inventory, problems } = await collectNvidiaInventory(
      capturedHost({ nodeArch: 'arm64', nvidiaSmiError: missing }),
      options,
    );
    expect(inventory.gpus).to.deep.equal([]);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^nvidia-smi: not found on PATH/);
    expect(NodeInventorySchema.safeParse(inventory).success).to.equal(true);
  });

  it('reports the driver error line when nvidia-smi fails', async () => {
    const failed = Object.assign(new Error('Command failed: nvidia-smi'), {
      code: 9,
      stderr:
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nMake sure that the latest NVIDIA driver is installed and running.\n",
    });
    const { problems } = await collectNvidiaInventory(
      capturedHost({ nodeArch: 'x64', nvidiaSmiError: failed }),
      options,
    );
    expect(problems).to.deep.equal([
      "nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    ]);
  });

  it('leaves out (and names) a discrete GPU without a memory figure, reporting the others', async () => {
    const lines = fixture('h100-mig-query-gpu.csv').trim().split('\n');
    const broken = (lines[1] ?? '').replace('81559, 44, 80960', '[N/A], [N/A], [N/A]');
    const host = capturedHost({ ...H100_HOST, queryCsv: `${lines[0] ?? ''}\n${broken}\n` });

    const { inventory, problems } = await collectNvidiaInventory(host, options);

    expect(inventory.gpus.map((gpu) => gpu.index)).to.deep.equal([0]);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.contain('GPU 1 (NVIDIA H100 80GB HBM3, GPU-8a1c5e3f-2d7b-4f96-b0e8-6c3a9d1f5e27)');
    expect(problems[0]).to.contain('totalMemoryBytes');
  });

  it('says so when nvidia-smi lists no GPUs', async () => {
    const { inventory, problems } = await collectNvidiaInventory(
      capturedHost({ ...GB10_HOST, queryCsv: '' }),
      options,
    );
    expect(inventory.gpus).to.deep.equal([]);
    expect(problems).to.deep.equal(['nvidia-smi listed no GPUs']);
  });

  it('refuses an architecture LunaNexa does not schedule for', async () => {
    let caught: unknown;
    try {
      await collectNvidiaInventory(capturedHost({ ...GB10_HOST, nodeArch: 'ia32' }), options);
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(UnsupportedArchitectureError);
  });
});

describe('memoryModelOf', () => {
  const [gb10] = parseNvidiaSmiGpuCsv(fixture('gb10-query-gpu.csv'));
  const [h100] = parseNvidiaSmiGpuCsv(fixture('h100-8x-query-gpu.csv'));
  if (gb10 === undefined || h100 === undefined) throw new Error('fixtures have no rows');

  it('treats GB10 as unified by name', () => {
    expect(memoryModelOf(gb10, 'arm64')).to.equal('unified');
  });

  it('treats an unnamed arm64 GPU without NVML memory as unified', () => {
    expect(memoryModelOf({ ...gb10, name: 'NVIDIA Future Superchip' }, 'arm64')).to.equal('unified');
  });

  it('keeps an amd64 GPU without NVML memory discrete (a broken GPU, not unified memory)', () => {
    expect(memoryModelOf({ ...gb10, name: 'NVIDIA Future Superchip' }, 'amd64')).to.equal('discrete');
  });

  it('treats a GPU with its own NVML memory as discrete, on either architecture', () => {
    expect(memoryModelOf(h100, 'amd64')).to.equal('discrete');
    expect(memoryModelOf(h100, 'arm64')).to.equal('discrete');
  });
});

describe('host facts', () => {
  it('reads quoted and unquoted os-release values', () => {
    expect(parseOsRelease('NAME="Ubuntu"\nVERSION_ID=24.04\n')).to.deep.equal({
      name: 'Ubuntu',
      version: '24.04',
    });
    expect(parseOsRelease('ID=alpine\n')).to.deep.equal({ name: null, version: null });
  });

  it('summarises big.LITTLE CPU models and survives kernels that report none', () => {
    expect(cpuModelSummary(['Cortex-X925', 'Cortex-A725', 'Cortex-X925'])).to.equal(
      'Cortex-X925 + Cortex-A725',
    );
    expect(cpuModelSummary(['', ''])).to.equal('unknown');
  });
});
