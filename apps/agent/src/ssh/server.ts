import { verify } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { AGENT_SSH_SUBSYSTEM, sshFingerprintOfBlob } from '@lunanexa/agent-protocol';
import type { Logger } from '@lunanexa/observability';
import { Server, type AuthContext, type Connection, type ServerChannel, type Session } from 'ssh2';
import { sanitizeDetail, type SshRefusalLog, type SshRefusedRequest } from './refusals';
import type { ChannelPeer } from './protocol-channel';
import type { ControllerTrust } from './trust';

export interface SshServerLimits {
  /** Open TCP connections at once; more are dropped before the SSH handshake. */
  readonly maxConnections: number;
  /** A connection that has not authenticated by then is closed. */
  readonly authTimeoutMs: number;
  /** Failed authentication attempts per connection before it is closed. */
  readonly maxAuthFailures: number;
  /**
   * Open session channels per connection. A refused shell/exec/subsystem
   * leaves the session open (SSH lets the client try another request on it),
   * so this bounds what one connection can hold.
   */
  readonly maxSessions: number;
}

export const DEFAULT_SSH_LIMITS: SshServerLimits = {
  maxConnections: 16,
  authTimeoutMs: 20_000,
  maxAuthFailures: 6,
  maxSessions: 16,
};

/** How long close() lets connections end on their own before destroying their sockets. */
const CLOSE_GRACE_MS = 2_000;

export interface AgentSshServerOptions {
  readonly host: string;
  readonly port: number;
  /** OpenSSH private key text of the host key. */
  readonly hostKey: string;
  /** Consulted at every authentication, so a key trusted after start (enrollment) is accepted from then on. */
  readonly trust: ControllerTrust;
  readonly refusals: SshRefusalLog;
  readonly logger: Logger;
  /** Called with the channel of an accepted `lunanexa-agent-v1` subsystem. */
  readonly openProtocolChannel: (channel: ServerChannel, peer: ChannelPeer) => void;
  readonly limits?: Partial<SshServerLimits>;
  /** Told of every ssh-ed25519 key offered that is not trusted (a controller that rotated past this node?). */
  readonly onUntrustedKey?: (offered: Buffer) => void;
}

