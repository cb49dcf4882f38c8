import { connect as connectTcp, type Socket } from 'node:net';
import {
  AGENT_MESSAGE_TYPES,
  AGENT_SSH_SUBSYSTEM,
  encodeFrame,
  FrameDecoder,
  sshFingerprintOfBlob,
  verifyEnvelope,
  type DecodedFrames,
  type Envelope,
  type PublicKeySet,
} from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { Client, type ClientChannel } from 'ssh2';
import type { SouthboundNode } from './node';

/** The user name the agent's SSH server sees; it authorizes by key, the name is for its logs. */
export const CONTROLLER_SSH_USERNAME = 'lunanexa-controller';

/** After a successful exchange, how long the agent gets to close its side before the socket is destroyed. */
const CLOSE_GRACE_MS = 1_000;

export interface ExchangeOptions {
  readonly node: SouthboundNode;
  /** The controller key in OpenSSH form (what ssh2 takes). */
  readonly sshPrivateKey: string;
  /** The controller key id, only to name it when the node refuses it. */
  readonly controllerKeyId: string;
  /** A signed controller envelope; the reply must name its id. */
  readonly request: Envelope;
  readonly nodeKeys: PublicKeySet;
  /** From the start of the TCP connection until the subsystem is open. */
  readonly connectTimeoutMs: number;
  /** From sending the envelope until its verified reply. */
  readonly replyTimeoutMs: number;
  readonly now: () => Date;
}

type SshError = Error & { level?: string; code?: string; reason?: unknown };

/**
 * One SSH connection for one request: connect, pin the host key, authenticate
 * with the controller key, open the `lunanexa-agent-v1` subsystem, send the
 * envelope and wait for the node-signed reply that names it. The socket is
 * ours (handed to ssh2), so it is destroyed on every path — ssh2's own
 * `destroy()` leaves a half-closed socket alone, which would keep a timed-out
 * call's process alive until the peer gave up.
 *
 * Rejects with LunaNexaError only: SIGNATURE_INVALID (host key not the pinned
 * one, reply not signed by a node key), FORBIDDEN (the node refused the
 * controller key or the subsystem), DEPENDENCY_UNAVAILABLE (anything about
 * reaching the node: refused, reset, timed out, closed early), or the code of
 * a reply that could not be read (VALIDATION_FAILED, MALFORMED_REQUEST, …).
 */
export async function exchangeEnvelope(options: ExchangeOptions): Promise<Envelope> {
  const { node, request } = options;
  // No Nagle: key exchange and authentication are small packets in turn, and each waited out the agent's
  // delayed ACK (about 40 ms, twice: a push took about 90 ms on loopback instead of about 10).
  const socket = connectTcp({ host: node.address, port: node.sshPort, noDelay: true });
  const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // ssh2 reports socket errors once connect() has run; this keeps one that comes earlier from crashing the process.
  socket.on('error', () => undefined);
  const client = new Client();
  let timer: NodeJS.Timeout | undefined;
  let offeredHostKey: string | null = null;
  let replied = false;

  try {
    const reply = await new Promise<Envelope>((resolve, reject) => {
      const arm = (ms: number, missing: string): void => {
        clearTimeout(timer);
        timer = setTimeout(() => reject(unavailable(node, `${missing} within ${ms} ms`)), ms);
      };
      // A refused host key surfaces as a generic handshake error or a close; the verifier's note says which it was.
      const failure = (otherwise: LunaNexaError): LunaNexaError =>
        offeredHostKey === null ? otherwise : hostKeyMismatch(node, offeredHostKey);

      arm(options.connectTimeoutMs, 'no SSH session');
      client.on('error', (error: SshError) => reject(failure(clientFailure(node, options, error))));
      client.on('close', () => reject(failure(unavailable(node, 'the connection closed before the reply'))));
      client.on('ready', () => {
        client.subsys(AGENT_SSH_SUBSYSTEM, (error: SshError | undefined, channel: ClientChannel) => {
          if (error) {
            reject(subsystemFailure(node, error));
            return;
          }
          arm(options.replyTimeoutMs, 'no reply');
          const decoder = new FrameDecoder();
          channel.on('data', (chunk: Buffer) => {
            try {
              const found = findReply(decoder.push(chunk), options);
              if (found !== null) resolve(found);
            } catch (readError: unknown) {
              reject(readError instanceof Error ? readError : new Error(String(readError)));
            }
          });
          channel.on('error', (channelError: Error) =>
            reject(unavailable(node, `channel error: ${channelError.message}`)),
          );
          channel.on('close', () =>
            reject(unavailable(node, 'the agent closed the channel before replying')),
          );
          channel.write(encodeFrame(request));
        });
      });
      client.connect({
        sock: socket,
        username: CONTROLLER_SSH_USERNAME,
        privateKey: options.sshPrivateKey,
        // Only publickey: the agent refuses everything else, and the `none` probe would just cost a round trip.
        authHandler: ['publickey'],
        hostVerifier: (key: Buffer): boolean => {
          const offered = sshFingerprintOfBlob(key);
          if (offered === node.hostKeyFingerprint) return true;
          offeredHostKey = offered;
          return false;
        },
        // The deadlines are ours (arm); a second timer inside ssh2 would only race them.
        readyTimeout: 0,
      });
    });
    replied = true;
    return reply;
  } finally {
    clearTimeout(timer);
    await shut(client, socket, socketClosed, replied);
  }
}

