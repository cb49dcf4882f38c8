import { expect } from 'chai';
import {
  NodeInventorySchema,
  type CompatibleHardware,
  type GpuInventory,
  type NodeInventory,
} from '@lunanexa/contracts';
import {
  UNIFIED_MEMORY_HEADROOM_FRACTION,
  fleetHardwareFit,
  hardwareFit,
  unifiedMemoryCapacity,
} from '../src/hardware-compatibility';

const GiB = 1024 ** 3;

/** A DGX Spark as its agent reports it: NVML gave [N/A], so the GPU is sized from /proc/meminfo. */
const GB10_MEM_TOTAL = 127_600_748 * 1024;
const gb10: NodeInventory = NodeInventorySchema.parse({
  architecture: 'arm64',
  cpu: { model: 'Cortex-X925 + Cortex-A725', cores: 20 },
  systemMemory: { totalBytes: GB10_MEM_TOTAL, availableBytes: 119_000_000 * 1024, source: 'proc-meminfo' },
  gpus: [
    {
      name: 'NVIDIA GB10',
      uuid: 'GPU-5f3e1a2b-8c4d-4e6f-9a0b-1c2d3e4f5a6b',
      index: 0,
      computeCapability: '12.1',
      memoryModel: 'unified',
      totalMemoryBytes: GB10_MEM_TOTAL,
      freeMemoryBytes: null,
      memorySource: 'proc-meminfo',
      migMode: null,
      driverVersion: '580.95.05',
      cudaVersion: '13.0',
    },
  ],
  os: { name: 'DGX OS', version: '24.04', kernel: '6.11.0-1016-nvidia' },
  agentVersion: '0.1.0',
  collectedAt: '2026-12-01T10:00:00.000Z',
});

function h100(index: number, overrides: Partial<GpuInventory> = {}): GpuInventory {
  return {
    name: 'NVIDIA H100 80GB HBM3',
    uuid: `GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f${index}`,
    index,
    computeCapability: '9.0',
    memoryModel: 'discrete',
    totalMemoryBytes: 81_559 * 1024 * 1024,
    freeMemoryBytes: 81_000 * 1024 * 1024,
    memorySource: 'nvml',
    migMode: 'disabled',
    driverVersion: '580.95.05',
    cudaVersion: '13.0',
    ...overrides,
  };
}

function discreteNode(gpus: GpuInventory[]): NodeInventory {
  return NodeInventorySchema.parse({
    architecture: 'amd64',
    cpu: { model: 'Intel(R) Xeon(R) Platinum 8480C', cores: 224 },
    systemMemory: { totalBytes: 2048 * GiB, availableBytes: 1900 * GiB, source: 'proc-meminfo' },
    gpus,
    os: { name: 'Ubuntu', version: '22.04', kernel: '5.15.0-125-generic' },
    agentVersion: '0.1.0',
    collectedAt: '2026-12-01T10:00:00.000Z',
  });
}

const h100x2 = discreteNode([h100(0), h100(1)]);

/** A vLLM-style runtime built for both architectures, CUDA 12.8+, any memory model. */
const runtimeSupported: CompatibleHardware = {
  architectures: ['arm64', 'amd64'],
  memoryModels: ['unified', 'discrete'],
  minComputeCapability: '8.0',
  maxComputeCapability: null,
  minCudaVersion: '12.8',
  gpusPerReplica: 1,
  minMemoryBytesPerReplica: null,
};

const needs = (overrides: Partial<CompatibleHardware>): CompatibleHardware => ({
  ...runtimeSupported,
  minMemoryBytesPerReplica: 24 * GiB,
  ...overrides,
});

