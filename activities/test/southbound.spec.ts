import { createServer, type Server as TcpServer, type Socket } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import {
  AGENT_PROTOCOL_VERSION,
  AssignmentSchema,
  CONTROLLER_KEY_NOTICE_PROTOCOL,
  ErrorCode,
  LunaNexaError,
  UNREPORTED_AGENT_PROTOCOL,
  type Assignment,
} from '@lunanexa/contracts';
import { expect } from 'chai';
import { z } from 'zod';
import { ControllerKeyRefusedError, SouthboundClient, type SouthboundNode } from '../src/southbound';
import { startScriptedPeer, type ScriptedPeer } from './southbound-scripted-peer';
import {
  anAssignment,
  freePort,
  makeController,
  NODE_NAME,
  someOtherFingerprint,
  startAgentProcess,
  type AgentProcess,
  type TestController,
} from './southbound-support';

/** Runs `call` and returns the LunaNexaError it rejects with; fails the test if it resolves or throws anything else. */
async function rejection(call: Promise<unknown>): Promise<LunaNexaError> {
  try {
    await call;
  } catch (error: unknown) {
    if (error instanceof LunaNexaError) return error;
    throw error;
  }
  throw new Error('expected a LunaNexaError, but the call succeeded');
}

function authenticatedEvents(agent: AgentProcess): number {
  return agent.logs().filter((line) => line['event'] === 'ssh_authenticated').length;
}

describe('SouthboundClient against a real agent process', function () {
  this.timeout(30_000);
  let controller: TestController;
  let agent: AgentProcess;
  let client: SouthboundClient;
  const assignment = anAssignment({ id: 'asg-southbound-1', generation: 3 });
  let acceptedDigest: string;

  before(async () => {
    controller = makeController();
    agent = await startAgentProcess([controller]);
    client = new SouthboundClient(controller.identity, { connectTimeoutMs: 5_000, replyTimeoutMs: 5_000 });
  });
  after(async () => {
    await agent?.stop();
  });

  it('pushes an assignment and returns the node-signed ack: accepted', async () => {
    const ack = await client.pushAssignment(agent.node, assignment);
    expect(ack).to.include({
      assignmentId: assignment.id,
      generation: 3,
      leaseExpiresAt: assignment.leaseExpiresAt,
      result: 'accepted',
    });
    expect(ack.inReplyTo).to.match(/^msg-/);
    acceptedDigest = ack.specDigest;
    expect(agent.persistedAssignments()).to.contain(assignment.id);
  });

  it('pushing the same assignment again is acked already-accepted', async () => {
    const ack = await client.pushAssignment(agent.node, assignment);
    expect(ack).to.include({ assignmentId: assignment.id, generation: 3, result: 'already-accepted' });
    expect(ack.specDigest).to.equal(acceptedDigest);
  });

  it('a later lease at the same generation is acked lease-renewed', async () => {
    const renewed = { ...assignment, leaseExpiresAt: new Date(Date.now() + 7_200_000).toISOString() };
    const ack = await client.pushAssignment(agent.node, renewed);
    expect(ack).to.include({
      generation: 3,
      result: 'lease-renewed',
      leaseExpiresAt: renewed.leaseExpiresAt,
    });
  });

  it('a lower generation throws STALE_GENERATION and changes nothing on the node', async () => {
    const before = agent.persistedAssignments();
    const error = await rejection(client.pushAssignment(agent.node, { ...assignment, generation: 2 }));
    expect(error.code).to.equal(ErrorCode.STALE_GENERATION);
    expect(agent.persistedAssignments()).to.equal(before);
  });

  it('status() lists what the node holds', async () => {
    const report = await client.status(agent.node);
    expect(report.inReplyTo).to.match(/^msg-/);
    expect(report.assignments).to.have.length(1);
    expect(report.assignments[0]).to.include({
      assignmentId: assignment.id,
      deploymentId: assignment.deploymentId,
      generation: 3,
      intent: assignment.intent,
      specDigest: acceptedDigest,
    });
  });

  it('refuses a host key other than the pinned one with SIGNATURE_INVALID, before anything is sent', async () => {
    const persisted = agent.persistedAssignments();
    const authenticated = authenticatedEvents(agent);
    const impostor: SouthboundNode = { ...agent.node, hostKeyFingerprint: someOtherFingerprint() };
    const fresh = anAssignment({ id: 'asg-never-sent', generation: 1 });

    const error = await rejection(client.pushAssignment(impostor, fresh));

    expect(error.code).to.equal(ErrorCode.SIGNATURE_INVALID);
    expect(error.message).to.contain('does not match the pinned');
    expect(error.message).to.contain(agent.node.hostKeyFingerprint);
    // The agent would log (and persist) within milliseconds of receiving anything; give it the chance to.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(authenticatedEvents(agent), 'the controller never authenticated').to.equal(authenticated);
    expect(agent.persistedAssignments()).to.equal(persisted);
    const report = await client.status(agent.node);
    expect(report.assignments.map((held) => held.assignmentId)).to.deep.equal([assignment.id]);
  });

  it('a controller key the agent does not trust is refused at SSH authentication: FORBIDDEN', async () => {
    const persisted = agent.persistedAssignments();
    const intruder = makeController();
    const untrusted = new SouthboundClient(intruder.identity, { connectTimeoutMs: 5_000 });

    const error = await rejection(
      untrusted.pushAssignment(agent.node, anAssignment({ id: 'asg-intruder', generation: 9 })),
    );

    expect(error.code).to.equal(ErrorCode.FORBIDDEN);
    // Its own class: an enrolling node's reachability check waits this one out (see checkNodeReachable).
    expect(error).to.be.instanceOf(ControllerKeyRefusedError);
    expect(error.message).to.contain(intruder.identity.keyId);
    const health = await agent.health();
    expect(health.sshRefusals.map((refusal) => refusal.request)).to.include('auth-publickey');
    expect(health.acceptedAssignments).to.equal(1);
    expect(agent.persistedAssignments()).to.equal(persisted);
  });

  it('an agent that is down (port closed) is DEPENDENCY_UNAVAILABLE within the connect timeout', async () => {
    const closedPort = await freePort();
    const connectTimeoutMs = 2_000;
    const impatient = new SouthboundClient(controller.identity, { connectTimeoutMs });
    const started = Date.now();

    const error = await rejection(impatient.status({ ...agent.node, sshPort: closedPort }));

    expect(error.code).to.equal(ErrorCode.DEPENDENCY_UNAVAILABLE);
    expect(error.message).to.contain('ECONNREFUSED');
    expect(Date.now() - started).to.be.below(connectTimeoutMs);
  });
});

