import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '@lunanexa/contracts';
import { expect } from 'chai';
import {
  ENROLLMENT_FILE,
  EnrollmentStateError,
  loadEnrollment,
  saveEnrollment,
} from '../src/enrollment/state';
import { RefusalQueue, refusalFromSsh } from '../src/heartbeat/refusal-queue';
import { HEARTBEAT_STATE_FILE, HeartbeatSequence, HeartbeatStateError } from '../src/heartbeat/sequence';
import { makeEnrollingControllerKey } from './controller-support';
import { tempDataDir } from './ssh-support';

describe('refusal queue', () => {
  const refusal = (n: number) =>
    refusalFromSsh({
      at: new Date(0).toISOString(),
      request: n % 2 === 0 ? 'exec' : 'auth-password',
      remoteAddress: `10.0.0.5:${1000 + n}`,
      username: 'x',
      keyId: null,
      detail: null,
    });

  it('maps SSH refusals: authentication as UNAUTHENTICATED, the rest FORBIDDEN', () => {
    expect(refusal(0)).to.deep.include({ kind: 'ssh:exec', code: ErrorCode.FORBIDDEN });
    expect(refusal(1)).to.deep.include({ kind: 'ssh:auth-password', code: ErrorCode.UNAUTHENTICATED });
  });

  it('batches at most 64, drops only what the controller recorded of what was sent, and bounds itself', () => {
    const queue = new RefusalQueue(100);
    for (let n = 0; n < 120; n += 1) queue.push(refusal(n));
    expect(queue.size).to.equal(100);
    expect(queue.dropped).to.equal(20);
    const batch = queue.batch();
    expect(batch).to.have.length(64);
    expect(batch[0]?.remoteAddress).to.equal('10.0.0.5:1020');
    // A controller claiming more than it was sent removes only what it was sent.
    queue.acknowledge(500, batch.length);
    expect(queue.size).to.equal(36);
    expect(queue.batch()[0]?.remoteAddress).to.equal('10.0.0.5:1084');
  });
});

describe('agent state files', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  function enrollmentFor(nodeName: string) {
    const key = makeEnrollingControllerKey();
    return {
      format: 'lunanexa-agent-enrollment-v1' as const,
      nodeId: 'node-1',
      nodeName,
      controllerKeyId: key.keyId,
      controllerPublicKey: key.publicLine,
      workflowId: 'enroll-node/node-1',
      heartbeatIntervalSeconds: 5,
      leaseDurationSeconds: 20,
      enrolledAt: new Date().toISOString(),
    };
  }

  it('round-trips enrollment.json and refuses one of another node or with a key id not its key’s', async () => {
    const enrollment = enrollmentFor('spark-01');
    await saveEnrollment(dataDir, enrollment);
    expect(await loadEnrollment(dataDir, 'spark-01')).to.deep.equal(enrollment);
    let failure: unknown = null;
    await loadEnrollment(dataDir, 'spark-02').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(EnrollmentStateError);
    writeFileSync(
      join(dataDir, ENROLLMENT_FILE),
      JSON.stringify({ ...enrollment, controllerKeyId: makeEnrollingControllerKey().keyId }),
    );
    failure = null;
    await loadEnrollment(dataDir, 'spark-01').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(EnrollmentStateError);
    expect(String(failure)).to.contain('controllerKeyId does not match');
  });

  it('reserves heartbeat sequences in blocks: one write per block, a restart continues after the block', async () => {
    const stateFile = join(dataDir, HEARTBEAT_STATE_FILE);
    const persisted = (): number =>
      (JSON.parse(readFileSync(stateFile, 'utf8')) as { lastSequence: number }).lastSequence;
    const sequence = await HeartbeatSequence.open(dataDir, { reservation: 3 });
    expect(await sequence.next()).to.equal(1);
    expect(persisted()).to.equal(3);
    const written = statSync(stateFile).ino;
    expect([await sequence.next(), await sequence.next()]).to.deep.equal([2, 3]);
    // Inside the block nothing is written: the file is the one the first number renamed into place.
    expect(statSync(stateFile).ino).to.equal(written);
    expect(await sequence.next()).to.equal(4);
    expect(persisted()).to.equal(6);
    expect(sequence.lastSequence).to.equal(4);
    // A crash here (4 used, 6 reserved): the restarted agent skips 5 and 6, never reusing a number.
    const restarted = await HeartbeatSequence.open(dataDir, { reservation: 3 });
    expect(restarted.lastSequence).to.equal(6);
    expect(await restarted.next()).to.equal(7);
    expect(persisted()).to.equal(9);
    expect((await HeartbeatSequence.open(dataDir)).lastSequence).to.equal(9);
    let failure: unknown = null;
    await HeartbeatSequence.open(dataDir, { reservation: 0 }).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.contain('reservation');
  });

  it('continues the heartbeat sequence from disk and refuses a file it cannot read', async () => {
    const sequence = await HeartbeatSequence.open(dataDir, { reservation: 1 });
    expect([await sequence.next(), await sequence.next()]).to.deep.equal([1, 2]);
    expect(await (await HeartbeatSequence.open(dataDir, { reservation: 1 })).next()).to.equal(3);
    writeFileSync(join(dataDir, HEARTBEAT_STATE_FILE), '{"lastSequence": -1}');
    let failure: unknown = null;
    await HeartbeatSequence.open(dataDir).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(HeartbeatStateError);
  });
});
