import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR, NodeInventorySchema, type NodeInventory } from '@lunanexa/contracts';
import { countNodeReadiness, deriveNodeReadiness } from '../src/node-readiness';

const CONTRACTS = join(__dirname, '..', '..', '..', 'contracts');
const SPARK: NodeInventory = NodeInventorySchema.parse(
  JSON.parse(readFileSync(join(CONTRACTS, FIXTURES_DIR, 'node-inventory.gb10-unified.json'), 'utf8')),
);
const NO_GPU: NodeInventory = { ...SPARK, gpus: [] };
const NOW = new Date('2026-12-05T10:00:00Z');
const seconds = (s: number) => new Date(NOW.getTime() + s * 1000);

describe('node readiness from the lease', () => {
  it('Unreachable before the first heartbeat and once the lease ran out; NotReady without GPUs; else Ready', () => {
    const derive = (renewed: Date | null, expires: Date | null, inventory = SPARK) =>
      deriveNodeReadiness({ leaseRenewedAt: renewed, leaseExpiresAt: expires, inventory, now: NOW });
    expect(derive(null, null).condition.reason).to.equal('NoHeartbeatYet');
    expect(derive(null, null).readiness).to.equal('Unreachable');
    expect(derive(seconds(-60), seconds(0))).to.deep.include({
      readiness: 'Unreachable',
      heartbeatAgeSeconds: 60,
    });
    expect(derive(seconds(-5), seconds(25), NO_GPU).readiness).to.equal('NotReady');
    expect(derive(seconds(-5), seconds(25)).readiness).to.equal('Ready');
  });

  it('counts the nodes expected to heartbeat per readiness, every readiness present, Pending and refused ones left out', () => {
    const node = (
      lifecycle: Parameters<typeof countNodeReadiness>[0][number]['lifecycle'],
      fresh: boolean,
    ) => ({
      lifecycle,
      inventory: SPARK,
      leaseRenewedAt: seconds(fresh ? -5 : -90),
      leaseExpiresAt: seconds(fresh ? 25 : -60),
    });
    expect(countNodeReadiness([], NOW)).to.deep.equal({ Ready: 0, NotReady: 0, Unreachable: 0 });
    expect(
      countNodeReadiness(
        [
          node('Active', true),
          node('Active', false),
          node('Draining', true),
          node('Drained', false),
          node('Approved', true),
          { ...node('Active', true), inventory: NO_GPU },
          node('Pending', false),
          node('Rejected', false),
          node('Revoked', false),
        ],
        NOW,
      ),
    ).to.deep.equal({ Ready: 3, NotReady: 1, Unreachable: 2 });
  });
});
