import { GPU_UUID_PATTERN, NodeInventorySchema } from '@lunanexa/contracts';
import { expect } from 'chai';
import { SIMULATED_PROFILES, simulatedGpuUuid, simulatedInventory } from '../src/inventory/simulated';
import { MIB } from './support';

const options = { agentVersion: '0.1.0', now: () => new Date('2025-10-14T09:12:41.000Z') };

describe('simulated inventory profiles', () => {
  for (const profile of SIMULATED_PROFILES) {
    it(`${profile} validates against NodeInventorySchema`, () => {
      const { inventory, problems } = simulatedInventory(profile, 'sim-01', options);
      const parsed = NodeInventorySchema.safeParse(inventory);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
      expect(problems).to.deep.equal([]);
      // Figures are made up; every source must say so.
      expect(inventory.systemMemory.source).to.equal('simulated');
      expect(inventory.gpus.every((gpu) => gpu.memorySource === 'simulated')).to.equal(true);
    });
  }

  it('dgx-spark is one GB10 with 128 GB unified memory (MemTotal 127600748 kB) on a 20-core arm64 node', () => {
    const { inventory } = simulatedInventory('dgx-spark', 'spark-01', options);
    expect(inventory.architecture).to.equal('arm64');
    expect(inventory.cpu.cores).to.equal(20);
    expect(inventory.gpus).to.have.length(1);
    const [gpu] = inventory.gpus;
    expect(gpu).to.include({
      name: 'NVIDIA GB10',
      computeCapability: '12.1',
      memoryModel: 'unified',
      totalMemoryBytes: 127_600_748 * 1024,
      cudaVersion: '13.0',
      migMode: null,
    });
    expect(gpu?.driverVersion).to.match(/^580\./);
    expect(gpu?.totalMemoryBytes).to.equal(inventory.systemMemory.totalBytes);
  });

  it('h100-8x is eight discrete H100 80GB HBM3 of 81559 MiB on amd64', () => {
    const { inventory } = simulatedInventory('h100-8x', 'hopper-01', options);
    expect(inventory.architecture).to.equal('amd64');
    expect(inventory.gpus.map((gpu) => gpu.index)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const gpu of inventory.gpus) {
      expect(gpu).to.include({
        name: 'NVIDIA H100 80GB HBM3',
        computeCapability: '9.0',
        memoryModel: 'discrete',
        totalMemoryBytes: 81_559 * MIB,
      });
    }
    expect(new Set(inventory.gpus.map((gpu) => gpu.uuid)).size).to.equal(8);
  });

  it('derives GPU UUIDs from the node name: stable per node, distinct across nodes', () => {
    const first = simulatedInventory('dgx-spark', 'spark-01', options).inventory.gpus[0]?.uuid;
    const again = simulatedInventory('dgx-spark', 'spark-01', options).inventory.gpus[0]?.uuid;
    const other = simulatedInventory('dgx-spark', 'spark-02', options).inventory.gpus[0]?.uuid;
    expect(first).to.match(GPU_UUID_PATTERN);
    expect(again).to.equal(first);
    expect(other).to.not.equal(first);
    expect(simulatedGpuUuid('spark-01', 'dgx-spark', 0)).to.equal(first);
  });
});
