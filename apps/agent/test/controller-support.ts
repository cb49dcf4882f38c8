import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AGENT_HTTP_PATHS,
  createEnvelope,
  ed25519KeyId,
  EnvelopeHeaderSchema,
  heartbeatMacKeys,
  inventoryDigest,
  MAC_ALGORITHM,
  macEnvelope,
  openSshPrivateKey,
  openSshPublicKey,
  parseEd25519PublicKey,
  signEnvelope,
  sshFingerprint,
  verifyEnvelope,
  type BodyOf,
  type EnvelopeOf,
} from '@lunanexa/agent-protocol';
import { ErrorCode, PROBLEM_CONTENT_TYPE, type NodeInventory } from '@lunanexa/contracts';
import type { RunningAgent } from '../src/agent';
import type { AgentConfig } from '../src/config';
import type { HeartbeatLoop } from '../src/heartbeat';
import type { ControllerKey } from './ssh-support';

/**
 * A controller key as the API makes it: its key id is `ed25519KeyId` of the
 * public key, and operators pin it by its SSH fingerprint.
 */
export interface EnrollingControllerKey extends ControllerKey {
  readonly fingerprint: string;
}

export function makeEnrollingControllerKey(): EnrollingControllerKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyId = ed25519KeyId(publicKey);
  return {
    keyId,
    sshPrivateKey: openSshPrivateKey(privateKey, 'controller'),
    publicLine: openSshPublicKey(publicKey),
    privateKey,
    publicKey,
    fingerprint: sshFingerprint(publicKey),
  };
}

export const TEST_TOKEN = `lnxb_${'Q'.repeat(43)}`;

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly contentType?: string;
}

/** One request the test controller received, verified the way the API verifies it. */
export interface Received<T extends 'enroll.request' | 'heartbeat'> {
  readonly raw: unknown;
  readonly envelope: EnvelopeOf<T>;
}

type Handler<T extends 'enroll.request' | 'heartbeat'> = (request: Received<T>) => Answer | null;

/**
 * An in-test stand-in for the API's agent endpoints: real HTTP, real
 * signatures. Enrollment requests are verified with the key they present
 * (proof of possession), heartbeats with the node keys it knows; every answer
 * is signed with `key` unless a handler says otherwise. A handler returning
 * null means "destroy the connection" (no answer at all).
 */
export class TestController {
  readonly enrolls: Received<'enroll.request'>[] = [];
  readonly heartbeats: Received<'heartbeat'>[] = [];
  /** Node keys heartbeats may be signed with, by key id (enrollment adds the presented one). */
  readonly nodeKeys = new Map<string, KeyObject>();
  /** Answers for the next enroll requests, in order; when empty, `enrollAnswer` is used. */
  readonly enrollQueue: Handler<'enroll.request'>[] = [];
  readonly heartbeatQueue: Handler<'heartbeat'>[] = [];
  nodeId = 'node-test-0001';
  /** Accept MAC'd heartbeats (and answer them with MACs) as the API does; false refuses them as an old controller would. */
  acceptMacs = true;
  /**
   * Record each inventory sent and name its digest in acks, as the API does for agents at protocol 2: the
   * agent then sends the digest instead, and one the controller does not hold is refused (CONFLICT). False
   * answers as a controller from before inventory digests.
   */
  holdInventory = false;
  /** The inventory the last heartbeat that carried one sent (what the API records); null forgets it. */
  heldInventory: NodeInventory | null = null;
  /** The node key of the last signed heartbeat: the node's current key, which MAC keys are agreed with. */
  private macNodeKeyId: string | null = null;
  /** Controller keys this controller has signed acks with, by key id: the keys it holds, as the API's ring. */
  private readonly heldKeys = new Map<string, KeyObject>();
  private server: Server | null = null;
  url = '';

