import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { ed25519KeyId, openSshPublicKey } from '@lunanexa/agent-protocol';
import { ErrorCode } from '@lunanexa/contracts';
import { expect } from 'chai';
import { AgentSetupError } from '../src/agent';
import type { AgentConfig } from '../src/config';
import { EnrollmentError } from '../src/enrollment/errors';
import { ENROLLMENT_FILE } from '../src/enrollment/state';
import { NODE_KEY_FILE } from '../src/ssh/keys';
import {
  eventually,
  makeEnrollingControllerKey,
  problem,
  TEST_TOKEN,
  TestController,
} from './controller-support';
import {
  anAssignment,
  capturingLogger,
  connectAs,
  NODE_NAME,
  nodePublicKey,
  openProtocol,
  signedPut,
  signedStatusGet,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type SshTestAgent,
} from './ssh-support';
import { freePort } from './support';

/** Enrolling config: no static controller key, the controller's URL and pinned fingerprint. */
function enrolling(controller: TestController, extra: Partial<AgentConfig> = {}) {
  return (config: AgentConfig): AgentConfig => ({
    ...config,
    controllerUrl: controller.url,
    controllerKeyFingerprint: controller.key.fingerprint,
    advertiseAddress: '127.0.0.1',
    labels: { 'lunanexa.io/rack': 'r1' },
    ssh: { ...(config.ssh as NonNullable<AgentConfig['ssh']>), authorizedControllerKeys: [] },
    // Heartbeats are the subject of heartbeat.spec; here they only must not get in the way.
    heartbeatIntervalSeconds: 300,
    ...extra,
  });
}

const FAST_RETRY = { initialDelayMs: 20, maxDelayMs: 50, deadlineMs: 2_000, requestTimeoutMs: 2_000 };

async function startFailure(run: () => Promise<SshTestAgent>): Promise<unknown> {
  try {
    const agent = await run();
    await agent.close();
  } catch (error: unknown) {
    return error;
  }
  throw new Error('expected the agent not to start');
}

