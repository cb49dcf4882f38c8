import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  MAX_TRUSTED_CONTROLLER_KEYS,
  sshFingerprint,
  type ControllerKeyNotice,
  type ControllerKeysResponse,
} from '@lunanexa/agent-protocol';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { parseAgentArgs, UsageError } from '../src/args';
import { decideControllerKeyNotice, type TrustedKeyView } from '../src/controller-trust/notice';
import { pinControllerKey } from '../src/controller-trust/pin';
import {
  CONTROLLER_TRUST_FILE,
  EMPTY_CONTROLLER_TRUST_STATE,
  loadControllerTrustState,
  type ControllerTrustState,
} from '../src/controller-trust/state';
import { ControllerKeyTrustStore, fingerprintOfKeyId, keyIdOfBlob } from '../src/controller-trust/store';
import { sshEd25519PublicBlob } from '@lunanexa/agent-protocol';
import { makeEnrollingControllerKey, type EnrollingControllerKey } from './controller-support';
import { capturingLogger, sshAgentConfig, tempDataDir } from './ssh-support';

const NOW = new Date('2026-12-06T12:00:00.000Z');

function announce(
  signer: EnrollingControllerKey,
  next: EnrollingControllerKey,
  retired: string[] = [],
): ControllerKeyNotice {
  return {
    signingKeyId: signer.keyId,
    next: { keyId: next.keyId, publicKey: next.publicLine, rotationId: 'rot-0001' },
    retiredKeyIds: retired,
  };
}

function retire(signer: EnrollingControllerKey, ...keyIds: string[]): ControllerKeyNotice {
  return { signingKeyId: signer.keyId, next: null, retiredKeyIds: keyIds };
}

function views(...keys: { keyId: string }[]): TrustedKeyView[] {
  return keys.map((key) => ({ keyId: key.keyId, source: 'config' }));
}

