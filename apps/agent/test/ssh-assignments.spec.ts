import { sign } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  assignmentSpecDigest,
  createEnvelope,
  encodeFrame,
  FRAME_HEADER_BYTES,
  MAX_FRAME_BYTES,
  signEnvelope,
  signingInput,
} from '@lunanexa/agent-protocol';
import { ErrorCode } from '@lunanexa/contracts';
import { expect } from 'chai';
import type { Client } from 'ssh2';
import { ASSIGNMENTS_FILE, AssignmentStoreError } from '../src/ssh/assignment-store';
import { NODE_KEY_FILE } from '../src/ssh/keys';
import type { AssignmentAcceptedEvent } from '../src/ssh/protocol-channel';
import {
  anAssignment,
  connectAs,
  getJson,
  makeControllerKey,
  NODE_NAME,
  nodePublicKey,
  openProtocol,
  signedPut,
  signedStatusGet,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type ProtocolStream,
  type SshTestAgent,
} from './ssh-support';

function frameOf(payload: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32BE(payload.length, 0);
  return Buffer.concat([header, payload]);
}

describe('agent SSH server: signed assignments', function () {
  this.timeout(20_000);
  const controller = makeControllerKey('controller-1');
  const forger = makeControllerKey('forger');
  const events: AssignmentAcceptedEvent[] = [];
  let dataDir: string;
  let agent: SshTestAgent;
  let client: Client;
  let stream: ProtocolStream;
  const file = (): string => join(dataDir, ASSIGNMENTS_FILE);
  const persisted = (): Buffer => readFileSync(file());

  async function start(): Promise<void> {
    agent = await startSshAgent(dataDir, [controller], {
      onAssignmentAccepted: (event) => void events.push(event),
    });
    client = await connectAs(agent, controller);
    stream = await openProtocol(client);
  }
  async function stop(): Promise<void> {
    client.end();
    await agent.close();
  }

  before(async () => {
    dataDir = tempDataDir();
    await start();
  });
  after(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Sends a frame and expects an assignment.reject with `code`; the persisted file must not change. */
  async function expectRejected(send: () => void, code: ErrorCode) {
    const before = persisted();
    send();
    const reject = verifyReply(agent, await stream.next(), 'assignment.reject');
    expect(reject.body.code, reject.body.message).to.equal(code);
    expect(persisted().equals(before), 'assignments.json is byte-identical').to.equal(true);
    return reject;
  }

  it('generates the node key and host key in dataDir, owner-only', () => {
    expect(statSync(join(dataDir, NODE_KEY_FILE)).mode & 0o777).to.equal(0o600);
    expect(statSync(join(dataDir, 'ssh_host_ed25519_key')).mode & 0o777).to.equal(0o600);
  });

  it('accepts a signed assignment: persisted (0600) before the signed ack, then announced', async () => {
    const assignment = anAssignment({ generation: 3 });
    const put = signedPut(controller, assignment);
    stream.send(put);
    const ack = verifyReply(agent, await stream.next(), 'assignment.ack');
    expect(ack.body).to.deep.equal({
      inReplyTo: put.id,
      assignmentId: assignment.id,
      generation: 3,
      specDigest: assignmentSpecDigest(assignment),
      leaseExpiresAt: assignment.leaseExpiresAt,
      result: 'accepted',
    });
    const stored = JSON.parse(persisted().toString('utf8')) as {
      nodeId: string;
      assignments: { assignment: unknown; envelopeId: string; signedBy: string }[];
    };
    expect(stored.nodeId).to.equal(NODE_NAME);
    expect(stored.assignments).to.have.length(1);
    expect(stored.assignments[0]?.assignment).to.deep.equal(assignment);
    expect(stored.assignments[0]).to.deep.include({ envelopeId: put.id, signedBy: 'controller-1' });
    expect(statSync(file()).mode & 0o777).to.equal(0o600);
    expect(agent.assignments().map((entry) => entry.assignment.generation)).to.deep.equal([3]);
    expect(events.map((event) => [event.result, event.accepted.assignment.generation])).to.deep.equal([
      ['accepted', 3],
    ]);
    expect((await getJson(`${agent.url}/health`))['acceptedAssignments']).to.equal(1);
  });

  it('acks a re-delivery of the same generation without writing anything', async () => {
    const before = persisted();
    const eventsBefore = events.length;
    stream.send(
      signedPut(
        controller,
        anAssignment({ generation: 3, leaseExpiresAt: agent.assignments()[0]?.assignment.leaseExpiresAt }),
      ),
    );
    const ack = verifyReply(agent, await stream.next(), 'assignment.ack');
    expect(ack.body.result).to.equal('already-accepted');
    expect(persisted().equals(before)).to.equal(true);
    expect(events.length).to.equal(eventsBefore);
  });

  it('renews the lease at the same generation', async () => {
    const later = new Date(Date.now() + 7_200_000).toISOString();
    stream.send(signedPut(controller, anAssignment({ generation: 3, leaseExpiresAt: later })));
    const ack = verifyReply(agent, await stream.next(), 'assignment.ack');
    expect(ack.body).to.deep.include({ result: 'lease-renewed', leaseExpiresAt: later, generation: 3 });
    expect(agent.assignments()[0]?.assignment.leaseExpiresAt).to.equal(later);
    expect(agent.assignments()[0]?.leaseRenewedAt).to.be.a('string');
    expect(events.at(-1)?.result).to.equal('lease-renewed');
  });

  it('accepts a higher generation', async () => {
    stream.send(signedPut(controller, anAssignment({ generation: 5 })));
    expect(verifyReply(agent, await stream.next(), 'assignment.ack').body).to.deep.include({
      result: 'accepted',
      generation: 5,
    });
  });

  it('refuses a stale generation with STALE_GENERATION, naming the generation it holds; state unchanged', async () => {
    const reject = await expectRejected(
      () => stream.send(signedPut(controller, anAssignment({ generation: 4 }))),
      ErrorCode.STALE_GENERATION,
    );
    expect(reject.body).to.deep.include({ generation: 4, highestAcceptedGeneration: 5 });
    expect(agent.assignments()[0]?.assignment.generation).to.equal(5);
  });

  it('refuses the held generation with different content (two writers) with STALE_GENERATION', async () => {
    await expectRejected(
      () => stream.send(signedPut(controller, anAssignment({ generation: 5, intent: 'Stop' }))),
      ErrorCode.STALE_GENERATION,
    );
  });

  it('refuses a forged signature (another key under the controller key id) with SIGNATURE_INVALID', async () => {
    const reject = await expectRejected(
      () => stream.send(signedPut(forger, anAssignment({ generation: 99 }), { keyId: 'controller-1' })),
      ErrorCode.SIGNATURE_INVALID,
    );
    expect(reject.body).to.deep.include({ assignmentId: anAssignment().id, highestAcceptedGeneration: 5 });
    expect(agent.assignments()[0]?.assignment.generation).to.equal(5);
  });

  it('refuses a tampered envelope (generation raised after signing) with SIGNATURE_INVALID', async () => {
    const put = signedPut(controller, anAssignment({ generation: 6 }));
    const tampered = { ...put, body: { assignment: { ...put.body.assignment, generation: 7 } } };
    await expectRejected(() => stream.send(tampered), ErrorCode.SIGNATURE_INVALID);
  });

  it('refuses a replayed envelope with REPLAY_DETECTED', async () => {
    const put = signedPut(controller, anAssignment({ generation: 6 }));
    stream.send(put);
    expect(verifyReply(agent, await stream.next(), 'assignment.ack').body.generation).to.equal(6);
    await expectRejected(() => stream.send(put), ErrorCode.REPLAY_DETECTED);
  });

  it('refuses an envelope issued outside the clock-skew window with REPLAY_DETECTED', async () => {
    await expectRejected(
      () =>
        stream.send(
          signedPut(controller, anAssignment({ generation: 7 }), {
            issuedAt: new Date(Date.now() - 600_000),
          }),
        ),
      ErrorCode.REPLAY_DETECTED,
    );
  });

  it('refuses an assignment whose lease has already expired with LEASE_EXPIRED', async () => {
    await expectRejected(
      () =>
        stream.send(
          signedPut(
            controller,
            anAssignment({ generation: 7, leaseExpiresAt: new Date(Date.now() - 1000).toISOString() }),
          ),
        ),
      ErrorCode.LEASE_EXPIRED,
    );
  });

  it('refuses a correctly signed assignment for another node with VALIDATION_FAILED', async () => {
    const other = anAssignment({ generation: 7, nodeId: 'spark-02' });
    const put = signEnvelope(
      controller.privateKey,
      controller.keyId,
      createEnvelope('assignment.put', { nodeId: 'spark-02', body: { assignment: other } }),
    );
    await expectRejected(() => stream.send(put), ErrorCode.VALIDATION_FAILED);
  });

  it('reports what it holds on status.get', async () => {
    const get = signedStatusGet(controller);
    stream.send(get);
    const report = verifyReply(agent, await stream.next(), 'status.report');
    expect(report.body.inReplyTo).to.equal(get.id);
    expect(report.body.assignments.map((entry) => [entry.assignmentId, entry.generation])).to.deep.equal([
      [anAssignment().id, 6],
    ]);
  });

  it('answers a message type only agents send with an error envelope, and an error with nothing', async () => {
    const ack = signEnvelope(
      controller.privateKey,
      controller.keyId,
      createEnvelope('assignment.ack', {
        nodeId: NODE_NAME,
        body: {
          inReplyTo: 'msg-x',
          assignmentId: 'asg-x',
          generation: 1,
          specDigest: `sha256:${'0'.repeat(64)}`,
          leaseExpiresAt: new Date().toISOString(),
          result: 'accepted',
        },
      }),
    );
    stream.send(ack);
    const error = verifyReply(agent, await stream.next(), 'error');
    expect(error.body).to.deep.include({ inReplyTo: ack.id, code: ErrorCode.VALIDATION_FAILED });
    const controllerError = signEnvelope(
      controller.privateKey,
      controller.keyId,
      createEnvelope('error', {
        nodeId: NODE_NAME,
        body: { inReplyTo: null, code: ErrorCode.INTERNAL, message: 'controller hiccup', violations: [] },
      }),
    );
    stream.send(controllerError);
    // The next reply must be the status report, not an answer to the error.
    stream.send(signedStatusGet(controller));
    verifyReply(agent, await stream.next(), 'status.report');
  });

  it('answers a body with an unknown member (a command) with VALIDATION_FAILED and keeps the channel', async () => {
    const unsigned = createEnvelope('status.get', { nodeId: NODE_NAME, body: {} });
    const raw = { ...unsigned, body: { command: 'id' } };
    const signed = {
      ...raw,
      signature: {
        keyId: controller.keyId,
        alg: 'Ed25519',
        value: sign(null, signingInput(raw), controller.privateKey).toString('base64url'),
      },
    };
    stream.send(frameOf(Buffer.from(JSON.stringify(signed))));
    const error = verifyReply(agent, await stream.next(), 'error');
    expect(error.body.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(error.body.violations.map((violation) => violation.path)).to.include('body');
    stream.send(signedStatusGet(controller));
    verifyReply(agent, await stream.next(), 'status.report');
  });

  describe('framing', () => {
    let own: ProtocolStream;
    beforeEach(async () => {
      own = await openProtocol(client);
    });

    it('answers a malformed frame with an error envelope and closes the channel; state unchanged', async () => {
      const before = persisted();
      own.send(frameOf(Buffer.from('{"protocol": "lunanexa-agent-v1", ', 'utf8')));
      const error = verifyReply(agent, await own.next(), 'error');
      expect(error.body).to.deep.include({ code: ErrorCode.MALFORMED_REQUEST, inReplyTo: null });
      await own.closed;
      expect(persisted().equals(before)).to.equal(true);
    });

    it('answers an oversize frame as soon as its header arrives, then closes', async () => {
      const header = Buffer.alloc(FRAME_HEADER_BYTES);
      header.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
      own.send(header);
      const error = verifyReply(agent, await own.next(), 'error');
      expect(error.body.code).to.equal(ErrorCode.PAYLOAD_TOO_LARGE);
      await own.closed;
    });

    it('handles frames split across writes and several frames in one write, in order', async () => {
      const a = signedStatusGet(controller);
      const b = signedStatusGet(controller);
      const bytes = Buffer.concat([encodeFrame(a), encodeFrame(b)]);
      own.send(bytes.subarray(0, 3));
      own.send(bytes.subarray(3, 200));
      own.send(bytes.subarray(200));
      expect(verifyReply(agent, await own.next(), 'status.report').body.inReplyTo).to.equal(a.id);
      expect(verifyReply(agent, await own.next(), 'status.report').body.inReplyTo).to.equal(b.id);
      own.channel.close();
    });
  });

  it('refuses to ack what it could not persist: INTERNAL, nothing changed in memory', async () => {
    // A non-empty directory where the temp file must be renamed to makes the write fail, even for root.
    const held = agent.assignments();
    const original = persisted();
    rmSync(file());
    mkdirSync(file());
    writeFileSync(join(file(), 'keep'), 'x');
    try {
      stream.send(signedPut(controller, anAssignment({ generation: 8 })));
      const reject = verifyReply(agent, await stream.next(), 'assignment.reject');
      expect(reject.body.code).to.equal(ErrorCode.INTERNAL);
      expect(agent.assignments()).to.deep.equal(held);
    } finally {
      rmSync(file(), { recursive: true, force: true });
      writeFileSync(file(), original, { mode: 0o600 });
    }
  });

  describe('after a restart', () => {
    let hostKeyFingerprint: string;
    let nodeKeyPem: string;
    before(async () => {
      hostKeyFingerprint = agent.hostKeyFingerprint;
      nodeKeyPem = readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8');
      await stop();
      await start();
    });

    it('keeps its host key and node key', () => {
      expect(agent.hostKeyFingerprint).to.equal(hostKeyFingerprint);
      expect(readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8')).to.equal(nodeKeyPem);
      expect(nodePublicKey(dataDir).type).to.equal('public');
    });

    it('reloads the persisted assignments', async () => {
      expect(agent.assignments().map((entry) => entry.assignment.generation)).to.deep.equal([6]);
      stream.send(signedStatusGet(controller));
      const report = verifyReply(agent, await stream.next(), 'status.report');
      expect(report.body.assignments.map((entry) => entry.generation)).to.deep.equal([6]);
    });

    it('keeps fencing: a stale generation is still refused, a newer one accepted', async () => {
      await expectRejected(
        () => stream.send(signedPut(controller, anAssignment({ generation: 5 }))),
        ErrorCode.STALE_GENERATION,
      );
      stream.send(signedPut(controller, anAssignment({ generation: 9 })));
      expect(verifyReply(agent, await stream.next(), 'assignment.ack').body.generation).to.equal(9);
    });
  });
});

describe('agent assignment state on disk', function () {
  this.timeout(20_000);
  const controller = makeControllerKey('controller-1');
  let dataDir: string;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const [label, content] of [
    ['not JSON', '{"format": '],
    [
      'of another node',
      JSON.stringify({ format: 'lunanexa-agent-assignments-v1', nodeId: 'spark-99', assignments: [] }),
    ],
    ['of an unknown format', JSON.stringify({ format: 'v0', nodeId: NODE_NAME, assignments: [] })],
  ] as const) {
    it(`refuses to start over an assignments file that is ${label} (never silently drops the fence)`, async () => {
      writeFileSync(join(dataDir, ASSIGNMENTS_FILE), content);
      let failure: unknown = null;
      try {
        const agent = await startSshAgent(dataDir, [controller]);
        await agent.close();
      } catch (error: unknown) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(AssignmentStoreError);
    });
  }

  it('refuses to start over an entry whose spec digest does not match (edited on disk)', async () => {
    const assignment = anAssignment({ generation: 2 });
    const entry = {
      assignment: { ...assignment, generation: 3 },
      specDigest: assignmentSpecDigest(assignment),
      acceptedAt: new Date().toISOString(),
      leaseRenewedAt: null,
      envelopeId: 'msg-1',
      signedBy: 'controller-1',
    };
    writeFileSync(
      join(dataDir, ASSIGNMENTS_FILE),
      JSON.stringify({ format: 'lunanexa-agent-assignments-v1', nodeId: NODE_NAME, assignments: [entry] }),
    );
    let failure: unknown = null;
    try {
      const agent = await startSshAgent(dataDir, [controller]);
      await agent.close();
    } catch (error: unknown) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(AssignmentStoreError);
  });
});
