import { join } from 'node:path';
import { DEFAULT_MAX_SKEW_MS, parseEd25519PublicKey, ReplayGuard } from '@lunanexa/agent-protocol';
import type { Logger } from '@lunanexa/observability';
import { DEFAULT_HOST_KEY_FILE, type SshConfig } from '../config';
import type { AgentMetrics } from '../metrics';
import type { AssignmentStore } from './assignment-store';
import { loadOrCreateHostKey, loadOrCreateNodeKey, type NodeKey } from './keys';
import { serveProtocolChannel, type OnAssignmentAccepted } from './protocol-channel';
import type { SshRefusalLog } from './refusals';
import { startAgentSshServer, type AgentSshServer, type SshServerLimits } from './server';

/** The SSH surface as /health shows it: what a controller pins and which keys it may use. */
export interface SshHealth {
  readonly host: string;
  readonly port: number;
  /** `SHA256:…` of the host key, to compare with what enrollment pinned. */
  readonly hostKeyFingerprint: string;
  /** Key id on everything this node signs. */
  readonly nodeKeyId: string;
  readonly controllerKeyIds: readonly string[];
}

export interface Southbound {
  readonly server: AgentSshServer;
  readonly nodeKey: NodeKey;
  health(): SshHealth;
  close(): Promise<void>;
}

export interface SouthboundOptions {
  readonly ssh: SshConfig;
  readonly dataDir: string;
  /** The id envelopes must carry; the node name until enrollment assigns one. */
  readonly nodeId: string;
  readonly store: AssignmentStore;
  readonly refusals: SshRefusalLog;
  readonly metrics: AgentMetrics;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly maxSkewMs?: number;
  readonly onAssignmentAccepted?: OnAssignmentAccepted;
  readonly limits?: Partial<SshServerLimits>;
}

/**
 * Starts the controller → agent channel: loads (or on first start generates)
 * the host key and the node key, then serves SSH with the protocol handler.
 */
export async function startSouthbound(options: SouthboundOptions): Promise<Southbound> {
  const { ssh, logger } = options;
  const hostKeyFile = ssh.hostKeyFile ?? join(options.dataDir, DEFAULT_HOST_KEY_FILE);
  const hostKey = await loadOrCreateHostKey(hostKeyFile, `lunanexa-agent ${options.nodeId} host key`);
  const nodeKey = await loadOrCreateNodeKey(options.dataDir);
  if (hostKey.created)
    logger.info({ file: hostKeyFile, fingerprint: hostKey.fingerprint }, 'ssh host key generated');
  if (nodeKey.created) logger.info({ keyId: nodeKey.keyId }, 'node signing key generated');

  const controllerKeys = ssh.authorizedControllerKeys.map((entry) => ({
    keyId: entry.keyId,
    publicKey: parseEd25519PublicKey(entry.publicKey),
  }));
  const maxSkewMs = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  const context = {
    nodeId: options.nodeId,
    controllerKeys: new Map(controllerKeys.map((key) => [key.keyId, key.publicKey])),
    nodeKey,
    store: options.store,
    replayGuard: new ReplayGuard({ windowMs: maxSkewMs }),
    maxSkewMs,
    now: options.now,
    logger: logger.child({ component: 'southbound' }),
    messages: options.metrics.southboundMessages,
    ...(options.onAssignmentAccepted === undefined
      ? {}
      : { onAssignmentAccepted: options.onAssignmentAccepted }),
  };
  const server = await startAgentSshServer({
    host: ssh.host,
    port: ssh.port,
    hostKey: hostKey.privateKey,
    controllerKeys,
    refusals: options.refusals,
    logger: logger.child({ component: 'ssh' }),
    openProtocolChannel: (channel, peer) => serveProtocolChannel(channel, context, peer),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const health: SshHealth = {
    host: server.address.address,
    port: server.address.port,
    hostKeyFingerprint: hostKey.fingerprint,
    nodeKeyId: nodeKey.keyId,
    controllerKeyIds: controllerKeys.map((key) => key.keyId),
  };
  return { server, nodeKey, health: () => health, close: () => server.close() };
}
