import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  createEnvelope,
  signEnvelope,
  type ControllerKeyNotice,
  type EnvelopeOf,
} from '@lunanexa/agent-protocol';
import { ErrorCode, type Assignment } from '@lunanexa/contracts';
import { expect } from 'chai';
import { pinControllerKey } from '../src/controller-trust/pin';
import { CONTROLLER_TRUST_FILE } from '../src/controller-trust/state';
import {
  beatNow,
  enrolledWith,
  makeEnrollingControllerKey,
  TEST_TOKEN,
  TestController,
  type EnrollingControllerKey,
} from './controller-support';
import {
  anAssignment,
  capturingLogger,
  connectAs,
  getJson,
  openProtocol,
  signedStatusGet,
  sshAgentConfig,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type ControllerKey,
  type SshTestAgent,
} from './ssh-support';

function announce(signer: ControllerKey, next: EnrollingControllerKey): ControllerKeyNotice {
  return {
    signingKeyId: signer.keyId,
    next: { keyId: next.keyId, publicKey: next.publicLine, rotationId: 'rot-0001' },
    retiredKeyIds: [],
  };
}

function retire(signer: ControllerKey, ...keyIds: string[]): ControllerKeyNotice {
  return { signingKeyId: signer.keyId, next: null, retiredKeyIds: keyIds };
}

function putWithNotice(
  key: ControllerKey,
  assignment: Assignment,
  notice: ControllerKeyNotice,
): EnvelopeOf<'assignment.put'> {
  return signEnvelope(
    key.privateKey,
    key.keyId,
    createEnvelope('assignment.put', {
      nodeId: assignment.nodeId,
      body: { assignment, controllerKeys: notice },
    }),
  );
}

describe('controller key rotation on the agent: heartbeats', function () {
  this.timeout(30_000);
  let controller: TestController;
  let dataDir: string;
  let agent: SshTestAgent;
  let captured: ReturnType<typeof capturingLogger>;

  async function start(): Promise<void> {
    captured = capturingLogger();
    agent = await startSshAgent(dataDir, [], {
      config: enrolledWith(controller),
      bootstrapToken: TEST_TOKEN,
      logger: captured.logger,
    });
    await controller.heartbeat(controller.heartbeats.length + 1);
    await agent.heartbeat?.beat();
  }
  const beat = () => beatNow(agent);
  const lastKeyIds = () => controller.heartbeats.at(-1)?.envelope.body.controllerKeyIds;

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

  it('applies announce and retire from signed acks, reports controllerKeyIds, and keeps them across a restart', async () => {
    const current = controller.key;
    const next = makeEnrollingControllerKey();
    expect(lastKeyIds()).to.deep.equal([current.keyId]);

    controller.heartbeatQueue.push((request) =>
      controller.ack(request, { body: { controllerKeys: announce(current, next) } }),
    );
    expect((await beat()).outcome).to.equal('ok');
    const both = [current.keyId, next.keyId].sort();
    expect(agent.health().controllerTrust).to.deep.include({ state: 'ok', trustedKeyIds: both });
    await beat();
    expect(lastKeyIds()).to.deep.equal(both);
    const written = readFileSync(join(dataDir, CONTROLLER_TRUST_FILE), 'utf8');

    // The switch: the next key signs; the same announcement repeated changes nothing.
    controller.heartbeatQueue.push((request) =>
      controller.ack(request, {
        signer: next.privateKey,
        signerKeyId: next.keyId,
        body: { controllerKeys: announce(next, next) },
      }),
    );
    expect((await beat()).outcome).to.equal('ok');
    expect(readFileSync(join(dataDir, CONTROLLER_TRUST_FILE), 'utf8')).to.equal(written);

    // Retire: from now on only the next key.
    controller.heartbeatQueue.push((request) =>
      controller.ack(request, {
        signer: next.privateKey,
        signerKeyId: next.keyId,
        body: { controllerKeys: retire(next, current.keyId) },
      }),
    );
    expect((await beat()).outcome).to.equal('ok');
    await beat();
    expect(lastKeyIds()).to.deep.equal([next.keyId]);
    // An answer signed by the retired key is no answer.
    controller.heartbeatQueue.push((request) =>
      controller.ack(request, { signer: current.privateKey, signerKeyId: current.keyId }),
    );
    const refused = await beat();
    expect(refused.outcome).to.equal('untrusted-answer');
    expect(refused.code).to.equal(ErrorCode.SIGNATURE_INVALID);

    // A restart: the enrolled key stays retired, the announced key is trusted.
    await agent.close({ stopRuntimes: true });
    await start();
    expect(agent.health().controllerTrust).to.deep.include({
      state: 'untrusted-signer',
      signerKeyId: current.keyId,
    });
    expect(lastKeyIds()).to.deep.equal([next.keyId]);
    expect(
      captured
        .lines()
        .filter((line) => line.event === 'controller_key_retired_skipped')
        .map((line) => line.keyId),
    ).to.deep.equal([current.keyId]);
    controller.heartbeatQueue.push((request) =>
      controller.ack(request, { signer: next.privateKey, signerKeyId: next.keyId }),
    );
    expect((await beat()).outcome).to.equal('ok');
    expect(agent.health().controllerTrust.state).to.equal('ok');
  });

  it('tells how to recover when acks are signed by a key it does not trust, keeps heartbeating, and recovers after trust-controller-key and a restart', async () => {
    const current = controller.key;
    const rotated = makeEnrollingControllerKey();
    const signedByRotated = (request: Parameters<TestController['ack']>[0]) =>
      controller.ack(request, { signer: rotated.privateKey, signerKeyId: rotated.keyId });
    const sent = controller.heartbeats.length;
    for (let i = 0; i < 3; i += 1) {
      controller.heartbeatQueue.push(signedByRotated);
      expect((await beat()).outcome).to.equal('untrusted-answer');
    }
    expect(controller.heartbeats.length).to.equal(sent + 3);
    expect(lastKeyIds()).to.deep.equal([current.keyId]);
    const health = (await getJson(`${agent.url}/health`)).controllerTrust as Record<string, unknown>;
    expect(health).to.deep.include({
      state: 'untrusted-signer',
      signerKeyId: rotated.keyId,
      signerFingerprint: rotated.fingerprint,
      via: 'heartbeat.ack',
      trustedFingerprints: [current.fingerprint],
    });
    expect(health.since).to.be.a('string');
    const recovery = String(health.recovery);
    expect(recovery).to.contain(`lunanexa-agent trust-controller-key --config`);
    expect(recovery).to.contain(`--fingerprint ${rotated.fingerprint}`);
    expect(recovery).to.contain('lunanexa controller-keys');
    expect(recovery).to.contain('re-enrolling is not needed');
    const errors = captured.lines().filter((line) => line.event === 'controller_key_untrusted');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.deep.include({ level: 'error', signerFingerprint: rotated.fingerprint, recovery });

    // The operator pins the key the controller signs with now, then restarts the agent.
    const pinned = await pinControllerKey({
      config: enrolledWith(controller)(sshAgentConfig(dataDir, [])),
      fingerprint: rotated.fingerprint,
      publicKey: rotated.publicLine,
    });
    expect(pinned.exitCode).to.equal(0);
    await agent.close({ stopRuntimes: true });
    controller.heartbeatQueue.push(signedByRotated, signedByRotated);
    await start();
    expect(controller.heartbeats.at(-1)?.envelope.body.controllerKeyIds).to.deep.equal(
      [current.keyId, rotated.keyId].sort(),
    );
    expect(agent.health().heartbeat?.lastOutcome).to.equal('ok');
    expect(agent.health().controllerTrust.state).to.equal('ok');
  });
});