describe('hardwareFit', () => {
  it('fits a 24 GiB replica on a GB10 whose GPU memory NVML did not report, sized from system memory', () => {
    expect(hardwareFit(needs({}), runtimeSupported, gb10)).to.deep.equal({ fits: true, reasons: [] });
  });

  it('sizes unified memory as system memory minus the headroom, not the whole 128 GB', () => {
    const capacity = unifiedMemoryCapacity(gb10);
    expect(capacity).to.equal(Math.floor(GB10_MEM_TOTAL * (1 - UNIFIED_MEMORY_HEADROOM_FRACTION)));
    expect(hardwareFit(needs({ minMemoryBytesPerReplica: capacity }), runtimeSupported, gb10).fits).to.equal(
      true,
    );
    // 115 GiB fits in MemTotal (121.7 GiB) but not beside the OS and page cache.
    const fit = hardwareFit(needs({ minMemoryBytesPerReplica: 115 * GiB }), runtimeSupported, gb10);
    expect(fit.fits).to.equal(false);
    expect(fit.reasons.join('\n')).to.match(
      /unified memory, 103\.4 GiB after 15% headroom; the replica needs 115\.0 GiB/,
    );
  });

  it('checks a discrete GPU against its own memory, the need split over the GPUs of one replica', () => {
    expect(
      hardwareFit(needs({ minMemoryBytesPerReplica: 70 * GiB }), runtimeSupported, h100x2).fits,
    ).to.equal(true);
    const tooBig = hardwareFit(needs({ minMemoryBytesPerReplica: 120 * GiB }), runtimeSupported, h100x2);
    expect(tooBig.fits).to.equal(false);
    expect(tooBig.reasons[0]).to.equal('0 of 2 GPUs usable, the replica needs 1');
    expect(tooBig.reasons[1]).to.match(/GPU 0 .* has 79\.6 GiB, the replica needs 120\.0 GiB per GPU/);
    // Two GPUs per replica: 60 GiB on each.
    expect(
      hardwareFit(needs({ minMemoryBytesPerReplica: 120 * GiB, gpusPerReplica: 2 }), runtimeSupported, h100x2)
        .fits,
    ).to.equal(true);
    const three = hardwareFit(needs({ gpusPerReplica: 3 }), runtimeSupported, h100x2);
    expect(three.reasons).to.deep.equal(['2 of 2 GPUs usable, the replica needs 3']);
  });

  it('refuses the wrong architecture and memory model, naming both', () => {
    const armOnlyDiscrete = needs({ architectures: ['arm64'], memoryModels: ['discrete'] });
    const onSpark = hardwareFit(armOnlyDiscrete, runtimeSupported, gb10);
    expect(onSpark.fits).to.equal(false);
    expect(onSpark.reasons[1]).to.match(/GPU 0 \(NVIDIA GB10\) has unified memory, needs discrete/);
    const onH100 = hardwareFit(armOnlyDiscrete, runtimeSupported, h100x2);
    expect(onH100.reasons[0]).to.equal('architecture amd64, needs arm64');
  });

  it('compares compute capabilities numerically: 12.1 is above a 10.0 maximum, 9.0 below a 12.0 minimum', () => {
    const datacenterBlackwellOnly = needs({ minComputeCapability: '10.0', maxComputeCapability: '10.3' });
    const onSpark = hardwareFit(datacenterBlackwellOnly, runtimeSupported, gb10);
    expect(onSpark.reasons).to.include(
      'GPU 0 (NVIDIA GB10) has compute capability 12.1, above the supported maximum 10.3',
    );
    const onH100 = hardwareFit(datacenterBlackwellOnly, runtimeSupported, h100x2);
    expect(onH100.reasons).to.include(
      'GPU 0 (NVIDIA H100 80GB HBM3) has compute capability 9.0, needs at least 10.0',
    );
  });

  it('takes the stricter of the version requirements and the runtime declaration', () => {
    const runtimeCuda13_1 = { ...runtimeSupported, minCudaVersion: '13.1', maxComputeCapability: '12.0' };
    const fit = hardwareFit(needs({ minCudaVersion: '12.0' }), runtimeCuda13_1, gb10);
    expect(fit.fits).to.equal(false);
    expect(fit.reasons).to.include(
      'GPU 0 (NVIDIA GB10) has compute capability 12.1, above the supported maximum 12.0',
    );
    const cudaOnly = hardwareFit(needs({}), { ...runtimeSupported, minCudaVersion: '13.1' }, h100x2);
    expect(cudaOnly.reasons).to.include(
      'GPU 0 (NVIDIA H100 80GB HBM3) driver supports CUDA 13.0, needs at least 13.1',
    );
  });

  it('does not count MIG-split GPUs as whole GPUs', () => {
    const node = discreteNode([h100(0, { migMode: 'enabled' }), h100(1)]);
    expect(hardwareFit(needs({}), runtimeSupported, node).fits).to.equal(true);
    const two = hardwareFit(needs({ gpusPerReplica: 2 }), runtimeSupported, node);
    expect(two.reasons).to.deep.equal([
      '1 of 2 GPUs usable, the replica needs 2',
      'GPU 0 (NVIDIA H100 80GB HBM3) is split by MIG; a replica needs whole GPUs',
    ]);
  });

  it('runs a GPU-less replica (the fake runtime) on any node of a supported architecture, checking system memory', () => {
    const fake: CompatibleHardware = {
      architectures: ['arm64', 'amd64'],
      memoryModels: ['unified', 'discrete'],
      minComputeCapability: '0.0',
      maxComputeCapability: null,
      minCudaVersion: null,
      gpusPerReplica: 0,
      minMemoryBytesPerReplica: null,
    };
    const noGpus = discreteNode([]);
    for (const node of [gb10, h100x2, noGpus]) expect(hardwareFit(fake, fake, node).fits).to.equal(true);
    const big = hardwareFit({ ...fake, minMemoryBytesPerReplica: 110 * GiB }, fake, gb10);
    expect(big.fits).to.equal(false);
    expect(big.reasons[0]).to.match(/^system memory 121\.7 GiB \(103\.4 GiB after 15% headroom\)/);
    expect(hardwareFit(needs({}), runtimeSupported, noGpus).reasons).to.deep.equal([
      'no GPU reported, the replica needs 1',
    ]);
  });
});

describe('fleetHardwareFit', () => {
  const fleet = [
    { name: 'spark-1', inventory: gb10 },
    { name: 'h100-a', inventory: h100x2 },
  ];

  it('fits when one node fits and names which ones', () => {
    const fit = fleetHardwareFit(needs({ minMemoryBytesPerReplica: 90 * GiB }), runtimeSupported, fleet);
    expect(fit.fits).to.equal(true);
    expect(fit.reasons).to.deep.equal([]);
    expect(fit.fittingNodes).to.deep.equal(['spark-1']);
    expect(fit.rejectedNodes.map((r) => r.node)).to.deep.equal(['h100-a']);
  });

  it('explains every filtered node when none fits', () => {
    const fit = fleetHardwareFit(needs({ minMemoryBytesPerReplica: 200 * GiB }), runtimeSupported, fleet);
    expect(fit.fits).to.equal(false);
    expect(fit.fittingNodes).to.deep.equal([]);
    expect(fit.reasons).to.have.length(2);
    expect(fit.reasons[0]).to.match(/^spark-1: 0 of 1 GPUs usable/);
    expect(fit.reasons[1]).to.match(/^h100-a: 0 of 2 GPUs usable/);
  });

  it('says so when there is no node at all', () => {
    expect(fleetHardwareFit(needs({}), runtimeSupported, [])).to.deep.include({
      fits: false,
      reasons: ['no active node in the fleet'],
    });
  });
});