  constructor(readonly key: EnrollingControllerKey = makeEnrollingControllerKey()) {}

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (this.server === null) return;
    const closed = once(this.server, 'close');
    this.server.close();
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    let answer: Answer | null;
    try {
      if (req.url === AGENT_HTTP_PATHS.enroll && req.method === 'POST') {
        const received = { raw, envelope: this.verifyEnroll(raw) };
        this.enrolls.push(received);
        answer = (this.enrollQueue.shift() ?? ((request) => this.enrollAnswer(request)))(received);
      } else if (req.url === AGENT_HTTP_PATHS.heartbeat && req.method === 'POST') {
        const received = { raw, envelope: this.verifyHeartbeat(raw) };
        this.heartbeats.push(received);
        answer = (this.heartbeatQueue.shift() ?? ((request) => this.ack(request)))(received);
      } else {
        answer = problem(404, ErrorCode.NOT_FOUND);
      }
    } catch (error: unknown) {
      answer = problem(
        400,
        ErrorCode.VALIDATION_FAILED,
        error instanceof Error ? error.message : String(error),
      );
    }
    if (answer === null) {
      res.destroy();
      return;
    }
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
    res.end(text);
  }

  /** As the API does: the request must be signed by the key it presents, under that key's own id. */
  verifyEnroll(raw: unknown): EnvelopeOf<'enroll.request'> {
    const header = EnvelopeHeaderSchema.parse(raw);
    const presented = parseEd25519PublicKey((header.body as { publicKey: string }).publicKey);
    const keyId = ed25519KeyId(presented);
    const envelope = verifyEnvelope(new Map([[keyId, presented]]), raw, {
      now: new Date(),
      types: ['enroll.request'],
    }) as EnvelopeOf<'enroll.request'>;
    if (envelope.signature.keyId !== keyId) throw new Error('not signed by the presented key');
    this.nodeKeys.set(keyId, presented);
    return envelope;
  }

  verifyHeartbeat(raw: unknown): EnvelopeOf<'heartbeat'> {
    const envelope = verifyEnvelope(this.nodeKeys, raw, {
      now: new Date(),
      types: ['heartbeat'],
      ...(this.acceptMacs ? { macKey: (keyId: string) => this.macKeys(keyId)?.agentToController } : {}),
    }) as EnvelopeOf<'heartbeat'>;
    if (envelope.signature.alg !== MAC_ALGORITHM) this.macNodeKeyId = envelope.signature.keyId;
    return envelope;
  }

  /** The heartbeat MAC keys of this controller's key and the node's current key, as the API derives them. */
  macKeys(controllerKeyId: string): ReturnType<typeof heartbeatMacKeys> | undefined {
    const nodeKey = this.macNodeKeyId === null ? undefined : this.nodeKeys.get(this.macNodeKeyId);
    const held =
      controllerKeyId === this.key.keyId ? this.key.privateKey : this.heldKeys.get(controllerKeyId);
    if (held === undefined || nodeKey === undefined || this.macNodeKeyId === null) return undefined;
    return heartbeatMacKeys(held, nodeKey, {
      nodeId: this.nodeId,
      nodeKeyId: this.macNodeKeyId,
      controllerKeyId,
    });
  }

  enrollBody(request: Received<'enroll.request'>): BodyOf<'enroll.response'> {
    return {
      inReplyTo: request.envelope.id,
      nodeId: this.nodeId,
      nodeName: request.envelope.body.nodeName,
      lifecycle: 'Pending',
      workflowId: `enroll-node/${this.nodeId}`,
      controllerKeyId: this.key.keyId,
      controllerPublicKey: this.key.publicLine,
      heartbeatIntervalSeconds: 5,
      leaseDurationSeconds: 20,
    };
  }

  enrollAnswer(
    request: Received<'enroll.request'>,
    options: { body?: Partial<BodyOf<'enroll.response'>>; signer?: KeyObject; signerKeyId?: string } = {},
  ): Answer {
    const body = { ...this.enrollBody(request), ...options.body };
    return {
      status: 200,
      body: signEnvelope(
        options.signer ?? this.key.privateKey,
        options.signerKeyId ?? body.controllerKeyId,
        createEnvelope('enroll.response', { nodeId: body.nodeId, body }),
      ),
    };
  }

  ackBody(request: Received<'heartbeat'>): BodyOf<'heartbeat.ack'> {
    return {
      inReplyTo: request.envelope.id,
      sequence: request.envelope.body.heartbeat.sequence,
      lifecycle: 'Active',
      cordoned: false,
      leaseExpiresAt: new Date(Date.now() + 20_000).toISOString(),
      credential: null,
      rotateKey: false,
      refusalsRecorded: request.envelope.body.refusals.length,
    };
  }

  ack(
    request: Received<'heartbeat'>,
    options: { body?: Partial<BodyOf<'heartbeat.ack'>>; signer?: KeyObject; signerKeyId?: string } = {},
  ): Answer {
    if (options.signer !== undefined && options.signerKeyId !== undefined)
      this.heldKeys.set(options.signerKeyId, options.signer);
    const { heartbeat } = request.envelope.body;
    if (this.holdInventory && heartbeat.inventory !== undefined) this.heldInventory = heartbeat.inventory;
    const held = this.heldInventory === null ? null : inventoryDigest(this.heldInventory);
    if (heartbeat.inventory === undefined && heartbeat.inventoryDigest !== held) {
      return problem(409, ErrorCode.CONFLICT, `no inventory with digest ${heartbeat.inventoryDigest ?? ''}`);
    }
    const unsigned = createEnvelope('heartbeat.ack', {
      nodeId: request.envelope.nodeId,
      body: {
        ...this.ackBody(request),
        ...(this.holdInventory && held !== null ? { inventoryDigest: held } : {}),
        ...options.body,
      },
    });
    // As the API: a MAC'd heartbeat is answered with the same keys unless another signer is asked for.
    const keys =
      request.envelope.signature.alg === MAC_ALGORITHM &&
      options.signer === undefined &&
      options.signerKeyId === undefined
        ? this.macKeys(request.envelope.signature.keyId)
        : undefined;
    return {
      status: 200,
      body:
        keys !== undefined
          ? macEnvelope(keys.controllerToAgent, request.envelope.signature.keyId, unsigned)
          : signEnvelope(
              options.signer ?? this.key.privateKey,
              options.signerKeyId ?? this.key.keyId,
              unsigned,
            ),
    };
  }

  /** Resolves with the n-th heartbeat (1-based) once it has arrived. */
  async heartbeat(n: number, timeoutMs = 10_000): Promise<Received<'heartbeat'>> {
    const deadline = Date.now() + timeoutMs;
    while (this.heartbeats.length < n) {
      if (Date.now() > deadline) throw new Error(`heartbeat ${n} did not arrive within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.heartbeats[n - 1];
  }
}

export function problem(status: number, code: ErrorCode, detail = `refused: ${code}`): Answer {
  return {
    status,
    contentType: PROBLEM_CONTENT_TYPE,
    body: {
      type: `urn:lunanexa:error:${code.toLowerCase().replace(/_/g, '-')}`,
      title: code,
      status,
      code,
      detail,
    },
  };
}

/** Polls `check` until it returns a value that is not undefined, null or false. */
export async function eventually<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * An agent config pointed at `controller` with heartbeats every 300 s: the
 * first is sent at start, the rest when a test calls `beatNow`, so each test
 * decides exactly when one goes out.
 */
export function enrolledWith(controller: TestController) {
  return (config: AgentConfig): AgentConfig => ({
    ...config,
    controllerUrl: controller.url,
    controllerKeyFingerprint: controller.key.fingerprint,
    ssh: { ...(config.ssh as NonNullable<AgentConfig['ssh']>), authorizedControllerKeys: [] },
    heartbeatIntervalSeconds: 300,
  });
}

/** One heartbeat from `agent` now. */
export function beatNow(agent: Pick<RunningAgent, 'heartbeat'>): ReturnType<HeartbeatLoop['beat']> {
  const loop = agent.heartbeat;
  if (loop === null) throw new Error('the agent sends no heartbeats');
  return loop.beat();
}