describe('agent enrollment', function () {
  this.timeout(30_000);
  let controller: TestController;
  let dataDir: string;
  const agents: SshTestAgent[] = [];

  beforeEach(async () => {
    controller = await new TestController().start();
    dataDir = tempDataDir();
  });
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close({ stopRuntimes: true })));
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('enrolls with a signed request, pins the controller key by fingerprint and persists who it is (0600)', async () => {
    const agent = await startSshAgent(dataDir, [], {
      config: enrolling(controller),
      bootstrapToken: TEST_TOKEN,
    });
    agents.push(agent);
    expect(controller.enrolls).to.have.length(1);
    const request = controller.enrolls[0].envelope;
    const nodeKey = nodePublicKey(dataDir);
    // Proof of possession: signed by the node key it presents, under that key's own id.
    expect(request.signature.keyId).to.equal(ed25519KeyId(nodeKey));
    expect(request.nodeId).to.equal(NODE_NAME);
    expect(request.body).to.deep.include({
      bootstrapToken: TEST_TOKEN,
      nodeName: NODE_NAME,
      publicKey: openSshPublicKey(nodeKey),
      labels: { 'lunanexa.io/rack': 'r1' },
      address: '127.0.0.1',
    });
    expect(request.body.ssh).to.deep.equal({
      port: agent.sshPort,
      hostKeyFingerprint: agent.hostKeyFingerprint,
    });
    expect(request.body.inventory.gpus).to.have.length(1);

    expect(agent.nodeId).to.equal(controller.nodeId);
    const file = join(dataDir, ENROLLMENT_FILE);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.include({
      format: 'lunanexa-agent-enrollment-v1',
      nodeId: controller.nodeId,
      nodeName: NODE_NAME,
      controllerKeyId: controller.key.keyId,
      controllerPublicKey: controller.key.publicLine,
      workflowId: `enroll-node/${controller.nodeId}`,
      heartbeatIntervalSeconds: 5,
      leaseDurationSeconds: 20,
    });
    const health = agent.health();
    expect(health.enrollment).to.deep.include({
      enrolled: true,
      nodeId: controller.nodeId,
      controllerKeyId: controller.key.keyId,
    });
    expect(health.ssh?.controllerKeyIds).to.deep.equal([controller.key.keyId]);
  });

  it('trusts the enrolled controller key over SSH, for assignments addressed to the new node id', async () => {
    const agent = await startSshAgent(dataDir, [], {
      config: enrolling(controller),
      bootstrapToken: TEST_TOKEN,
    });
    agents.push(agent);
    const client = await connectAs(agent, controller.key);
    try {
      const stream = await openProtocol(client);
      const put = signedPut(controller.key, anAssignment({ nodeId: controller.nodeId, generation: 2 }));
      stream.send(put);
      const ack = verifyReply(agent, await stream.next(), 'assignment.ack');
      expect(ack.nodeId).to.equal(controller.nodeId);
      expect(ack.body).to.deep.include({ inReplyTo: put.id, result: 'accepted' });
      // The node name is no longer this node's address on the channel.
      stream.send(signedStatusGet(controller.key, NODE_NAME));
      expect(verifyReply(agent, await stream.next(), 'error').body.code).to.equal(
        ErrorCode.VALIDATION_FAILED,
      );
    } finally {
      client.end();
    }
  });

  it('does not enroll again once enrolled: the token is ignored (with a log line), the identity kept', async () => {
    const first = await startSshAgent(dataDir, [], {
      config: enrolling(controller),
      bootstrapToken: TEST_TOKEN,
    });
    await first.close();
    const { logger, lines } = capturingLogger();
    const agent = await startSshAgent(dataDir, [], {
      config: enrolling(controller),
      bootstrapToken: TEST_TOKEN,
      logger,
    });
    agents.push(agent);
    expect(controller.enrolls).to.have.length(1);
    expect(agent.nodeId).to.equal(controller.nodeId);
    expect(lines().some((line) => String(line['msg']).includes('bootstrap token is not needed'))).to.equal(
      true,
    );
    await agent.close();
    agents.pop();
    // And an enrolled agent needs no token at all.
    const again = await startSshAgent(dataDir, [], { config: enrolling(controller) });
    agents.push(again);
    expect(again.nodeId).to.equal(controller.nodeId);
    expect(controller.enrolls).to.have.length(1);
  });

  it('refuses an answer whose controller key does not have the pinned fingerprint; nothing is kept', async () => {
    const impostor = makeEnrollingControllerKey();
    controller.enrollQueue.push((request) =>
      controller.enrollAnswer(request, {
        body: { controllerKeyId: impostor.keyId, controllerPublicKey: impostor.publicLine },
        signer: impostor.privateKey,
      }),
    );
    const error = await startFailure(() =>
      startSshAgent(dataDir, [], { config: enrolling(controller), bootstrapToken: TEST_TOKEN }),
    );
    expect(error).to.be.instanceOf(EnrollmentError);
    expect(error).to.deep.include({ failure: 'untrusted-response', code: ErrorCode.SIGNATURE_INVALID });
    expect((error as Error).message).to.contain(controller.key.fingerprint);
    expect(existsSync(join(dataDir, ENROLLMENT_FILE))).to.equal(false);
    expect(controller.enrolls).to.have.length(1);
  });

  it('refuses a forged answer: the pinned key and id, signed by another key', async () => {
    const forger = generateKeyPairSync('ed25519').privateKey;
    controller.enrollQueue.push((request) => controller.enrollAnswer(request, { signer: forger }));
    const error = await startFailure(() =>
      startSshAgent(dataDir, [], { config: enrolling(controller), bootstrapToken: TEST_TOKEN }),
    );
    expect(error).to.deep.include({ failure: 'untrusted-response', code: ErrorCode.SIGNATURE_INVALID });
    expect(existsSync(join(dataDir, ENROLLMENT_FILE))).to.equal(false);
  });

  it('refuses an answer to another request, and one naming a key id that is not the key’s own', async () => {
    controller.enrollQueue.push((request) =>
      controller.enrollAnswer(request, { body: { inReplyTo: 'msg-other' } }),
    );
    expect(
      await startFailure(() =>
        startSshAgent(dataDir, [], { config: enrolling(controller), bootstrapToken: TEST_TOKEN }),
      ),
    ).to.deep.include({ failure: 'untrusted-response', code: ErrorCode.VALIDATION_FAILED });
    controller.enrollQueue.push((request) =>
      controller.enrollAnswer(request, { body: { controllerKeyId: 'controller-1' } }),
    );
    expect(
      await startFailure(() =>
        startSshAgent(dataDir, [], { config: enrolling(controller), bootstrapToken: TEST_TOKEN }),
      ),
    ).to.deep.include({ failure: 'untrusted-response', code: ErrorCode.SIGNATURE_INVALID });
  });

  it('fails with the problem code when the controller refuses the token (TOKEN_REUSED), without retrying', async () => {
    controller.enrollQueue.push(() =>
      problem(401, ErrorCode.TOKEN_REUSED, 'the bootstrap token was already used'),
    );
    const error = await startFailure(() =>
      startSshAgent(dataDir, [], {
        config: enrolling(controller),
        bootstrapToken: TEST_TOKEN,
        enrollRetry: FAST_RETRY,
      }),
    );
    expect(error).to.be.instanceOf(EnrollmentError);
    expect(error).to.deep.include({ failure: 'refused', code: ErrorCode.TOKEN_REUSED, status: 401 });
    expect((error as Error).message).to.contain('already used');
    expect(controller.enrolls).to.have.length(1);
    expect(existsSync(join(dataDir, ENROLLMENT_FILE))).to.equal(false);
  });

  it('retries a busy or unreachable controller with a fresh envelope each time, then enrolls', async () => {
    controller.enrollQueue.push(
      () => problem(503, ErrorCode.DEPENDENCY_UNAVAILABLE),
      () => null,
    );
    const agent = await startSshAgent(dataDir, [], {
      config: enrolling(controller),
      bootstrapToken: TEST_TOKEN,
      enrollRetry: FAST_RETRY,
    });
    agents.push(agent);
    expect(controller.enrolls).to.have.length(3);
    const nonces = new Set(controller.enrolls.map((received) => received.envelope.nonce));
    expect(nonces.size).to.equal(3);
    expect(agent.nodeId).to.equal(controller.nodeId);
  });

  it('gives up after the retry window when nothing answers (unreachable, exit 1 territory)', async () => {
    const port = await freePort();
    const error = await startFailure(() =>
      startSshAgent(dataDir, [], {
        config: (config) => ({ ...enrolling(controller)(config), controllerUrl: `http://127.0.0.1:${port}` }),
        bootstrapToken: TEST_TOKEN,
        enrollRetry: { ...FAST_RETRY, deadlineMs: 300 },
      }),
    );
    expect(error).to.deep.include({ failure: 'unreachable' });
    expect((error as Error).message).to.contain('ECONNREFUSED');
  });

  it('names what is missing before it spends a token: the fingerprint, or any way to be trusted', async () => {
    const noFingerprint = await startFailure(() =>
      startSshAgent(dataDir, [], {
        config: (config) => ({ ...enrolling(controller)(config), controllerKeyFingerprint: undefined }),
        bootstrapToken: TEST_TOKEN,
      }),
    );
    expect(noFingerprint).to.be.instanceOf(AgentSetupError);
    expect(noFingerprint).to.deep.include({ field: 'controllerKeyFingerprint' });
    const nothing = await startFailure(() => startSshAgent(dataDir, [], { config: enrolling(controller) }));
    expect(nothing).to.deep.include({ field: '--bootstrap-token' });
    expect(controller.enrolls).to.have.length(0);
    expect(existsSync(join(dataDir, NODE_KEY_FILE))).to.equal(true);
  });
});