describe('controller key ring notices (decision)', () => {
  const a = makeEnrollingControllerKey();
  const b = makeEnrollingControllerKey();
  const c = makeEnrollingControllerKey();

  function decide(
    notice: ControllerKeyNotice,
    trusted: TrustedKeyView[],
    state: ControllerTrustState = EMPTY_CONTROLLER_TRUST_STATE,
    signer = a.keyId,
  ) {
    return decideControllerKeyNotice({ notice, signerKeyId: signer, trusted, state, now: NOW });
  }

  it('trusts an announced key whose id is the one its public key derives, and records it', () => {
    const decision = decide(announce(a, b), views(a));
    expect(decision.kind).to.equal('apply');
    if (decision.kind !== 'apply') return;
    expect(decision.changed).to.equal(true);
    expect(decision.add).to.deep.equal({
      keyId: b.keyId,
      publicKey: b.publicLine,
      rotationId: 'rot-0001',
      addedAt: NOW.toISOString(),
    });
    expect(decision.remove).to.deep.equal([]);
    expect(decision.state.announced.map((entry) => entry.keyId)).to.deep.equal([b.keyId]);
  });

  it('is idempotent: the same notice once the key is trusted changes nothing', () => {
    const first = decide(announce(a, b), views(a));
    if (first.kind !== 'apply') throw new Error('not applied');
    const again = decide(announce(a, b), views(a, b), first.state);
    expect(again).to.deep.include({ kind: 'apply', changed: false, add: null, remove: [] });
    if (again.kind === 'apply') expect(again.state).to.deep.equal(first.state);
    const retired = decide(retire(b, a.keyId), views(a, b), first.state, b.keyId);
    if (retired.kind !== 'apply') throw new Error('not applied');
    expect(retired.remove).to.deep.equal([a.keyId]);
    const retiredAgain = decide(retire(b, a.keyId), views(b), retired.state, b.keyId);
    expect(retiredAgain).to.deep.include({ changed: false, remove: [] });
  });

  it('ignores a notice naming another signer than the envelope’s', () => {
    const decision = decide(announce(b, c, [a.keyId]), views(a, b), EMPTY_CONTROLLER_TRUST_STATE, a.keyId);
    expect(decision.kind).to.equal('ignored');
    if (decision.kind === 'ignored') expect(decision.reason).to.contain(b.keyId).and.contain(a.keyId);
  });

  it('refuses an announced key whose key id is not its public key’s', () => {
    const notice: ControllerKeyNotice = {
      signingKeyId: a.keyId,
      next: { keyId: c.keyId, publicKey: b.publicLine, rotationId: 'rot-0001' },
      retiredKeyIds: [],
    };
    const decision = decide(notice, views(a));
    if (decision.kind !== 'apply') throw new Error('not applied');
    expect(decision.add).to.equal(null);
    expect(decision.changed).to.equal(false);
    expect(decision.skipped.map((s) => [s.keyId, s.reason])).to.deep.equal([[c.keyId, 'key-id-mismatch']]);
  });

  it('retires trusted keys, remembers them, and never the key that signed the notice', () => {
    const decision = decide(retire(a, a.keyId, b.keyId, c.keyId), views(a, b));
    if (decision.kind !== 'apply') throw new Error('not applied');
    expect(decision.remove).to.deep.equal([b.keyId]);
    expect(decision.state.retiredKeyIds).to.deep.equal([b.keyId]);
    expect(decision.skipped.map((s) => [s.keyId, s.reason])).to.deep.equal([[a.keyId, 'signer']]);
  });

  it('never removes the last trusted key', () => {
    // A signer that is not (or no longer) in the trusted list cannot happen after verification; the rule holds anyway.
    const decision = decide(retire(c, a.keyId, b.keyId), views(a, b), EMPTY_CONTROLLER_TRUST_STATE, c.keyId);
    if (decision.kind !== 'apply') throw new Error('not applied');
    expect(decision.remove).to.deep.equal([a.keyId]);
    expect(decision.skipped.map((s) => [s.keyId, s.reason])).to.deep.equal([[b.keyId, 'last-key']]);
  });

  it(`trusts at most ${MAX_TRUSTED_CONTROLLER_KEYS} keys, counting the ones the same notice retires`, () => {
    const full = Array.from({ length: MAX_TRUSTED_CONTROLLER_KEYS }, (_, i) => ({ keyId: `ctrl-${i}` }));
    const trusted = views(a, ...full.slice(1));
    const refused = decide(announce(a, b), trusted);
    if (refused.kind !== 'apply') throw new Error('not applied');
    expect(refused.add).to.equal(null);
    expect(refused.skipped.map((s) => s.reason)).to.deep.equal(['too-many-keys']);
    const roomMade = decide(announce(a, b, ['ctrl-1']), trusted);
    if (roomMade.kind !== 'apply') throw new Error('not applied');
    expect(roomMade.remove).to.deep.equal(['ctrl-1']);
    expect(roomMade.add?.keyId).to.equal(b.keyId);
  });

  it('takes a re-announced key off the retired list and drops a retired key from the announced ones', () => {
    const state: ControllerTrustState = {
      ...EMPTY_CONTROLLER_TRUST_STATE,
      announced: [
        { keyId: c.keyId, publicKey: c.publicLine, rotationId: 'rot-0000', addedAt: NOW.toISOString() },
      ],
      retiredKeyIds: [b.keyId],
    };
    const decision = decide(announce(a, b, [c.keyId]), views(a, c), state);
    if (decision.kind !== 'apply') throw new Error('not applied');
    expect(decision.state.announced.map((entry) => entry.keyId)).to.deep.equal([b.keyId]);
    expect(decision.state.retiredKeyIds).to.deep.equal([c.keyId]);
  });

  it('converts an ed25519 key id to the SSH fingerprint an operator compares', () => {
    expect(fingerprintOfKeyId(a.keyId)).to.equal(a.fingerprint);
    expect(keyIdOfBlob(sshEd25519PublicBlob(a.publicKey))).to.equal(a.keyId);
    expect(fingerprintOfKeyId('ctrl-a')).to.equal(null);
  });
});

