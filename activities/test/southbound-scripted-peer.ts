import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  AGENT_SSH_SUBSYSTEM,
  createEnvelope,
  ed25519KeyId,
  encodeFrame,
  FrameDecoder,
  openSshPrivateKey,
  openSshPublicKey,
  signEnvelope,
  sshFingerprintOfBlob,
  type BodyOf,
  type Envelope,
  type MessageType,
} from '@lunanexa/agent-protocol';
import { AGENT_PROTOCOL_VERSION } from '@lunanexa/contracts';
import { Server, utils, type Connection, type ServerChannel } from 'ssh2';
import type { SouthboundNode } from '../src/southbound';

/**
 * An SSH server that speaks the subsystem but answers as each test scripts
 * it: silence, a forged signature, replies to someone else. The real agent
 * never misbehaves like this, and the client's handling of it is what is
 * under test. It authenticates nobody in particular — every publickey is let
 * in — because the client, not the gate, is what these tests exercise.
 */
export interface ScriptedPeer {
  /** The node as the controller would hold it: this server's host key pinned, `nodeKey` trusted. */
  readonly node: SouthboundNode;
  /** Signs a reply with the trusted node key (or `signer`, to forge one under the trusted key id). */
  reply<T extends MessageType>(type: T, body: BodyOf<T>, signer?: KeyObject): Envelope;
  /** TCP connections accepted so far, and how many of them have closed. */
  readonly stats: { connections: number; closed: number };
  /** Resolves once every accepted connection has closed (rejects after `ms`). */
  allClosed(ms: number): Promise<void>;
  close(): Promise<void>;
}

export type Script = (request: unknown, send: (envelope: Envelope) => void, peer: ScriptedPeer) => void;

export async function startScriptedPeer(nodeId: string, script: Script): Promise<ScriptedPeer> {
  // Written by the project's own encoder: about 4 in 1000 of ssh2's generated Ed25519 keys fail its own parser.
  const hostKey = openSshPrivateKey(generateKeyPairSync('ed25519').privateKey, 'scripted peer host key');
  const parsed = utils.parseKey(hostKey);
  if (parsed instanceof Error) throw parsed;
  const nodeKey = generateKeyPairSync('ed25519');
  const nodeKeyId = ed25519KeyId(nodeKey.publicKey);
  const connections = new Set<Connection>();
  const stats = { connections: 0, closed: 0 };
  const closeWaiters: (() => void)[] = [];
  const server = new Server({ hostKeys: [hostKey] });

  server.on('connection', (client) => {
    stats.connections += 1;
    connections.add(client);
    client.on('error', () => undefined);
    client.on('close', () => {
      stats.closed += 1;
      connections.delete(client);
      if (stats.closed === stats.connections) for (const done of closeWaiters.splice(0)) done();
    });
    client.on('authentication', (ctx) =>
      ctx.method === 'publickey' ? ctx.accept() : ctx.reject(['publickey']),
    );
    client.on('session', (accept) => {
      accept().on('subsystem', (acceptSubsystem, reject, info) => {
        if (info.name !== AGENT_SSH_SUBSYSTEM) {
          reject();
          return;
        }
        serve(acceptSubsystem());
      });
    });
  });

  function serve(channel: ServerChannel): void {
    const decoder = new FrameDecoder();
    channel.on('data', (chunk: Buffer) => {
      for (const message of decoder.push(chunk).messages) {
        script(message, (envelope) => channel.write(encodeFrame(envelope)), peer);
      }
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  // Declared after the handlers that use it: they run only once a client connects, after listen().
  const peer: ScriptedPeer = {
    node: {
      id: nodeId,
      address: '127.0.0.1',
      sshPort: port,
      hostKeyFingerprint: sshFingerprintOfBlob(parsed.getPublicSSH()),
      keyIds: [nodeKeyId],
      publicKeys: [openSshPublicKey(nodeKey.publicKey)],
      agentProtocol: AGENT_PROTOCOL_VERSION,
    },
    reply(type, body, signer = nodeKey.privateKey) {
      return signEnvelope(signer, nodeKeyId, createEnvelope(type, { nodeId, body }));
    },
    stats,
    allClosed(ms) {
      if (stats.closed === stats.connections) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${stats.connections - stats.closed} connection(s) still open after ${ms} ms`)),
          ms,
        );
        closeWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const client of connections) client.end();
      await closed;
    },
  };
  return peer;
}
