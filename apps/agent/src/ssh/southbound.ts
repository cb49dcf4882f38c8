import { join } from 'node:path';
import type { Logger } from '@lunanexa/observability';
import type { ServerChannel } from 'ssh2';
import { DEFAULT_HOST_KEY_FILE, type SshConfig } from '../config';
import { loadOrCreateHostKey, type NodeKeyRing } from './keys';
import { serveProtocolChannel, type ChannelPeer, type SouthboundContext } from './protocol-channel';
import type { SshRefusalLog } from './refusals';
import { startAgentSshServer, type AgentSshServer, type SshServerLimits } from './server';
import type { ControllerTrust } from './trust';

/** The SSH surface as /health shows it: what a controller pins and which keys it may use. */
export interface SshHealth {
  readonly host: string;
  readonly port: number;
  /** `SHA256:…` of the host key, to compare with what enrollment pinned. */
  readonly hostKeyFingerprint: string;
  /** Key id on everything this node signs (changes when the node key is rotated). */
  readonly nodeKeyId: string;
  readonly controllerKeyIds: readonly string[];
}

export interface Southbound {
  readonly server: AgentSshServer;
  readonly hostKeyFingerprint: string;
  /**
   * Starts answering the protocol subsystem. Until then (the agent is still
   * enrolling, so it does not know its node id yet) a subsystem channel is
   * closed as soon as it opens.
   */
  serve(context: SouthboundContext): void;
  health(): SshHealth;
  close(): Promise<void>;
}

export interface SouthboundOptions {
  readonly ssh: SshConfig;
  readonly dataDir: string;
  /** Names the host key in its comment. */
  readonly nodeName: string;
  readonly trust: ControllerTrust;
  readonly nodeKeys: NodeKeyRing;
  readonly refusals: SshRefusalLog;
  readonly logger: Logger;
  readonly limits?: Partial<SshServerLimits>;
  /** Told of every ssh-ed25519 key offered that is not trusted. */
  readonly onUntrustedKey?: (offered: Buffer) => void;
}

/**
 * Starts the controller → agent channel: loads (or on first start generates)
 * the host key and listens. It listens before the agent is enrolled, because
 * the enrollment request carries the bound port and the host key fingerprint.
 */
export async function startSouthbound(options: SouthboundOptions): Promise<Southbound> {
  const { ssh, logger } = options;
  const hostKeyFile = ssh.hostKeyFile ?? join(options.dataDir, DEFAULT_HOST_KEY_FILE);
  const hostKey = await loadOrCreateHostKey(hostKeyFile, `lunanexa-agent ${options.nodeName} host key`);
  if (hostKey.created)
    logger.info({ file: hostKeyFile, fingerprint: hostKey.fingerprint }, 'ssh host key generated');

  let context: SouthboundContext | null = null;
  const open = (channel: ServerChannel, peer: ChannelPeer): void => {
    if (context === null) {
      logger.warn(
        { event: 'southbound_not_ready', remoteAddress: peer.remoteAddress },
        'protocol channel closed: the agent is still starting',
      );
      channel.close();
      return;
    }
    serveProtocolChannel(channel, context, peer);
  };
  const server = await startAgentSshServer({
    host: ssh.host,
    port: ssh.port,
    hostKey: hostKey.privateKey,
    trust: options.trust,
    refusals: options.refusals,
    logger: logger.child({ component: 'ssh' }),
    openProtocolChannel: open,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.onUntrustedKey === undefined ? {} : { onUntrustedKey: options.onUntrustedKey }),
  });
  return {
    server,
    hostKeyFingerprint: hostKey.fingerprint,
    serve(next) {
      context = next;
    },
    health: () => ({
      host: server.address.address,
      port: server.address.port,
      hostKeyFingerprint: hostKey.fingerprint,
      nodeKeyId: options.nodeKeys.current().keyId,
      controllerKeyIds: options.trust.keyIds(),
    }),
    close: () => server.close(),
  };
}