describe('controller trust store (trust file across restarts)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('persists announced keys and retirements; a restart trusts the same keys and skips a retired config key', async () => {
    const a = makeEnrollingControllerKey();
    const b = makeEnrollingControllerKey();
    const captured = capturingLogger();
    const open = () =>
      ControllerKeyTrustStore.open({
        dataDir,
        configured: [{ keyId: a.keyId, publicKey: a.publicKey }],
        logger: captured.logger,
        now: () => NOW,
      });
    const store = await open();
    const verification = store.trust.publicKeys;
    await store.applyNotice(announce(a, b), a.keyId, 'heartbeat.ack');
    expect(store.trust.keyIds()).to.deep.equal([a.keyId, b.keyId].sort());
    // The live view the SSH server and envelope verification hold sees the change.
    expect(verification.has(b.keyId)).to.equal(true);
    const file = join(dataDir, CONTROLLER_TRUST_FILE);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const written = readFileSync(file, 'utf8');
    const { mtimeMs } = statSync(file);

    // The same notice every second: nothing changes, nothing is written, one log line in all.
    for (let i = 0; i < 3; i += 1) await store.applyNotice(announce(a, b), a.keyId, 'heartbeat.ack');
    expect(readFileSync(file, 'utf8')).to.equal(written);
    expect(statSync(file).mtimeMs).to.equal(mtimeMs);
    expect(captured.lines().filter((line) => line.event === 'controller_key_announced')).to.have.length(1);
    const announced = captured.lines().find((line) => line.event === 'controller_key_announced');
    expect(announced).to.deep.include({ keyId: b.keyId, fingerprint: b.fingerprint, rotationId: 'rot-0001' });

    // A notice in another signer's name is ignored (and logged once).
    await store.applyNotice(retire(b, a.keyId), a.keyId, 'assignment.put');
    await store.applyNotice(retire(b, a.keyId), a.keyId, 'assignment.put');
    expect(store.trust.keyIds()).to.include(a.keyId);
    expect(captured.lines().filter((line) => line.event === 'controller_key_notice_ignored')).to.have.length(
      1,
    );

    await store.applyNotice(retire(b, a.keyId, b.keyId), b.keyId, 'assignment.put');
    expect(store.trust.keyIds()).to.deep.equal([b.keyId]);
    expect(verification.has(a.keyId)).to.equal(false);
    expect(await loadControllerTrustState(dataDir)).to.deep.include({ retiredKeyIds: [a.keyId] });

    const restarted = await open();
    expect(restarted.trust.keyIds()).to.deep.equal([b.keyId]);
    expect(restarted.trust.get(b.keyId)?.source).to.equal('announced');
    const skipped = captured.lines().filter((line) => line.event === 'controller_key_retired_skipped');
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.deep.include({ keyId: a.keyId, source: 'config' });
    expect(String(skipped[0]?.msg)).to.contain(a.keyId).and.contain('ssh.authorizedControllerKeys');
  });

  it('refuses to start from a trust file that does not validate or names a key by another id', async () => {
    const a = makeEnrollingControllerKey();
    const b = makeEnrollingControllerKey();
    const opening = async (): Promise<Error | null> => {
      try {
        await ControllerKeyTrustStore.open({ dataDir, configured: [], logger: capturingLogger().logger });
        return null;
      } catch (caught: unknown) {
        return caught as Error;
      }
    };
    writeFileSync(join(dataDir, CONTROLLER_TRUST_FILE), '{"format":"lunanexa-agent-controller-trust-v1"}');
    expect((await opening())?.name).to.equal('ControllerTrustStateError');
    const swapped: ControllerTrustState = {
      ...EMPTY_CONTROLLER_TRUST_STATE,
      announced: [{ keyId: a.keyId, publicKey: b.publicLine, rotationId: null, addedAt: NOW.toISOString() }],
    };
    writeFileSync(join(dataDir, CONTROLLER_TRUST_FILE), JSON.stringify(swapped));
    const error = await opening();
    expect(error?.name).to.equal('ControllerTrustStateError');
    expect(error?.message).to.contain('does not match its publicKey');
  });
});

