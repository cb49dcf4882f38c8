import type { Logger } from '@lunanexa/observability';
import type { Counter } from 'prom-client';

/**
 * Everything the agent's SSH server refuses and reports, as bounded metric
 * label values. Session requests (`shell`, `exec`, `pty`, `env`, `x11`,
 * `auth-agent`, `signal`, `window-change`, any `subsystem` but the protocol's),
 * forwarding (`direct-tcpip`, `tcpip-forward`, `streamlocal` in either
 * direction) and authentication other than an authorized controller key.
 * The method-discovery probe `none` that every client sends first is refused
 * but not reported: counting it would bury the signal in noise.
 */
export const SSH_REFUSED_REQUESTS = [
  'shell',
  'exec',
  'pty',
  'env',
  'x11',
  'auth-agent',
  'signal',
  'window-change',
  'subsystem',
  'direct-tcpip',
  'tcpip-forward',
  'streamlocal',
  'auth-password',
  'auth-keyboard-interactive',
  'auth-hostbased',
  'auth-publickey',
] as const;
export type SshRefusedRequest = (typeof SSH_REFUSED_REQUESTS)[number];

/** One refusal as /health shows it and the log line records it. No payloads, no command text, no env values. */
export interface SshRefusal {
  readonly at: string;
  readonly request: SshRefusedRequest;
  /** `ip:port` of the SSH client. */
  readonly remoteAddress: string;
  /** The SSH user name the client offered (sanitised), null before authentication started. */
  readonly username: string | null;
  /** The controller key the connection authenticated with; null when it had not. */
  readonly keyId: string | null;
  /** What was asked for, bounded and sanitised: a subsystem or env name, a forwarding target, a command's length. */
  readonly detail: string | null;
}

export const DEFAULT_REFUSAL_RING_SIZE = 50;
const DETAIL_MAX = 128;

/** Printable ASCII only, bounded: a client-chosen string must not forge log lines or grow the ring. */
export function sanitizeDetail(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > DETAIL_MAX ? `${printable.slice(0, DETAIL_MAX)}…` : printable;
}

/**
 * Reports refusals three ways: a structured warn log line
 * (`event: "ssh_request_refused"`), the counter
 * `lunanexa_agent_ssh_refused_total{request}`, and an in-memory ring of the
 * most recent ones that /health exposes as `sshRefusals`.
 */
export class SshRefusalLog {
  private readonly ring: SshRefusal[] = [];
  private readonly listeners: ((refusal: SshRefusal) => void)[] = [];

  constructor(
    private readonly deps: {
      readonly counter: Counter<'request'>;
      readonly logger: Logger;
      readonly now: () => Date;
      readonly capacity?: number;
    },
  ) {}

  report(refusal: Omit<SshRefusal, 'at'>): void {
    const entry: SshRefusal = {
      at: this.deps.now().toISOString(),
      request: refusal.request,
      remoteAddress: refusal.remoteAddress,
      username: refusal.username === null ? null : sanitizeDetail(refusal.username),
      keyId: refusal.keyId,
      detail: refusal.detail === null ? null : sanitizeDetail(refusal.detail),
    };
    this.ring.push(entry);
    const capacity = this.deps.capacity ?? DEFAULT_REFUSAL_RING_SIZE;
    if (this.ring.length > capacity) this.ring.splice(0, this.ring.length - capacity);
    this.deps.counter.inc({ request: entry.request });
    this.deps.logger.warn({ event: 'ssh_request_refused', ...entry }, `ssh ${entry.request} refused`);
    for (const listener of this.listeners) listener(entry);
  }

  /** Also hands every later refusal to `listener` (the heartbeat reports them to the controller). */
  subscribe(listener: (refusal: SshRefusal) => void): void {
    this.listeners.push(listener);
  }

  /** Oldest first. */
  recent(): readonly SshRefusal[] {
    return [...this.ring];
  }
}
