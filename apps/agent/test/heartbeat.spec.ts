import { spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createEnvelope,
  ed25519KeyId,
  inventoryDigest,
  MAC_ALGORITHM,
  macEnvelope,
  parseEd25519PublicKey,
  rotationProofInput,
  signNodeCredential,
} from '@lunanexa/agent-protocol';
import { ErrorCode } from '@lunanexa/contracts';
import { expect } from 'chai';
import { CREDENTIAL_FILE } from '../src/heartbeat/credential';
import { RUNTIME_ASSIGNMENT_ENV, RUNTIME_OWNER_ENV } from '../src/reconcile/proc';
import { runtimeOwnerTag } from '../src/reconcile/reconciler';
import { signalGroup } from '../src/runtimes/process-group';
import { DEFAULT_SEQUENCE_RESERVATION, HEARTBEAT_STATE_FILE } from '../src/heartbeat/sequence';
import { NEXT_NODE_KEY_FILE, NODE_KEY_FILE } from '../src/ssh/keys';
import { SIMULATED_GPU_FAULTS_FILE } from '../src/telemetry/simulated';
import { beatNow, enrolledWith, eventually, problem, TEST_TOKEN, TestController } from './controller-support';
import { isAlive } from './runtimes/support';
import {
  anAssignment,
  connectAs,
  makeControllerKey,
  openProtocol,
  outcome,
  signedPut,
  signedStatusGet,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type SshTestAgent,
} from './ssh-support';