describe('controller key rotation on the agent: SSH and the protocol channel', function () {
  this.timeout(30_000);
  let dataDir: string;
  let agent: SshTestAgent;
  const old = makeEnrollingControllerKey();
  const next = makeEnrollingControllerKey();

  beforeEach(async () => {
    dataDir = tempDataDir();
    agent = await startSshAgent(dataDir, [old]);
  });
  afterEach(async () => {
    await agent.close({ stopRuntimes: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('trusts a key announced in an assignment.put, retires the old one even from a rejected put, then refuses the retired key', async () => {
    const oldClient = await connectAs(agent, old);
    const oldStream = await openProtocol(oldClient);
    oldStream.send(putWithNotice(old, anAssignment({ generation: 5, intent: 'Stop' }), announce(old, next)));
    const ack = verifyReply(agent, await oldStream.next(), 'assignment.ack');
    expect(ack.body.result).to.equal('accepted');
    expect(agent.health().controllerTrust.trustedKeyIds).to.deep.equal([old.keyId, next.keyId].sort());

    const nextClient = await connectAs(agent, next);
    const nextStream = await openProtocol(nextClient);
    // A stale generation is rejected; the verified envelope's notice still counts.
    nextStream.send(
      putWithNotice(next, anAssignment({ generation: 1, intent: 'Stop' }), retire(next, old.keyId)),
    );
    const rejected = verifyReply(agent, await nextStream.next(), 'assignment.reject');
    expect(rejected.body.code).to.equal(ErrorCode.STALE_GENERATION);
    expect(agent.health().controllerTrust.trustedKeyIds).to.deep.equal([next.keyId]);

    // The connection the old key opened earlier: its envelopes no longer verify.
    oldStream.send(signedStatusGet(old));
    const error = verifyReply(agent, await oldStream.next(), 'error');
    expect(error.body.code).to.equal(ErrorCode.SIGNATURE_INVALID);
    expect(agent.health().controllerTrust).to.deep.include({
      state: 'untrusted-signer',
      signerKeyId: old.keyId,
      via: 'envelope',
    });
    // A new SSH authentication with the retired key fails.
    let authError: (Error & { level?: string }) | null = null;
    try {
      (await connectAs(agent, old)).end();
    } catch (caught: unknown) {
      authError = caught as Error & { level?: string };
    }
    expect(authError?.level).to.equal('client-authentication');
    // The next key still works, and a trusted envelope clears the problem.
    nextStream.send(signedStatusGet(next));
    verifyReply(agent, await nextStream.next(), 'status.report');
    expect(agent.health().controllerTrust.state).to.equal('ok');
    oldClient.end();
    nextClient.end();

    // After a restart the retired config key stays out (with a warning naming it).
    await agent.close({ stopRuntimes: true });
    const captured = capturingLogger();
    agent = await startSshAgent(dataDir, [old], { logger: captured.logger });
    expect(agent.health().controllerTrust.trustedKeyIds).to.deep.equal([next.keyId]);
    const warning = captured.lines().find((line) => line.event === 'controller_key_retired_skipped');
    expect(warning).to.deep.include({ level: 'warn', keyId: old.keyId, source: 'config' });
    (await connectAs(agent, next)).end();
    let again: (Error & { level?: string }) | null = null;
    try {
      (await connectAs(agent, old)).end();
    } catch (caught: unknown) {
      again = caught as Error & { level?: string };
    }
    expect(again?.level).to.equal('client-authentication');
    expect(agent.health().controllerTrust).to.deep.include({
      state: 'untrusted-signer',
      signerKeyId: old.keyId,
      via: 'ssh-publickey',
      signerFingerprint: old.fingerprint,
    });
  });
});
