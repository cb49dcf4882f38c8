import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import {
  AGENT_SSH_SUBSYSTEM,
  createEnvelope,
  encodeFrame,
  FrameDecoder,
  openSshPrivateKey,
  openSshPublicKey,
  signEnvelope,
  sshFingerprintOfBlob,
  verifyEnvelope,
  type Envelope,
  type EnvelopeOf,
  type MessageType,
} from '@lunanexa/agent-protocol';
import { AssignmentSchema, type Assignment } from '@lunanexa/contracts';
import { createLogger, type Logger } from '@lunanexa/observability';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { startAgent, type AgentOptions, type RunningAgent } from '../src/agent';
import { parseAgentConfig, type AgentConfig } from '../src/config';
import { NODE_KEY_FILE } from '../src/ssh/keys';

/** A controller identity: one Ed25519 key for SSH authentication and envelope signing. */
export interface ControllerKey {
  readonly keyId: string;
  /** OpenSSH private key text, as the ssh2 client takes it. */
  readonly sshPrivateKey: string;
  /** `ssh-ed25519 AAAA…`, as the agent config takes it. */
  readonly publicLine: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/**
 * A controller key made the way the API makes its own (node:crypto, PKCS#8),
 * handed to the ssh2 client in OpenSSH form via `openSshPrivateKey`.
 */
export function makeControllerKey(keyId: string): ControllerKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    keyId,
    sshPrivateKey: openSshPrivateKey(privateKey, keyId),
    publicLine: openSshPublicKey(publicKey, keyId),
    privateKey,
    publicKey,
  };
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'lunanexa-agent-ssh-'));
}

/** A logger that keeps every JSON line it writes, for asserting on structured log output. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: createLogger({ service: 'agent-test', level: 'info', destination }), lines: () => lines };
}

export const NODE_NAME = 'spark-01';

export function sshAgentConfig(dataDir: string, controllers: readonly ControllerKey[]): AgentConfig {
  const parsed = parseAgentConfig(
    {
      nodeName: NODE_NAME,
      listen: { host: '127.0.0.1', port: 9464 },
      dataDir,
      inventory: { source: 'simulated', profile: 'dgx-spark' },
      ssh: {
        host: '127.0.0.1',
        port: 2222,
        authorizedControllerKeys: controllers.map((key) => ({ keyId: key.keyId, publicKey: key.publicLine })),
      },
    },
    join(dataDir, 'agent.yaml'),
  );
  // Port 0 is refused in files but lets tests run in parallel.
  const ssh = parsed.ssh;
  if (ssh === undefined) throw new Error('ssh config missing');
  return { ...parsed, listen: { host: '127.0.0.1', port: 0 }, ssh: { ...ssh, port: 0 } };
}

export interface SshTestAgent extends RunningAgent {
  readonly dataDir: string;
  readonly url: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
}

export async function startSshAgent(
  dataDir: string,
  controllers: readonly ControllerKey[],
  extra: Partial<Omit<AgentOptions, 'config' | 'agentVersion' | 'commit'>> & {
    readonly config?: (config: AgentConfig) => AgentConfig;
  } = {},
): Promise<SshTestAgent> {
  const { config: adjust, ...options } = extra;
  const base = sshAgentConfig(dataDir, controllers);
  const agent = await startAgent({
    ...options,
    config: adjust === undefined ? base : adjust(base),
    logger: extra.logger ?? capturingLogger().logger,
    agentVersion: '0.1.0',
    commit: 'test',
  });
  return asSshTestAgent(agent, dataDir);
}

/** The running agent with what the SSH helpers need to reach it. */
export function asSshTestAgent(agent: RunningAgent, dataDir: string): SshTestAgent {
  const ssh = agent.health().ssh;
  if (ssh === null || agent.sshAddress === null) throw new Error('the agent started without SSH');
  return Object.assign(agent, {
    dataDir,
    url: `http://127.0.0.1:${agent.address.port}`,
    sshPort: agent.sshAddress.port,
    hostKeyFingerprint: ssh.hostKeyFingerprint,
  });
}