describe('agent heartbeats', function () {
  this.timeout(30_000);
  let controller: TestController;
  let dataDir: string;
  let agent: SshTestAgent;

  async function start(): Promise<SshTestAgent> {
    agent = await startSshAgent(dataDir, [], {
      config: enrolledWith(controller),
      bootstrapToken: TEST_TOKEN,
    });
    return agent;
  }
  const beat = () => beatNow(agent);

  beforeEach(async () => {
    controller = await new TestController().start();
    dataDir = tempDataDir();
    await start();
  });
  afterEach(async () => {
    await agent.close({ stopRuntimes: true });
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends signed heartbeats whose identity fields are the envelope’s, with what the node holds', async () => {
    const first = await controller.heartbeat(1);
    const { envelope } = first;
    expect(envelope.nodeId).to.equal(controller.nodeId);
    expect(envelope.signature.keyId).to.equal(agent.health().nodeKeyId);
    const body = envelope.body;
    expect(body.heartbeat).to.deep.include({
      nodeId: controller.nodeId,
      sentAt: envelope.issuedAt,
      nonce: envelope.nonce,
      observedAssignments: [],
      runtimes: [],
    });
    // The first heartbeat carries the inventory itself: no ack has said the controller holds it.
    expect(body.heartbeat).to.not.have.property('inventoryDigest');
    const gpus = body.heartbeat.inventory?.gpus ?? [];
    expect(gpus).to.have.length(1);
    // The simulated GB10 at idle, read through the nvidia-smi stand-in.
    expect(
      body.heartbeat.gpuTelemetry.map((gpu) => [
        gpu.uuid,
        gpu.utilizationPercent,
        gpu.memorySource,
        gpu.lost,
      ]),
    ).to.deep.equal([[gpus[0]?.uuid, 0, 'simulated', false]]);
    expect(body).to.deep.include({ refusals: [], nextKey: null, credentialSerial: null });
    await eventually(() => agent.health().heartbeat?.lastOutcome === 'ok', 5000, 'an acknowledged heartbeat');
    expect(agent.health().heartbeat).to.deep.include({
      sequence: body.heartbeat.sequence,
      lifecycle: 'Active',
      cordoned: false,
      intervalSeconds: 300,
    });
  });

  it('reports a simulated GPU that logged an Xid and fell off the bus, and its recovery', async () => {
    await controller.heartbeat(1);
    writeFileSync(join(dataDir, SIMULATED_GPU_FAULTS_FILE), JSON.stringify({ 0: { xid: 79, lost: true } }));
    await beat();
    const [lost] = controller.heartbeats.at(-1)?.envelope.body.heartbeat.gpuTelemetry ?? [];
    expect(lost).to.deep.include({
      index: 0,
      lost: true,
      lastXid: 79,
      lastError: 'GPU has fallen off the bus.',
      utilizationPercent: null,
    });
    rmSync(join(dataDir, SIMULATED_GPU_FAULTS_FILE));
    await beat();
    const [healed] = controller.heartbeats.at(-1)?.envelope.body.heartbeat.gpuTelemetry ?? [];
    expect(healed).to.deep.include({ index: 0, lost: false, lastXid: null, utilizationPercent: 0 });
  });

  it('keeps sequences strictly increasing across restarts (reserved on disk before sending)', async () => {
    await controller.heartbeat(1);
    await beat();
    await beat();
    const before = controller.heartbeats.map((received) => received.envelope.body.heartbeat.sequence);
    expect(before).to.deep.equal([before[0], before[0] + 1, before[0] + 2]);
    const state = JSON.parse(readFileSync(join(dataDir, HEARTBEAT_STATE_FILE), 'utf8')) as {
      lastSequence: number;
    };
    // Reserved in blocks: the file is ahead of what was sent, never behind.
    expect(state.lastSequence).to.be.at.least(before[2] ?? Infinity);
    expect(state.lastSequence).to.be.below((before[0] ?? 0) + DEFAULT_SEQUENCE_RESERVATION * 2);
    expect(statSync(join(dataDir, HEARTBEAT_STATE_FILE)).mode & 0o777).to.equal(0o600);
    await agent.close();
    await start();
    const after = await controller.heartbeat(4);
    expect(after.envelope.body.heartbeat.sequence).to.equal(state.lastSequence + 1);
  });

  it('reports SSH and envelope refusals until the controller says it recorded them', async () => {
    await controller.heartbeat(1);
    const stranger = makeControllerKey('stranger');
    const client = await connectAs(agent, controller.key);
    try {
      expect(await outcome((done) => client.exec('id', (error) => done(error)))).to.be.instanceOf(Error);
      const stream = await openProtocol(client);
      const forged = signedPut(stranger, anAssignment({ nodeId: controller.nodeId, generation: 4 }), {
        keyId: controller.key.keyId,
      });
      stream.send(forged);
      verifyReply(agent, await stream.next(), 'assignment.reject');

      // The controller records nothing the first time: the refusals are sent again.
      controller.heartbeatQueue.push((request) => controller.ack(request, { body: { refusalsRecorded: 0 } }));
      await beat();
      await beat();
      const [unrecorded, resent] = controller.heartbeats
        .slice(-2)
        .map((received) => received.envelope.body.refusals);
      expect(resent).to.deep.equal(unrecorded);
      expect(unrecorded?.map((refusal) => [refusal.kind, refusal.code])).to.deep.equal([
        ['ssh:exec', ErrorCode.FORBIDDEN],
        ['envelope:assignment.put', ErrorCode.SIGNATURE_INVALID],
      ]);
      expect(unrecorded?.[0]).to.deep.include({ keyId: controller.key.keyId, detail: 'command of 2 bytes' });
      expect(unrecorded?.[1]).to.deep.include({
        envelopeId: forged.id,
        assignmentId: forged.body.assignment.id,
        generation: 4,
        keyId: controller.key.keyId,
      });
      await beat();
      expect(controller.heartbeats.at(-1)?.envelope.body.refusals).to.deep.equal([]);
      expect(agent.health().heartbeat?.pendingRefusals).to.equal(0);
    } finally {
      client.end();
    }
  });

  it('carries the orphan sweep at start to the controller, once acknowledged no more', async () => {
    await controller.heartbeat(1);
    await agent.close();
    // What a crash can leave: a process with this agent's owner tag that no assignment owns.
    const stray = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
      env: { [RUNTIME_OWNER_ENV]: runtimeOwnerTag(dataDir), [RUNTIME_ASSIGNMENT_ENV]: 'asg-left-behind' },
    });
    stray.unref();
    const strayPid = stray.pid as number;
    try {
      const sentBefore = controller.heartbeats.length;
      await start();
      await eventually(() => !isAlive(strayPid), 10_000, 'the stray stopped at start');
      const carrying = await eventually(
        () =>
          controller.heartbeats
            .slice(sentBefore)
            .find((received) => (received.envelope.body.orphanReports ?? []).length > 0),
        10_000,
        'a heartbeat carrying the orphan report',
      );
      const [report] = carrying.envelope.body.orphanReports ?? [];
      expect(report).to.deep.include({ trigger: 'start', adopted: [], failed: [] });
      expect(report?.stopped).to.deep.equal([
        {
          kind: 'process',
          pid: strayPid,
          container: null,
          assignmentId: 'asg-left-behind',
          reason: 'assignment asg-left-behind is not held by this agent',
        },
      ]);
      await beat();
      expect(controller.heartbeats.at(-1)?.envelope.body).to.not.have.property('orphanReports');
    } finally {
      if (isAlive(strayPid)) signalGroup(strayPid, 'SIGKILL');
    }
  });

  it('keeps running through refusals, silence and forged acks, and says so in /health', async () => {
    await controller.heartbeat(1);
    controller.heartbeatQueue.push(() => problem(503, ErrorCode.DEPENDENCY_UNAVAILABLE));
    expect(await beat()).to.deep.include({
      outcome: 'refused',
      status: 503,
      code: ErrorCode.DEPENDENCY_UNAVAILABLE,
    });
    expect(agent.health().heartbeat).to.deep.include({
      lastOutcome: 'refused',
      lastCode: 'DEPENDENCY_UNAVAILABLE',
    });

    controller.heartbeatQueue.push(() => null);
    expect((await beat()).outcome).to.equal('unreachable');

    const forger = generateKeyPairSync('ed25519').privateKey;
    controller.heartbeatQueue.push((request) => controller.ack(request, { signer: forger }));
    expect(await beat()).to.deep.include({ outcome: 'untrusted-answer', code: ErrorCode.SIGNATURE_INVALID });

    controller.heartbeatQueue.push((request) => controller.ack(request, { body: { sequence: 1 } }));
    expect(await beat()).to.deep.include({ outcome: 'untrusted-answer', code: ErrorCode.VALIDATION_FAILED });

    expect((await beat()).outcome).to.equal('ok');
    const health = agent.health().heartbeat;
    expect(health).to.deep.include({ lastOutcome: 'ok', lastCode: null });
    expect(health?.lastAckAgeSeconds).to.be.a('number').and.below(5);
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).to.match(/^lunanexa_agent_heartbeats_total\{outcome="refused"\} 1$/m);
    expect(metrics).to.match(/^lunanexa_agent_heartbeats_total\{outcome="unreachable"\} 1$/m);
    expect(metrics).to.match(/^lunanexa_agent_heartbeats_total\{outcome="untrusted-answer"\} 2$/m);
    expect(metrics).to.match(/^lunanexa_agent_heartbeats_total\{outcome="ok"\} 2$/m);
  });

  it('MACs heartbeats once a signed ack came back, refuses a forged MAC ack, and signs again when MACs are refused', async () => {
    await controller.heartbeat(1);
    expect(controller.heartbeats[0]?.envelope.signature.alg).to.equal('Ed25519');
    expect((await beat()).outcome).to.equal('ok');
    const maced = controller.heartbeats.at(-1)!.envelope;
    expect(maced.signature).to.include({ alg: MAC_ALGORITHM, keyId: controller.key.keyId });
    expect(maced.signature.value).to.have.length(43);

    // An ack MAC'd with keys the controller never agreed on is not an ack.
    controller.heartbeatQueue.push((request) => ({
      status: 200,
      body: macEnvelope(
        randomBytes(32),
        controller.key.keyId,
        createEnvelope('heartbeat.ack', {
          nodeId: request.envelope.nodeId,
          body: controller.ackBody(request),
        }),
      ),
    }));
    expect(await beat()).to.deep.include({ outcome: 'untrusted-answer', code: ErrorCode.SIGNATURE_INVALID });

    // A controller that does not take MACs refuses one heartbeat; the agent signs from then on.
    controller.acceptMacs = false;
    expect((await beat()).outcome).to.equal('refused');
    expect((await beat()).outcome).to.equal('ok');
    expect((await beat()).outcome).to.equal('ok');
    expect(controller.heartbeats.slice(-2).map((h) => h.envelope.signature.alg)).to.deep.equal([
      'Ed25519',
      'Ed25519',
    ]);
  });

  it('sends the digest instead of an inventory the controller said it holds, and the inventory again after a refusal or a refresh', async () => {
    await agent.close({ stopRuntimes: true });
    controller.holdInventory = true;
    const before = controller.heartbeats.length;
    agent = await startSshAgent(dataDir, [], {
      config: (config) => ({
        ...enrolledWith(controller)(config),
        inventory: { source: 'simulated', profile: 'dgx-spark', refreshIntervalSeconds: 5 },
      }),
    });
    const sent = () => controller.heartbeats.at(-1)!.envelope.body.heartbeat;
    await controller.heartbeat(before + 1);
    await eventually(() => agent.health().heartbeat?.lastOutcome === 'ok', 5000, 'the first heartbeat acked');
    const first = sent().inventory;
    expect(first, 'the first heartbeat after a start carries the inventory').to.not.equal(undefined);
    const digest = inventoryDigest(first!);
    expect((await beat()).ack?.body.inventoryDigest).to.equal(digest);
    expect(sent()).to.not.have.property('inventory');
    expect(sent().inventoryDigest).to.equal(digest);

    // The controller no longer holds it (say, it lost its state): refused once, then sent in full.
    controller.heldInventory = null;
    expect(await beat()).to.deep.include({ outcome: 'refused', code: ErrorCode.CONFLICT });
    expect((await beat()).outcome).to.equal('ok');
    expect(sent().inventory).to.deep.equal(first);
    expect((await beat()).outcome).to.equal('ok');
    expect(sent().inventoryDigest).to.equal(digest);

    // A refreshed inventory (collectedAt, free memory) goes in full, then by its own digest.
    await eventually(
      async () => (await beat()).outcome === 'ok' && sent().inventory !== undefined,
      12_000,
      'a heartbeat with the refreshed inventory',
    );
    expect(sent().inventory?.collectedAt).to.not.equal(first?.collectedAt);
    expect((await beat()).outcome).to.equal('ok');
    expect(sent().inventoryDigest).to.equal(inventoryDigest(controller.heldInventory!));
  });

  it('stores a credential signed by the controller (0600) and reports its serial; ignores a forged one', async () => {
    await controller.heartbeat(1);
    const nodeKeyId = agent.health().nodeKeyId as string;
    const document = {
      nodeId: controller.nodeId,
      nodeName: 'spark-01',
      keyId: nodeKeyId,
      serial: 1,
      issuedAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      issuer: controller.key.keyId,
    };
    const forged = signNodeCredential(generateKeyPairSync('ed25519').privateKey, { ...document, serial: 9 });
    controller.heartbeatQueue.push((request) => controller.ack(request, { body: { credential: forged } }));
    await beat();
    expect(existsSync(join(dataDir, CREDENTIAL_FILE))).to.equal(false);

    const credential = signNodeCredential(controller.key.privateKey, document);
    controller.heartbeatQueue.push((request) => controller.ack(request, { body: { credential } }));
    await beat();
    expect(statSync(join(dataDir, CREDENTIAL_FILE)).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, CREDENTIAL_FILE), 'utf8'))).to.deep.equal(credential);
    expect(agent.health().credential).to.deep.include({ serial: 1, keyId: nodeKeyId, expired: false });
    await beat();
    expect(controller.heartbeats.at(-1)?.envelope.body.credentialSerial).to.equal(1);
  });

  it('rotates the node key: offers the next key with a proof, and switches only once an ack confirms it', async () => {
    await controller.heartbeat(1);
    const oldKeyId = agent.health().nodeKeyId as string;
    const oldPem = readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8');

    controller.heartbeatQueue.push((request) => controller.ack(request, { body: { rotateKey: true } }));
    await beat();
    const nextFile = join(dataDir, NEXT_NODE_KEY_FILE);
    expect(statSync(nextFile).mode & 0o777).to.equal(0o600);
    const nextPem = readFileSync(nextFile, 'utf8');
    const nextPublic = createPublicKey(nextPem);
    const nextKeyId = ed25519KeyId(nextPublic);

    // The heartbeat carrying the next key is lost: nothing switches.
    controller.heartbeatQueue.push(() => problem(503, ErrorCode.DEPENDENCY_UNAVAILABLE));
    await beat();
    const offered = controller.heartbeats.at(-1)!.envelope;
    expect(offered.signature.keyId).to.equal(oldKeyId);
    expect(offered.body.nextKey?.keyId).to.equal(nextKeyId);
    const announced = parseEd25519PublicKey(offered.body.nextKey!.publicKey);
    expect(ed25519KeyId(announced)).to.equal(nextKeyId);
    expect(
      verify(
        null,
        rotationProofInput(controller.nodeId, oldKeyId, nextKeyId),
        announced,
        Buffer.from(offered.body.nextKey!.proof, 'base64url'),
      ),
    ).to.equal(true);
    expect(readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8')).to.equal(oldPem);
    expect(agent.health().nodeKeyId).to.equal(oldKeyId);
    expect(agent.health().heartbeat?.nextKeyId).to.equal(nextKeyId);

    // Offered again and acknowledged: the controller registered it, the agent switches.
    controller.nodeKeys.set(nextKeyId, nextPublic);
    await beat();
    expect(controller.heartbeats.at(-1)!.envelope.body.nextKey?.keyId).to.equal(nextKeyId);
    expect(readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8')).to.equal(nextPem);
    expect(existsSync(nextFile)).to.equal(false);
    expect(agent.health().nodeKeyId).to.equal(nextKeyId);

    await beat();
    const after = controller.heartbeats.at(-1)!.envelope;
    expect(after.signature.keyId).to.equal(nextKeyId);
    expect(after.body.nextKey).to.equal(null);

    // SSH replies are signed with the new key too.
    const client = await connectAs(agent, controller.key);
    try {
      const stream = await openProtocol(client);
      stream.send(signedStatusGet(controller.key, controller.nodeId));
      expect(verifyReply(agent, await stream.next(), 'status.report').signature.keyId).to.equal(nextKeyId);
    } finally {
      client.end();
    }

    // And after a restart it is still the node key.
    await agent.close();
    await start();
    expect(agent.health().nodeKeyId).to.equal(nextKeyId);
  });
});