/**
 * The reply to our request among the decoded frames, verified, or null when
 * it has not arrived yet. Every frame is verified before its `inReplyTo` is
 * believed. An `error` or reject without `inReplyTo` answers a frame the agent
 * could not read; only ours travels on this channel, so it is the answer.
 */
function findReply(decoded: DecodedFrames, options: ExchangeOptions): Envelope | null {
  const { node, request } = options;
  for (const raw of decoded.messages) {
    let envelope: Envelope;
    try {
      // No replay guard: a reply counts only if it names this call's fresh id, so an old one cannot be passed off.
      envelope = verifyEnvelope(options.nodeKeys, raw, {
        now: options.now(),
        nodeId: node.id,
        types: AGENT_MESSAGE_TYPES,
      });
    } catch (error: unknown) {
      if (!(error instanceof LunaNexaError)) throw error;
      throw new LunaNexaError(error.code, `reply from node ${node.id}: ${error.message}`, error.violations);
    }
    const inReplyTo = 'inReplyTo' in envelope.body ? envelope.body.inReplyTo : undefined;
    if (inReplyTo === request.id) return envelope;
    if (inReplyTo === null && (envelope.type === 'error' || envelope.type === 'assignment.reject')) {
      return envelope;
    }
  }
  if (decoded.error !== null) {
    throw new LunaNexaError(
      decoded.error.code,
      `node ${node.id} broke the framing: ${decoded.error.message}`,
    );
  }
  return null;
}

function clientFailure(node: SouthboundNode, options: ExchangeOptions, error: SshError): LunaNexaError {
  if (error.level === 'client-authentication') {
    // The node does not hold this controller key (wrong node, a key rotation it never got, or an enrollment answer still on its way).
    return new ControllerKeyRefusedError(node.id, options.controllerKeyId);
  }
  const detail = error.code === undefined ? error.message : `${error.code}: ${error.message}`;
  return unavailable(node, detail);
}

/**
 * FORBIDDEN because the node does not trust this controller key. Its own
 * class so the one caller that may wait it out (the reachability check of a
 * node whose enrollment answer may still be on its way) can tell it from a
 * refused subsystem, which no wait mends.
 */
export class ControllerKeyRefusedError extends LunaNexaError {
  constructor(
    readonly nodeId: string,
    readonly controllerKeyId: string,
  ) {
    super(
      ErrorCode.FORBIDDEN,
      `node ${nodeId} refused controller key ${controllerKeyId} (SSH publickey authentication failed)`,
    );
    this.name = 'ControllerKeyRefusedError';
  }
}

function subsystemFailure(node: SouthboundNode, error: SshError): LunaNexaError {
  // ssh2 gives no code for "the server said no" to a subsystem; a session-open failure carries `reason`.
  if (error.reason === undefined && error.message.startsWith('Unable to start subsystem')) {
    return new LunaNexaError(
      ErrorCode.FORBIDDEN,
      `node ${node.id} refused the ${AGENT_SSH_SUBSYSTEM} subsystem (does it speak this protocol version?)`,
    );
  }
  // A refused session (the agent's per-connection limit) or a connection lost meanwhile: worth retrying.
  return unavailable(node, `could not open the ${AGENT_SSH_SUBSYSTEM} subsystem: ${error.message}`);
}

function hostKeyMismatch(node: SouthboundNode, offered: string): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.SIGNATURE_INVALID,
    `host key ${offered} of node ${node.id} at ${endpoint(node)} does not match the pinned ` +
      `${node.hostKeyFingerprint}; refused before authenticating, nothing was sent`,
  );
}

function unavailable(node: SouthboundNode, detail: string): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    `node ${node.id} at ${endpoint(node)}: ${detail}`,
  );
}

function endpoint(node: SouthboundNode): string {
  return node.address.includes(':') ? `[${node.address}]:${node.sshPort}` : `${node.address}:${node.sshPort}`;
}

/**
 * Ends the connection and waits until the socket is gone, so a finished call
 * holds no handle. After a reply the DISCONNECT is polite (the agent logs a
 * clean close); on any failure the socket is destroyed at once.
 */
async function shut(client: Client, socket: Socket, closed: Promise<void>, graceful: boolean): Promise<void> {
  if (graceful) client.end();
  else socket.destroy();
  const force = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  await closed;
  clearTimeout(force);
}