/** Serves `GET /agent/v1/controller-keys` as the api does. */
async function controllerKeysServer(
  keys: ControllerKeysResponse['keys'],
): Promise<{ url: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.method === 'GET' && req.url === '/agent/v1/controller-keys') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys }));
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

describe('lunanexa-agent trust-controller-key', function () {
  this.timeout(30_000);
  let dataDir: string;
  let api: Awaited<ReturnType<typeof controllerKeysServer>>;
  const current = makeEnrollingControllerKey();
  const previous = makeEnrollingControllerKey();
  const file = () => join(dataDir, CONTROLLER_TRUST_FILE);

  beforeEach(async () => {
    dataDir = tempDataDir();
    api = await controllerKeysServer([
      {
        keyId: current.keyId,
        publicKey: current.publicLine,
        sshFingerprint: current.fingerprint,
        state: 'current',
      },
      {
        keyId: previous.keyId,
        publicKey: previous.publicLine,
        sshFingerprint: previous.fingerprint,
        state: 'previous',
      },
    ]);
  });
  afterEach(() => {
    api.server.close();
    api.server.closeAllConnections();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function config() {
    return { ...sshAgentConfig(dataDir, []), controllerUrl: `${api.url}/` };
  }

  it('pins the controller key with the given fingerprint and takes it off the retired list', async () => {
    writeFileSync(
      file(),
      JSON.stringify({ ...EMPTY_CONTROLLER_TRUST_STATE, retiredKeyIds: [current.keyId] }),
      { mode: 0o600 },
    );
    const outcome = await pinControllerKey({ config: config(), fingerprint: current.fingerprint, now: NOW });
    expect(outcome.exitCode).to.equal(0);
    expect(outcome.lines.join('\n')).to.contain(current.keyId).and.contain('restart the agent');
    expect(api.requests).to.deep.equal(['GET /agent/v1/controller-keys']);
    const state = await loadControllerTrustState(dataDir);
    expect(state.announced).to.deep.equal([
      { keyId: current.keyId, publicKey: current.publicLine, rotationId: null, addedAt: NOW.toISOString() },
    ]);
    expect(state.retiredKeyIds).to.deep.equal([]);
    expect(statSync(file()).mode & 0o777).to.equal(0o600);

    // The agent trusts it at its next start.
    const store = await ControllerKeyTrustStore.open({
      dataDir,
      configured: [],
      logger: capturingLogger().logger,
    });
    expect(store.trust.keyIds()).to.deep.equal([current.keyId]);
    expect(sshFingerprint(store.trust.list()[0]?.publicKey ?? current.publicKey)).to.equal(
      current.fingerprint,
    );

    const again = await pinControllerKey({ config: config(), fingerprint: current.fingerprint });
    expect(again.exitCode).to.equal(0);
    expect(again.lines.join('\n')).to.contain('already trusted');
  });

  it('refuses a fingerprint the controller does not offer (exit 2) and writes nothing', async () => {
    const stranger = makeEnrollingControllerKey();
    const outcome = await pinControllerKey({ config: config(), fingerprint: stranger.fingerprint });
    expect(outcome.exitCode).to.equal(2);
    expect(outcome.lines.join('\n')).to.contain(stranger.fingerprint).and.contain(current.fingerprint);
    expect(existsSync(file())).to.equal(false);
  });

  it('refuses a key whose key id or fingerprint is not its public key’s (exit 2)', async () => {
    api.server.close();
    api.server.closeAllConnections();
    api = await controllerKeysServer([
      {
        keyId: previous.keyId,
        publicKey: current.publicLine,
        sshFingerprint: current.fingerprint,
        state: 'current',
      },
      {
        keyId: current.keyId,
        publicKey: current.publicLine,
        sshFingerprint: previous.fingerprint,
        state: 'previous',
      },
    ]);
    const wrongId = await pinControllerKey({ config: config(), fingerprint: current.fingerprint });
    expect(wrongId.exitCode).to.equal(2);
    expect(wrongId.lines.join('\n')).to.contain(`key id ${current.keyId}`);
    const wrongFingerprint = await pinControllerKey({ config: config(), fingerprint: previous.fingerprint });
    expect(wrongFingerprint.exitCode).to.equal(2);
    expect(existsSync(file())).to.equal(false);
  });

  it('pins offline with --public-key, still checked against --fingerprint', async () => {
    const offline = { ...config(), controllerUrl: 'http://127.0.0.1:9' };
    const mismatch = await pinControllerKey({
      config: offline,
      fingerprint: previous.fingerprint,
      publicKey: current.publicLine,
    });
    expect(mismatch.exitCode).to.equal(2);
    expect(existsSync(file())).to.equal(false);
    const pinned = await pinControllerKey({
      config: offline,
      fingerprint: current.fingerprint,
      publicKey: `${current.publicLine} ops@example`,
    });
    expect(pinned.exitCode).to.equal(0);
    expect((await loadControllerTrustState(dataDir)).announced.map((entry) => entry.keyId)).to.deep.equal([
      current.keyId,
    ]);
  });

  it('as a command: exit 0 and the file, or exit 2 and no file', async () => {
    const configFile = join(dataDir, 'agent.yaml');
    writeFileSync(
      configFile,
      stringify({
        nodeName: 'spark-01',
        listen: { host: '127.0.0.1', port: 9464 },
        dataDir,
        controllerUrl: api.url,
        inventory: { source: 'simulated', profile: 'dgx-spark' },
      }),
    );
    const main = join(__dirname, '..', 'src', 'main.js');
    const run = async (args: string[]) => {
      const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stdout, stderr };
    };
    const stranger = makeEnrollingControllerKey();
    const refused = await run([
      'trust-controller-key',
      '--config',
      configFile,
      '--fingerprint',
      stranger.fingerprint,
    ]);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('no key with fingerprint');
    expect(existsSync(file())).to.equal(false);
    const pinned = await run([
      'trust-controller-key',
      '--config',
      configFile,
      '--fingerprint',
      current.fingerprint,
    ]);
    expect(pinned.code, pinned.stderr).to.equal(0);
    expect(pinned.stdout).to.contain(`trusted controller key ${current.keyId}`);
    expect(existsSync(file())).to.equal(true);
  });
});

describe('trust-controller-key command line', () => {
  it('takes --config, --fingerprint and --public-key; --fingerprint is required', () => {
    const fingerprint = makeEnrollingControllerKey().fingerprint;
    expect(
      parseAgentArgs(['trust-controller-key', '--config', 'agent.yaml', '--fingerprint', fingerprint], {}),
    ).to.deep.equal({ kind: 'trust-controller-key', configFile: 'agent.yaml', fingerprint, publicKey: null });
    expect(
      parseAgentArgs(
        ['trust-controller-key', '--fingerprint', fingerprint, '--public-key', 'ssh-ed25519 AAAA'],
        { LUNANEXA_AGENT_CONFIG: '/etc/agent.yaml' },
      ),
    ).to.deep.include({ configFile: '/etc/agent.yaml', publicKey: 'ssh-ed25519 AAAA' });
    expect(() => parseAgentArgs(['trust-controller-key', '--config', 'agent.yaml'], {})).to.throw(
      UsageError,
      /--fingerprint/,
    );
    expect(() =>
      parseAgentArgs(
        [
          'trust-controller-key',
          '--config',
          'a.yaml',
          '--fingerprint',
          fingerprint,
          '--bootstrap-token',
          'x',
        ],
        {},
      ),
    ).to.throw(UsageError);
  });
});
