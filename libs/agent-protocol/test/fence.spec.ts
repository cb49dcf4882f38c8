import type { Assignment } from '@lunanexa/contracts';
import { expect } from 'chai';
import { ENVELOPE_SCHEMAS } from '../src/envelope';
import { GenerationFence, assignmentSpecDigest } from '../src/fence';
import { ErrorCode, expectErrorCode, fixture } from './support';

function assignment(): Assignment {
  return ENVELOPE_SCHEMAS['assignment.put'].parse(fixture('assignment-put.json')).body.assignment;
}

describe('GenerationFence', () => {
  it('advances on a first or higher generation', () => {
    const fence = new GenerationFence();
    expect(fence.accept('a', 3, 'd3')).to.equal('advance');
    expect(fence.accept('a', 5, 'd5')).to.equal('advance');
    expect(fence.get('a')).to.deep.equal({ key: 'a', generation: 5, digest: 'd5' });
  });

  it('refuses a lower generation with STALE_GENERATION and keeps the higher one', () => {
    const fence = new GenerationFence([{ key: 'a', generation: 5, digest: 'd5' }]);
    expectErrorCode(() => fence.accept('a', 4, 'd4'), ErrorCode.STALE_GENERATION);
    expectErrorCode(() => fence.accept('a', 0, 'd0'), ErrorCode.STALE_GENERATION);
    expect(fence.get('a')?.generation).to.equal(5);
  });

  it('answers "same" for the accepted generation and digest, and refuses other content at it', () => {
    const fence = new GenerationFence([{ key: 'a', generation: 5, digest: 'd5' }]);
    expect(fence.accept('a', 5, 'd5')).to.equal('same');
    expectErrorCode(() => fence.accept('a', 5, 'other'), ErrorCode.STALE_GENERATION);
    expect(fence.get('a')?.digest).to.equal('d5');
  });

  it('fences each key on its own', () => {
    const fence = new GenerationFence([{ key: 'a', generation: 5, digest: 'd5' }]);
    expect(fence.accept('b', 1, 'd1')).to.equal('advance');
    expect(fence.entries().map((entry) => entry.key)).to.deep.equal(['a', 'b']);
  });

  it('check() decides without recording', () => {
    const fence = new GenerationFence();
    expect(fence.check('a', 1, 'd1')).to.equal('advance');
    expect(fence.size).to.equal(0);
  });

  it('refuses a duplicate or negative entry when rebuilt', () => {
    expect(
      () =>
        new GenerationFence([
          { key: 'a', generation: 1, digest: 'x' },
          { key: 'a', generation: 2, digest: 'y' },
        ]),
    ).to.throw(/twice/);
    expect(() => new GenerationFence([{ key: 'a', generation: -1, digest: 'x' }])).to.throw(/generation/);
  });
});

describe('assignmentSpecDigest', () => {
  it('ignores the lease and nothing else', () => {
    const base = assignment();
    const digest = assignmentSpecDigest(base);
    expect(digest).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(assignmentSpecDigest({ ...base, leaseExpiresAt: '2030-01-01T00:00:00.000Z' })).to.equal(digest);
    expect(assignmentSpecDigest({ ...base, intent: 'Stop' })).to.not.equal(digest);
    expect(assignmentSpecDigest({ ...base, gpuUuids: [] })).to.not.equal(digest);
    expect(assignmentSpecDigest({ ...base, env: {} })).to.not.equal(digest);
  });
});
