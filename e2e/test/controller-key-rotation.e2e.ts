import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { Client as SshClient } from 'ssh2';
import { createPrivateKey } from 'node:crypto';
import { openSshPrivateKey } from '@lunanexa/agent-protocol';
import {
  deploymentAssignments,
  FleetHarness,
  GraphQLFailure,
  REPO_ROOT,
  waitUntil,
  type AgentProcess,
} from '../src';

/**
 * Controller key rotation on real agents, without re-enrolling a node. Two
 * nodes stay up through the whole rotation; a third is stopped before it
 * starts and comes back after the old key is retired. The rotation announces
 * the new key in signed heartbeat answers and assignments, switches to it,
 * keeps the old key accepted for the overlap, then retires it:
 *
 * - the live agents add the new key during the announce window and, once the
 *   old key is retired, trust only the new one (an SSH login with the old
 *   key is refused);
 * - assignments signed by the new key are accepted during the overlap and
 *   after it (a deployment placed then becomes Ready);
 * - the node that was away is not silently cut off: its condition
 *   ControllerKeyTrusted turns False with the new key's fingerprint and the
 *   command that recovers it, and its agent says the same on /health; after
 *   an operator runs that command on the node, it is trusted and Ready again
 *   under the same node id.
 */

interface RingView {
  phase: string;
  keys: { keyId: string; sshFingerprint: string; state: string }[];
  rotationWorkflowId: string | null;
}

interface NodeView {
  id: string;
  name: string;
  lifecycle: string;
  readiness: string;
  conditions: { type: string; status: string; reason: string; message: string | null }[];
}

const RING = `{ controllerKeyRing { phase rotationWorkflowId keys { keyId sshFingerprint state } } }`;
const ANNOUNCE_SECONDS = 6;
const OVERLAP_SECONDS = 10;

/** Runs the operator CLI (`lunanexa …`) as the local admin; returns its parsed `--json` output. */
function cli(h: FleetHarness, ...args: string[]): unknown {
  const done = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'apps/cli/dist/src/main.js'), '--api-url', h.apiUrl, '--json', ...args],
    {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, LUNANEXA_TOKEN_FILE: join(h.controllerDataDir, 'controller', 'admin.token') },
    },
  );
  if (done.status !== 0)
    throw new Error(`lunanexa ${args.join(' ')} exited ${done.status}: ${done.stderr}${done.stdout}`);
  return JSON.parse(done.stdout) as unknown;
}

async function agentHealth(agent: AgentProcess): Promise<Record<string, unknown>> {
  return (await (await fetch(`http://127.0.0.1:${agent.httpPort}/health`)).json()) as Record<string, unknown>;
}

/** The controller key ids an agent trusts now, as its /health reports them. */
async function trustedKeyIds(agent: AgentProcess): Promise<string[]> {
  const health = await agentHealth(agent);
  const trust = health['controllerTrust'] as { trustedKeyIds?: string[] } | undefined;
  return [...(trust?.trustedKeyIds ?? [])].sort();
}

/** Resolves true when `privateKeyPem` logs in to the agent's SSH port, false when publickey auth is refused. */
function sshLoginAccepted(agent: AgentProcess, privateKeyPem: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const client = new SshClient();
    client
      .on('ready', () => {
        client.end();
        resolve(true);
      })
      .on('error', (error: Error & { level?: string }) => {
        client.end();
        if (error.level === 'client-authentication') resolve(false);
        else reject(error);
      })
      .connect({
        host: '127.0.0.1',
        port: agent.sshPort,
        username: 'lunanexa-controller',
        privateKey: openSshPrivateKey(createPrivateKey(privateKeyPem)),
        // The host key is not what this test is about.
        hostVerifier: () => true,
        readyTimeout: 10_000,
      });
  });
}