/** The node's public key, read the way a controller learns it (enrollment will send it). */
export function nodePublicKey(dataDir: string): KeyObject {
  return createPublicKey(createPrivateKey(readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8')));
}

/**
 * Connects an ssh2 client, pinning the agent's host key. Resolves once
 * authenticated; rejects with the client's error (level `client-authentication`
 * when every offered method was refused).
 */
export async function connect(agent: SshTestAgent, config: Partial<ConnectConfig>): Promise<Client> {
  const client = new Client();
  const ready = new Promise<Client>((resolve, reject) => {
    client.once('ready', () => resolve(client));
    client.once('error', reject);
  });
  client.connect({
    host: '127.0.0.1',
    port: agent.sshPort,
    username: 'lunanexa-controller',
    readyTimeout: 5000,
    // The forwarding helpers refuse to talk to a server that is not OpenSSH unless told otherwise.
    strictVendor: false,
    hostVerifier: (key: Buffer) => sshFingerprintOfBlob(key) === agent.hostKeyFingerprint,
    ...config,
  });
  try {
    return await ready;
  } catch (error: unknown) {
    client.end();
    throw error;
  }
}

export function connectAs(agent: SshTestAgent, key: ControllerKey): Promise<Client> {
  return connect(agent, { privateKey: key.sshPrivateKey, authHandler: ['publickey'] });
}

/** A protocol channel from the controller's side: send frames, read verified replies. */
export interface ProtocolStream {
  readonly channel: ClientChannel;
  send(frame: Buffer | Envelope): void;
  /** The next decoded message (raw JSON), or rejects when the channel closes first. */
  next(timeoutMs?: number): Promise<unknown>;
  /** Resolves when the agent closes the channel. */
  readonly closed: Promise<void>;
}

export async function openProtocol(
  client: Client,
  subsystem: string = AGENT_SSH_SUBSYSTEM,
): Promise<ProtocolStream> {
  const channel = await new Promise<ClientChannel>((resolve, reject) => {
    client.subsys(subsystem, (error, stream) => (error ? reject(error) : resolve(stream)));
  });
  const decoder = new FrameDecoder();
  const queue: unknown[] = [];
  const waiters: { resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
  let ended = false;
  channel.on('data', (chunk: Buffer) => {
    const { messages, error } = decoder.push(chunk);
    if (error !== null) {
      // The agent broke the framing: fail whoever waits, and every later read.
      ended = true;
      for (const waiter of waiters.splice(0)) waiter.reject(error);
    }
    for (const message of messages) {
      const waiter = waiters.shift();
      if (waiter) waiter.resolve(message);
      else queue.push(message);
    }
  });
  const closed = once(channel, 'close').then(() => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter.reject(new Error('channel closed'));
  });
  return {
    channel,
    send(frame) {
      channel.write(Buffer.isBuffer(frame) ? frame : encodeFrame(frame));
    },
    next(timeoutMs = 5000) {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      if (ended) return Promise.reject(new Error('channel closed'));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
      });
    },
    closed: closed.then(() => undefined),
  };
}

/** Verifies a reply with the node key, as a controller would, and checks its type. */
export function verifyReply<T extends MessageType>(
  agent: SshTestAgent,
  raw: unknown,
  type: T,
  now: Date = new Date(),
): EnvelopeOf<T> {
  const keys = new Map([[agent.health().ssh?.nodeKeyId ?? '', nodePublicKey(agent.dataDir)]]);
  const envelope = verifyEnvelope(keys, raw, { now, nodeId: agent.nodeId });
  if (envelope.type !== type) {
    throw new Error(`expected ${type}, got ${envelope.type}: ${JSON.stringify(envelope.body)}`);
  }
  return envelope as EnvelopeOf<T>;
}

const CONTRACT_ASSIGNMENT = join(
  dirname(require.resolve('@lunanexa/contracts/package.json')),
  'fixtures',
  'v1',
  'assignment.json',
);

/** A valid assignment for this node (the contract fixture), leased for an hour from now. */
export function anAssignment(overrides: Partial<Assignment> = {}): Assignment {
  const base = AssignmentSchema.parse(JSON.parse(readFileSync(CONTRACT_ASSIGNMENT, 'utf8')));
  // The contract fixture's provenance signature is a placeholder no key made: the reconciler would
  // refuse it (SIGNATURE_INVALID, artifact-signature.spec.ts). Tests get an unsigned artifact unless
  // they sign one themselves.
  const { signature: _placeholder, ...provenance } = base.artifact.provenance;
  return AssignmentSchema.parse({
    ...base,
    artifact: { ...base.artifact, provenance },
    nodeId: NODE_NAME,
    leaseExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    ...overrides,
  });
}

export function signedPut(
  key: ControllerKey,
  assignment: Assignment,
  options: { issuedAt?: Date; keyId?: string } = {},
): EnvelopeOf<'assignment.put'> {
  return signEnvelope(
    key.privateKey,
    options.keyId ?? key.keyId,
    createEnvelope('assignment.put', {
      nodeId: assignment.nodeId,
      body: { assignment },
      ...(options.issuedAt === undefined ? {} : { issuedAt: options.issuedAt }),
    }),
  );
}

export function signedStatusGet(key: ControllerKey, nodeId: string = NODE_NAME): EnvelopeOf<'status.get'> {
  return signEnvelope(key.privateKey, key.keyId, createEnvelope('status.get', { nodeId, body: {} }));
}

export async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  return (await response.json()) as Record<string, unknown>;
}

/** `lunanexa_agent_ssh_refused_total` by request label, scraped from /metrics. */
export async function refusedCounts(agent: SshTestAgent): Promise<Record<string, number>> {
  const text = await (await fetch(`${agent.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^lunanexa_agent_ssh_refused_total\{request="([^"]+)"\} (\d+)$/gm)) {
    counts[match[1] ?? ''] = Number(match[2]);
  }
  return counts;
}

/** Runs an ssh2 callback API and resolves with its error (or null when it succeeded). */
export function outcome(start: (done: (error?: Error | null) => void) => void): Promise<Error | null> {
  return new Promise((resolve) => {
    start((error) => resolve(error ?? null));
  });
}
