import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../src/cli';
import { captureIo, cannedApis, sentOperations } from './support';

const REGISTRY = 'a'.repeat(64);
const DESIRED = 'b'.repeat(64);
const HEAD_AT_BACKUP = 'c'.repeat(64);

function live(overrides: { desiredState?: string; events?: number; valid?: boolean } = {}) {
  return {
    registry: REGISTRY,
    desiredState: overrides.desiredState ?? DESIRED,
    auditChain: { events: overrides.events ?? 12, headHash: 'd'.repeat(64), valid: overrides.valid ?? true },
  };
}

/** A .digest as backup.sh writes it. */
const RECORDED = `registry=${REGISTRY}\ndesired_state=${DESIRED}\naudit_events=10\naudit_head_hash=${HEAD_AT_BACKUP}\n`;

describe('digest command against a canned API', () => {
  const { serve } = cannedApis();
  const dir = mkdtempSync(join(tmpdir(), 'lunanexa-digest-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('prints the digest in the lines backup.sh writes; exits 1 when the audit chain does not verify', async () => {
    const { url } = await serve({ ControlPlaneDigest: () => ({ data: { controlPlaneDigest: live() } }) });
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'digest'], io, '0.1.0')).to.equal(0);
    expect(io.out()).to.equal(
      `registry=${REGISTRY}\ndesired_state=${DESIRED}\naudit_events=12\naudit_head_hash=${'d'.repeat(64)}\naudit_chain_valid=true\n`,
    );
    const broken = await serve({
      ControlPlaneDigest: () => ({ data: { controlPlaneDigest: live({ valid: false }) } }),
    });
    expect(await runCli(['--api-url', broken.url, 'digest'], captureIo(), '0.1.0')).to.equal(1);
  });

  it('--compare: the same registry and desired state, and the backup’s events at the head of a longer chain, exit 0', async () => {
    const { url, requests } = await serve({
      ControlPlaneDigest: () => ({ data: { controlPlaneDigest: live() } }),
      AuditEventHash: () => ({ data: { auditEvent: { seq: 10, hash: HEAD_AT_BACKUP } } }),
    });
    const io = captureIo();
    expect(
      await runCli(['--api-url', url, 'digest', '--compare', file('same.digest', RECORDED)], io, '0.1.0'),
    ).to.equal(0);
    expect(sentOperations(requests).map((op) => [op.name, op.variables])).to.deep.equal([
      ['ControlPlaneDigest', {}],
      ['AuditEventHash', { seq: 10 }],
    ]);
    expect(io.out()).to.match(/^registry +same +a{12}$/m);
    expect(io.out()).to.match(/^desired state +same +b{12}$/m);
    expect(io.out()).to.match(/^audit chain +same +holds the backup's 10 events, 2 appended since$/m);
    expect(io.out()).to.contain('the controller holds what the backup did');
  });

  it('--compare: another desired state, a chain that forked or is shorter, each exit 1 and say which', async () => {
    const forked = await serve({
      ControlPlaneDigest: () => ({ data: { controlPlaneDigest: live({ desiredState: 'e'.repeat(64) }) } }),
      AuditEventHash: () => ({ data: { auditEvent: { seq: 10, hash: 'f'.repeat(64) } } }),
    });
    const io = captureIo();
    const recorded = file('other.digest', RECORDED);
    expect(await runCli(['--api-url', forked.url, 'digest', '--compare', recorded], io, '0.1.0')).to.equal(1);
    expect(io.out()).to.match(/^desired state +DIFFERS +backup b{12}, now e{12}$/m);
    expect(io.out()).to.match(/^audit chain +DIFFERS +event 10 is f{12}, the backup's head c{12}$/m);
    expect(io.out()).to.contain('the controller does not hold what the backup did');

    const shorter = await serve({
      ControlPlaneDigest: () => ({ data: { controlPlaneDigest: live({ events: 7 }) } }),
    });
    const json = captureIo();
    expect(
      await runCli(['--json', '--api-url', shorter.url, 'digest', '--compare', recorded], json, '0.1.0'),
    ).to.equal(1);
    const answer = JSON.parse(json.out()) as {
      same: boolean;
      checks: { check: string; same: boolean; detail: string }[];
    };
    expect(answer.same).to.equal(false);
    expect(answer.checks.find((c) => c.check === 'audit chain')).to.deep.equal({
      check: 'audit chain',
      same: false,
      detail: "7 events, fewer than the backup's 10",
    });
  });

  it('refuses a file that is not a digest backup.sh wrote, or cannot be read, before calling the API (exit 64)', async () => {
    const { url, requests } = await serve({});
    for (const path of [
      file('not-key-value.digest', 'hello\n'),
      file('short-hash.digest', RECORDED.replace(REGISTRY, 'abc')),
      file('no-events.digest', RECORDED.replace('audit_events=10\n', '')),
      join(dir, 'missing.digest'),
    ]) {
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'digest', '--compare', path], io, '0.1.0'), path).to.equal(64);
      expect(io.err()).to.contain('USAGE');
    }
    expect(requests).to.have.length(0);
  });
});