describe('controller key rotation: announced, overlapped and retired on real agents; a node that was away is told how to recover', function () {
  this.timeout(360_000);
  let h: FleetHarness;
  const agents = new Map<string, AgentProcess>();
  let awayNodeId = '';
  let oldKey = { keyId: '', sshFingerprint: '' };
  let newKey = { keyId: '', sshFingerprint: '' };
  let oldPrivateKeyPem = '';

  const ring = async () => (await h.graphql<{ controllerKeyRing: RingView }>(RING)).controllerKeyRing;
  const node = async (name: string) =>
    (
      await h.graphql<{ node: NodeView | null }>(
        `query($n: String!) { node(node: $n) { id name lifecycle readiness conditions { type status reason message } } }`,
        { n: name },
      )
    ).node;
  const keyCondition = (view: NodeView | null) =>
    view?.conditions.find((c) => c.type === 'ControllerKeyTrusted');

  async function deployOneReplica(name: string): Promise<void> {
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: name, version: 'v1', ttftMs: 10, tokensPerSecond: 200 } },
    );
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name, model: `${name}@v1`, replicas: 1, purpose: 'Candidate' } },
    );
    await waitUntil(
      `${name} Ready on a live node`,
      async () =>
        (await deploymentAssignments(h, name)).some(
          (a) => a.intent === 'Run' && a.observed_state === 'Ready',
        ),
      120_000,
    );
  }

  before(async () => {
    h = await FleetHarness.start('key_rotation', { leaseSeconds: 15 });
    for (const name of ['rot-a', 'rot-b', 'rot-away']) agents.set(name, await h.startReadyAgent(name));
    awayNodeId = (await node('rot-away'))?.id ?? '';
    await agents.get('rot-away')?.service.kill('SIGTERM');
    await waitUntil(
      'rot-away not Ready',
      async () => (await node('rot-away'))?.readiness !== 'Ready',
      60_000,
    );
    const before = await ring();
    const current = before.keys.find((k) => k.state === 'current');
    oldKey = { keyId: current?.keyId ?? '', sshFingerprint: current?.sshFingerprint ?? '' };
    oldPrivateKeyPem = readFileSync(
      join(h.controllerDataDir, 'controller', 'controller-ed25519.pem'),
      'utf8',
    );
  });

  after(async () => {
    await h?.stop();
  });

  it('starts with one current key that every live agent trusts', async () => {
    const view = await ring();
    expect(view.phase).to.equal('steady');
    expect(view.keys.filter((k) => k.state === 'current')).to.have.length(1);
    for (const name of ['rot-a', 'rot-b']) {
      expect(await trustedKeyIds(agents.get(name) as AgentProcess)).to.deep.equal([oldKey.keyId]);
      expect(keyCondition(await node(name))).to.include({ status: 'True', reason: 'TrustsCurrentKey' });
    }
  });

  it('refuses a rotation with windows out of range or without a reason, and changes nothing', async () => {
    const refused = async (input: Record<string, unknown>) => {
      try {
        await h.graphql(
          `mutation($i: RotateControllerKeyInput!) { rotateControllerKey(input: $i) { rotationId } }`,
          {
            i: input,
          },
        );
      } catch (error) {
        return (error as GraphQLFailure).code;
      }
      return 'accepted';
    };
    expect(await refused({ announceSeconds: 0, reason: 'drill' })).to.equal('VALIDATION_FAILED');
    expect(await refused({ overlapSeconds: 100 * 24 * 3600, reason: 'drill' })).to.equal('VALIDATION_FAILED');
    expect(await refused({ reason: 'x' })).to.equal('VALIDATION_FAILED');
    expect((await ring()).phase).to.equal('steady');
    expect((await ring()).keys).to.have.length(1);
  });

  it('announces the new key: live agents add it while the old key still signs; a second rotation is refused', async () => {
    const started = await h.graphql<{
      rotateControllerKey: {
        rotationId: string;
        workflowId: string;
        nextKey: { keyId: string; sshFingerprint: string };
      };
    }>(
      `mutation($i: RotateControllerKeyInput!) {
         rotateControllerKey(input: $i) { rotationId workflowId nextKey { keyId sshFingerprint } }
       }`,
      {
        i: {
          announceSeconds: ANNOUNCE_SECONDS,
          overlapSeconds: OVERLAP_SECONDS,
          reason: 'key rotation drill',
        },
      },
    );
    newKey = started.rotateControllerKey.nextKey;
    expect(newKey.keyId).to.not.equal(oldKey.keyId);
    const view = await ring();
    expect(view.phase).to.equal('announced');
    expect(view.rotationWorkflowId).to.equal(started.rotateControllerKey.workflowId);
    try {
      await h.graphql(`mutation { rotateControllerKey(input: { reason: "second drill" }) { rotationId } }`);
      expect.fail('a second rotation was accepted');
    } catch (error) {
      expect((error as GraphQLFailure).code).to.equal('CONFLICT');
    }
    for (const name of ['rot-a', 'rot-b']) {
      await waitUntil(
        `${name} trusts the announced key`,
        async () => (await trustedKeyIds(agents.get(name) as AgentProcess)).includes(newKey.keyId),
        30_000,
      );
    }
  });

  it('switches: the new key signs, the old one is still accepted, and an assignment signed by the new key is Ready', async () => {
    await waitUntil('the switch', async () => (await ring()).phase === 'overlap', 60_000);
    const view = await ring();
    expect(view.keys.find((k) => k.state === 'current')?.keyId).to.equal(newKey.keyId);
    expect(view.keys.find((k) => k.state === 'previous')?.keyId).to.equal(oldKey.keyId);
    await deployOneReplica('rot-overlap');
    for (const name of ['rot-a', 'rot-b']) {
      expect(await trustedKeyIds(agents.get(name) as AgentProcess)).to.deep.equal(
        [oldKey.keyId, newKey.keyId].sort(),
      );
    }
  });

  it('retires the old key: live agents trust only the new one and refuse an SSH login with the old key', async () => {
    await waitUntil(
      'the old key retired',
      async () => (await ring()).keys.find((k) => k.keyId === oldKey.keyId)?.state === 'retired',
      90_000,
    );
    for (const name of ['rot-a', 'rot-b']) {
      const agent = agents.get(name) as AgentProcess;
      await waitUntil(
        `${name} trusts only the new key`,
        async () => JSON.stringify(await trustedKeyIds(agent)) === JSON.stringify([newKey.keyId]),
        30_000,
      );
      expect(await sshLoginAccepted(agent, oldPrivateKeyPem)).to.equal(false);
      expect(keyCondition(await node(name))).to.include({ status: 'True', reason: 'TrustsCurrentKey' });
    }
    const audit = await h.graphql<{ auditEvents: { events: { action: string }[] } }>(
      `{ auditEvents(filter: { action: "controller-key.*" }, first: 20) { events { action } } }`,
    );
    expect(audit.auditEvents.events.map((e) => e.action)).to.include.members([
      'controller-key.announced',
      'controller-key.activated',
      'controller-key.retired',
    ]);
    await deployOneReplica('rot-after');
  });

  it('tells the node that was away how to recover, and recovers it without re-enrolling', async () => {
    const away = await h.startAgent('rot-away');
    agents.set('rot-away', away);
    const untrusted = await waitUntil(
      'rot-away ControllerKeyTrusted False',
      async () => {
        const condition = keyCondition(await node('rot-away'));
        return condition?.status === 'False' ? condition : null;
      },
      60_000,
    );
    expect(untrusted.reason).to.equal('ControllerKeyNotTrusted');
    expect(untrusted.message).to.contain(newKey.sshFingerprint);
    expect(untrusted.message).to.contain('lunanexa-agent trust-controller-key');
    const health = await agentHealth(away);
    const trust = health['controllerTrust'] as { state: string; recovery: string };
    expect(trust.state).to.equal('untrusted-signer');
    expect(trust.recovery).to.contain(newKey.sshFingerprint);
    // An operator checks the fingerprint the node names against `lunanexa controller-keys list`, then pins it.
    const listed = cli(h, 'controller-keys', 'list') as { keys: { sshFingerprint: string; state: string }[] };
    expect(listed.keys.find((k) => k.state === 'current')?.sshFingerprint).to.equal(newKey.sshFingerprint);
    await away.service.kill('SIGTERM');
    const pinned = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'apps/agent/dist/src/main.js'),
        'trust-controller-key',
        '--config',
        away.configFile,
        '--fingerprint',
        newKey.sshFingerprint,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(pinned.status, pinned.stderr + pinned.stdout).to.equal(0);
    agents.set('rot-away', await h.startAgent('rot-away'));
    await waitUntil(
      'rot-away trusted and Ready again',
      async () => {
        const view = await node('rot-away');
        return keyCondition(view)?.status === 'True' && view?.readiness === 'Ready' ? view : null;
      },
      60_000,
    );
    const view = await node('rot-away');
    expect(view?.id).to.equal(awayNodeId);
    expect(view?.lifecycle).to.equal('Active');
  });
});
