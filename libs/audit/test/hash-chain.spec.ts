import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  chainEvent,
  chainMaterialParts,
  computeEventHash,
  GENESIS_HASH,
  stableStringify,
  verifyChain,
  type AuditEventDraft,
  type ChainedAuditEvent,
} from '../src';

function draft(n: number, evidence: Record<string, unknown> = { n }): AuditEventDraft {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    occurredAt: new Date(Date.UTC(2026, 11, 2, 10, 0, n)).toISOString(),
    actor: 'user:admin',
    action: 'system.ping',
    decision: 'allowed',
    evidence,
    result: 'succeeded',
    correlationId: `corr-${n}`,
    workflowId: `ping/key-${n}`,
  };
}

function buildChain(length: number): ChainedAuditEvent[] {
  const events: ChainedAuditEvent[] = [];
  for (let i = 1; i <= length; i++) events.push(chainEvent(events.at(-1) ?? null, draft(i)));
  return events;
}

describe('audit hash chain', () => {
  it('starts at seq 1 on the genesis hash and links each event to its predecessor', () => {
    const chain = buildChain(3);
    expect(chain.map((e) => e.seq)).to.deep.equal([1, 2, 3]);
    expect(chain[0].prevHash).to.equal(GENESIS_HASH);
    expect(chain[1].prevHash).to.equal(chain[0].hash);
    expect(chain[2].prevHash).to.equal(chain[1].hash);
    expect(verifyChain(chain)).to.deep.equal({ valid: true, checked: 3 });
  });

  it('hashes evidence independently of key order', () => {
    const a = computeEventHash(1, GENESIS_HASH, draft(1, { b: 1, a: { y: 2, x: 1 } }));
    const b = computeEventHash(1, GENESIS_HASH, draft(1, { a: { x: 1, y: 2 }, b: 1 }));
    expect(a).to.equal(b);
  });

  it('detects a modified event', () => {
    const chain = buildChain(3);
    chain[1] = { ...chain[1], actor: 'user:mallory' };
    expect(verifyChain(chain)).to.deep.include({
      valid: false,
      brokenAt: { seq: 2, reason: 'hash-mismatch' },
    });
  });

  it('detects a removed event', () => {
    const chain = buildChain(3);
    chain.splice(1, 1);
    expect(verifyChain(chain).brokenAt).to.deep.equal({ seq: 3, reason: 'sequence-gap' });
  });

  it('detects a re-linked event whose own hash was recomputed', () => {
    const chain = buildChain(3);
    const forged = { ...chain[2], prevHash: 'f'.repeat(64) };
    chain[2] = { ...forged, hash: computeEventHash(forged.seq, forged.prevHash, forged) };
    expect(verifyChain(chain).brokenAt).to.deep.equal({ seq: 3, reason: 'link-mismatch' });
  });

  it('verifies a window of the chain from an anchor', () => {
    const chain = buildChain(5);
    expect(verifyChain(chain.slice(2), chain[1])).to.deep.equal({ valid: true, checked: 3 });
  });

  it('refuses values that JSON cannot represent faithfully', () => {
    expect(() => stableStringify({ a: Number.NaN })).to.throw(TypeError);
    expect(() => stableStringify([undefined])).to.throw(TypeError);
  });

  it('the material parts PostgreSQL completes at commit hash to exactly computeEventHash', () => {
    const drafts: AuditEventDraft[] = [
      draft(1),
      draft(2, { nested: { z: [1, 'two', null], a: true }, ключ: 'значение ✓', quote: '"\\' }),
      { ...draft(3), workflowId: null },
      draft(4, {}),
    ];
    for (const [index, d] of drafts.entries()) {
      const seq = 41 + index * 1000;
      const prevHash = index === 0 ? GENESIS_HASH : 'ab'.repeat(32);
      const parts = chainMaterialParts(d);
      const material = `${parts.head}${JSON.stringify(prevHash)}${parts.middle}${String(seq)}${parts.tail}`;
      expect(createHash('sha256').update(material).digest('hex')).to.equal(
        computeEventHash(seq, prevHash, d),
      );
    }
  });
});