export interface AgentSshServer {
  readonly address: AddressInfo;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/**
 * The agent's SSH server: the controller's only way in (DESIGN.md invariant 6,
 * "no remote arbitrary shell path to a node"). It accepts
 *
 * - authentication: `publickey` with one of the authorized controller keys,
 *   and nothing else (password, keyboard-interactive, hostbased, none and
 *   unknown keys are refused);
 * - channels: `session` only, and on a session exactly one request — the
 *   `lunanexa-agent-v1` subsystem.
 *
 * Everything else that ssh2 surfaces — shell, exec, pty, env, x11, agent
 * forwarding, signals, window changes, other subsystems (sftp included),
 * direct-tcpip, tcpip-forward, streamlocal in both directions — is refused and
 * reported through the refusal log. Channel types and requests ssh2 does not
 * surface at all are refused by ssh2 itself. There is no code path here that
 * starts a process, opens a socket or touches a file on a client's behalf.
 */
export async function startAgentSshServer(options: AgentSshServerOptions): Promise<AgentSshServer> {
  const limits: SshServerLimits = { ...DEFAULT_SSH_LIMITS, ...options.limits };
  const connections = new Set<Connection>();
  const sockets = new Set<Socket>();
  // ssh2's Server never listens itself: our TCP server hands it sockets, so we can count and destroy them.
  const ssh = new Server({ hostKeys: [options.hostKey], ident: 'lunanexa-agent' });
  // No Nagle: the handshake is a ping-pong of small packets, and each one otherwise waits out the peer's
  // delayed ACK (about 40 ms), twice per connection.
  const tcp = createServer({ noDelay: true }, (socket) => {
    if (sockets.size >= limits.maxConnections) {
      options.logger.warn(
        { event: 'ssh_connection_limit', remoteAddress: `${socket.remoteAddress}:${socket.remotePort}` },
        'ssh connection dropped: too many open',
      );
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    ssh.injectSocket(socket);
  });

  ssh.on('connection', (client: Connection, info: { ip: string; port: number }) => {
    connections.add(client);
    const remoteAddress = `${info.ip}:${info.port}`;
    const log = options.logger.child({ remoteAddress });
    let username: string | null = null;
    let keyId: string | null = null;
    let authFailures = 0;
    let sessions = 0;

    const report = (request: SshRefusedRequest, detail: string | null = null): void => {
      options.refusals.report({ request, remoteAddress, username, keyId, detail });
    };

    const authTimer = setTimeout(() => {
      log.warn({ event: 'ssh_auth_timeout' }, 'ssh client did not authenticate in time; closing');
      client.end();
    }, limits.authTimeoutMs);
    authTimer.unref();

    client.on('error', (error: Error) => {
      log.debug({ err: error }, 'ssh connection error');
    });
    client.on('close', () => {
      clearTimeout(authTimer);
      connections.delete(client);
    });

    client.on('authentication', (ctx: AuthContext) => {
      username = ctx.username;
      const refuse = (request: SshRefusedRequest, detail: string | null = null): void => {
        report(request, detail);
        authFailures += 1;
        ctx.reject(['publickey']);
        if (authFailures >= limits.maxAuthFailures) {
          log.warn({ event: 'ssh_auth_failures' }, 'too many failed ssh authentications; closing');
          client.end();
        }
      };
      switch (ctx.method) {
        case 'publickey': {
          const offered = ctx.key.data;
          const match = ctx.key.algo === 'ssh-ed25519' ? options.trust.findByBlob(offered) : undefined;
          if (match === undefined) {
            if (ctx.key.algo === 'ssh-ed25519') options.onUntrustedKey?.(offered);
            refuse('auth-publickey', `${ctx.key.algo} ${sshFingerprintOfBlob(offered)}`);
            return;
          }
          // Without a signature the client only asks whether the key would do (RFC 4252 §7).
          if (ctx.signature === undefined || ctx.blob === undefined) {
            ctx.accept();
            return;
          }
          if (!verify(null, ctx.blob, match.publicKey, ctx.signature)) {
            refuse('auth-publickey', `bad signature for ${match.keyId}`);
            return;
          }
          keyId = match.keyId;
          log.info(
            { event: 'ssh_authenticated', keyId, username: sanitizeDetail(ctx.username) },
            'controller authenticated',
          );
          ctx.accept();
          return;
        }
        case 'none':
          // The probe every client sends to learn the allowed methods: refused, not reported.
          ctx.reject(['publickey']);
          return;
        case 'password':
          refuse('auth-password');
          return;
        case 'keyboard-interactive':
          refuse('auth-keyboard-interactive');
          return;
        case 'hostbased':
          refuse('auth-hostbased');
          return;
      }
    });

    client.on('ready', () => {
      clearTimeout(authTimer);
    });

    client.on('session', (accept, reject) => {
      if (sessions >= limits.maxSessions) {
        log.warn(
          { event: 'ssh_session_limit', sessions },
          'ssh session refused: too many on this connection',
        );
        reject();
        return;
      }
      sessions += 1;
      const session: Session = accept();
      session.on('close', () => {
        sessions -= 1;
      });
      serveSession(session);
    });

    client.on('tcpip', (_accept, reject, info) => {
      report('direct-tcpip', `${info.destIP}:${info.destPort}`);
      reject();
    });
    client.on('openssh.streamlocal', (_accept, reject, info) => {
      report('streamlocal', info.socketPath);
      reject();
    });
    client.on(
      'request',
      (
        _accept: unknown,
        reject: (() => void) | undefined,
        name: string,
        info: { bindAddr?: string; bindPort?: number; socketPath?: string },
      ) => {
        if (name === 'tcpip-forward' || name === 'cancel-tcpip-forward') {
          report('tcpip-forward', `${info.bindAddr ?? '?'}:${info.bindPort ?? '?'}`);
        } else report('streamlocal', info.socketPath ?? name);
        reject?.();
      },
    );

    /**
     * One session carries at most one thing: the protocol subsystem. Until it
     * starts, other requests are refused (the client may still ask for it);
     * once it runs, any further request closes the channel.
     */
    function serveSession(session: Session): void {
      let active: ServerChannel | null = null;
      const refuse = (
        request: SshRefusedRequest,
        reject: (() => void) | undefined,
        detail: string | null = null,
      ): void => {
        report(request, detail);
        if (active !== null) active.close();
        else reject?.();
      };
      session.on('pty', (_accept, reject: (() => void) | undefined, info) =>
        refuse('pty', reject, info.term),
      );
      session.on('env', (_accept, reject: (() => void) | undefined, info) => refuse('env', reject, info.key));
      session.on('x11', (_accept, reject: (() => void) | undefined) => refuse('x11', reject));
      session.on('auth-agent', (_accept, reject: (() => void) | undefined) => refuse('auth-agent', reject));
      session.on('signal', (_accept, reject: (() => void) | undefined, info) =>
        refuse('signal', reject, info.name),
      );
      session.on('window-change', (_accept, reject: (() => void) | undefined) =>
        refuse('window-change', reject),
      );
      session.on('shell', (_accept, reject: (() => void) | undefined) => refuse('shell', reject));
      session.on('exec', (_accept, reject: (() => void) | undefined, info) =>
        // The command text is never logged or kept: only that one was sent, and its size.
        refuse('exec', reject, `command of ${Buffer.byteLength(info.command, 'utf8')} bytes`),
      );
      session.on('subsystem', (accept, reject: (() => void) | undefined, info) => {
        if (active !== null || info.name !== AGENT_SSH_SUBSYSTEM || keyId === null) {
          refuse('subsystem', reject, info.name);
          return;
        }
        active = accept();
        log.info({ event: 'ssh_subsystem_started', keyId }, `${AGENT_SSH_SUBSYSTEM} started`);
        options.openProtocolChannel(active, { remoteAddress, keyId });
      });
    }
  });

  ssh.on('error', (error: Error) => {
    options.logger.error({ err: error }, 'ssh server error');
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => {
      tcp.off('listening', listening);
      reject(error);
    };
    const listening = (): void => {
      tcp.off('error', failed);
      resolve();
    };
    tcp.once('error', failed);
    tcp.once('listening', listening);
    tcp.listen(options.port, options.host);
  });
  tcp.on('error', (error: Error) => {
    options.logger.error({ err: error }, 'ssh listener error');
  });
  const address = tcp.address() as AddressInfo;

  return {
    address,
    async close() {
      const closed = new Promise<void>((resolve) => {
        tcp.close(() => resolve());
      });
      for (const client of connections) client.end();
      const force = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, CLOSE_GRACE_MS);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