describe('lunanexa-agent process enrollment', function () {
  this.timeout(30_000);
  const MAIN = join(__dirname, '..', 'src', 'main.js');
  let controller: TestController;
  let dataDir: string;
  beforeEach(async () => {
    controller = await new TestController().start();
    dataDir = tempDataDir();
  });
  afterEach(async () => {
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 78 naming --bootstrap-token and the code when the token was already used, never printing it', async () => {
    controller.enrollQueue.push(() =>
      problem(401, ErrorCode.TOKEN_REUSED, 'the bootstrap token was already used'),
    );
    const file = join(dataDir, 'agent.json');
    writeFileSync(
      file,
      JSON.stringify({
        nodeName: NODE_NAME,
        listen: { host: '127.0.0.1', port: await freePort() },
        dataDir: join(dataDir, 'state'),
        controllerUrl: controller.url,
        controllerKeyFingerprint: controller.key.fingerprint,
        inventory: { source: 'simulated' },
        ssh: { host: '127.0.0.1', port: await freePort() },
      }),
    );
    const child = spawn(process.execPath, [MAIN, '--config', file], {
      env: { ...process.env, LUNANEXA_BOOTSTRAP_TOKEN: TEST_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit)));
    expect(code).to.equal(78);
    expect(stderr).to.contain('--bootstrap-token').and.contain('TOKEN_REUSED');
    expect(stdout + stderr).not.to.contain(TEST_TOKEN);
    await eventually(() => controller.enrolls.length === 1, 1000, 'one enroll request');
  });
});