describe('SouthboundClient deadlines and replies it must not believe', function () {
  this.timeout(20_000);
  const controller = makeController();
  let peer: ScriptedPeer | undefined;
  let silent: TcpServer | undefined;

  afterEach(async () => {
    await peer?.close();
    peer = undefined;
    if (silent !== undefined) {
      const server = silent;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      silent = undefined;
    }
  });

  it('a peer that accepts TCP but never speaks SSH is DEPENDENCY_UNAVAILABLE at the connect timeout, and the socket is closed', async () => {
    const sockets: Socket[] = [];
    const closed: Promise<void>[] = [];
    silent = createServer((socket) => {
      sockets.push(socket);
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      // Read (and drop) the client's SSH greeting: a socket nobody reads never notices the peer hanging up.
      socket.resume();
    });
    await new Promise<void>((resolve) => silent?.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const connectTimeoutMs = 300;
    const client = new SouthboundClient(controller.identity, { connectTimeoutMs });
    const node: SouthboundNode = {
      id: NODE_NAME,
      address: '127.0.0.1',
      sshPort: address.port,
      hostKeyFingerprint: someOtherFingerprint(),
      keyIds: [controller.identity.keyId],
      publicKeys: [controller.publicLine],
      agentProtocol: AGENT_PROTOCOL_VERSION,
    };
    const started = Date.now();

    const error = await rejection(client.status(node));

    const elapsed = Date.now() - started;
    expect(error.code).to.equal(ErrorCode.DEPENDENCY_UNAVAILABLE);
    expect(error.message).to.contain('no SSH session within 300 ms');
    expect(elapsed)
      .to.be.at.least(connectTimeoutMs - 20)
      .and.below(connectTimeoutMs + 1_500);
    expect(sockets).to.have.length(1);
    await Promise.all(closed);
  });

  it('an agent that never replies is DEPENDENCY_UNAVAILABLE at the reply timeout, and the connection is closed', async () => {
    peer = await startScriptedPeer(NODE_NAME, () => undefined);
    const replyTimeoutMs = 400;
    const client = new SouthboundClient(controller.identity, { replyTimeoutMs });
    const started = Date.now();

    const error = await rejection(client.pushAssignment(peer.node, anAssignment()));

    expect(error.code).to.equal(ErrorCode.DEPENDENCY_UNAVAILABLE);
    expect(error.message).to.contain('no reply within 400 ms');
    expect(Date.now() - started).to.be.at.least(replyTimeoutMs - 20);
    await peer.allClosed(2_000);
    expect(peer.stats).to.deep.equal({ connections: 1, closed: 1 });
  });

  it('a reply signed with a key the node record does not hold is SIGNATURE_INVALID', async () => {
    const forger = generateKeyPairSync('ed25519').privateKey;
    peer = await startScriptedPeer(NODE_NAME, (raw, send, self) => {
      const id = (raw as { id: string }).id;
      send(self.reply('status.report', { inReplyTo: id, assignments: [] }, forger));
    });
    const client = new SouthboundClient(controller.identity);

    const error = await rejection(client.status(peer.node));

    expect(error.code).to.equal(ErrorCode.SIGNATURE_INVALID);
    await peer.allClosed(2_000);
  });

  it('skips verified replies to other messages and returns the one naming this request', async () => {
    peer = await startScriptedPeer(NODE_NAME, (raw, send, self) => {
      const id = (raw as { id: string }).id;
      send(self.reply('status.report', { inReplyTo: 'msg-someone-else', assignments: [] }));
      send(
        self.reply('status.report', {
          inReplyTo: id,
          assignments: [
            {
              assignmentId: 'asg-x',
              deploymentId: 'dep-x',
              generation: 7,
              intent: 'Run',
              leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
              specDigest: `sha256:${'a'.repeat(64)}`,
              acceptedAt: new Date().toISOString(),
            },
          ],
        }),
      );
    });
    const client = new SouthboundClient(controller.identity);

    const report = await client.status(peer.node);

    expect(report.assignments.map((held) => held.assignmentId)).to.deep.equal(['asg-x']);
    await peer.allClosed(2_000);
  });

  it("throws the code of the agent's `error` reply", async () => {
    peer = await startScriptedPeer(NODE_NAME, (raw, send, self) => {
      const id = (raw as { id: string }).id;
      send(
        self.reply('error', {
          inReplyTo: id,
          code: ErrorCode.REPLAY_DETECTED,
          message: 'issuedAt is too far from the node clock',
          violations: [],
        }),
      );
    });
    const client = new SouthboundClient(controller.identity);

    const error = await rejection(client.status(peer.node));

    expect(error.code).to.equal(ErrorCode.REPLAY_DETECTED);
    expect(error.message).to.equal('issuedAt is too far from the node clock');
  });

  it('refuses a node record whose key ids and keys do not pair, without connecting', async () => {
    peer = await startScriptedPeer(NODE_NAME, () => undefined);
    const client = new SouthboundClient(controller.identity);

    const error = await rejection(
      client.status({ ...peer.node, keyIds: [...peer.node.keyIds, 'ed25519:next'] }),
    );

    expect(error.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(peer.stats.connections).to.equal(0);
  });

  describe('the controller key ring notice goes only to agents that take it (version skew)', () => {
    /** The body of `assignment.put` as release 0.1.0's agent parses it: strict, with no `controllerKeys`. */
    const releaseZeroOneBody = z.object({ assignment: AssignmentSchema }).strict();
    const notice = { signingKeyId: controller.identity.keyId, next: null, retiredKeyIds: [] };
    const signer = { candidates: () => [controller.identity], notice: () => notice };

    async function putBodyReceivedBy(agentProtocol: number): Promise<Record<string, unknown>> {
      const received: Record<string, unknown>[] = [];
      peer = await startScriptedPeer(NODE_NAME, (raw, send, self) => {
        const envelope = raw as { id: string; body: Record<string, unknown> & { assignment: Assignment } };
        received.push(envelope.body);
        send(
          self.reply('assignment.ack', {
            inReplyTo: envelope.id,
            assignmentId: envelope.body.assignment.id,
            generation: envelope.body.assignment.generation,
            specDigest: `sha256:${'a'.repeat(64)}`,
            leaseExpiresAt: envelope.body.assignment.leaseExpiresAt,
            result: 'accepted',
          }),
        );
      });
      const ack = await new SouthboundClient(signer).pushAssignment(
        { ...peer.node, agentProtocol },
        anAssignment(),
      );
      expect(ack.result).to.equal('accepted');
      expect(received).to.have.length(1);
      return received[0];
    }

    it('an agent at protocol 1 (0.1.0) gets assignment.put without controllerKeys, a body its strict schema takes', async () => {
      const body = await putBodyReceivedBy(UNREPORTED_AGENT_PROTOCOL);

      expect(body).to.not.have.property('controllerKeys');
      expect(releaseZeroOneBody.safeParse(body).success).to.equal(true);
    });

    it(`an agent at protocol ${CONTROLLER_KEY_NOTICE_PROTOCOL} or later gets the notice, which 0.1.0's schema would refuse`, async () => {
      const body = await putBodyReceivedBy(AGENT_PROTOCOL_VERSION);

      expect(body['controllerKeys']).to.deep.equal(notice);
      expect(releaseZeroOneBody.safeParse(body).success).to.equal(false);
    });
  });
});
