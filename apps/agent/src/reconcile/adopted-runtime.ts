import type { RuntimeHealthCheck } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import type { RuntimeExit } from '../runtimes/adapter';
import { signalGroup, waitForEmptyGroup } from '../runtimes/process-group';
import { DEFAULT_STOP_GRACE_MS } from '../runtimes/supervised-runtime';
import type { AdoptedHandle } from './adopted-container';
import { processIdentity } from './proc';

/** How often an adopted runtime's process is looked up in /proc. */
const WATCH_INTERVAL_MS = 500;
/** After SIGKILL, how long to wait for the group to disappear from /proc. */
const KILL_SETTLE_MS = 5_000;

/**
 * A runtime started by an earlier run of the agent (which was restarted or
 * killed) and taken over without interrupting it. It is not this process's
 * child, so there is no exit event: its end is noticed by polling /proc for
 * its pid with the same start time. Its exit status cannot be known.
 */
export class AdoptedRuntime implements AdoptedHandle {
  readonly exited: Promise<RuntimeExit>;
  private timer: NodeJS.Timeout | undefined;
  private resolveExit: ((exit: RuntimeExit) => void) | undefined;
  private exit: RuntimeExit | null = null;
  private stopping: Promise<RuntimeExit> | null = null;

  constructor(
    readonly assignmentId: string,
    readonly runtimeId: string,
    readonly endpoint: string,
    readonly pid: number,
    readonly startedAt: Date,
    readonly healthCheck: RuntimeHealthCheck,
    private readonly processStartTime: string,
    private readonly logger: Logger,
  ) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.watch();
  }

  private watch(): void {
    this.timer = setTimeout(() => {
      void processIdentity(this.pid).then((identity) => {
        if (identity === null || identity.startTime !== this.processStartTime) this.markExited();
        else if (this.exit === null) this.watch();
      });
    }, WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  private markExited(): void {
    if (this.exit !== null) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    // Not our child: neither the code nor the signal is observable.
    this.exit = { code: null, signal: null, status: 255, at: new Date() };
    this.logger.info(
      {
        assignmentId: this.assignmentId,
        runtimeId: this.runtimeId,
        pid: this.pid,
        stopping: this.stopping !== null,
      },
      'adopted runtime process is gone',
    );
    this.resolveExit?.(this.exit);
  }

  exitStatus(): RuntimeExit | null {
    return this.exit;
  }

  isStopping(): boolean {
    return this.stopping !== null;
  }

  /** Stops watching without touching the process (the agent is shutting down and leaves it running). */
  release(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  stop(options: { readonly graceMs?: number } = {}): Promise<RuntimeExit> {
    this.stopping ??= this.terminate(options.graceMs ?? DEFAULT_STOP_GRACE_MS);
    return this.stopping;
  }

  private async terminate(graceMs: number): Promise<RuntimeExit> {
    if (this.exit === null) {
      this.logger.info(
        { assignmentId: this.assignmentId, pid: this.pid, graceMs },
        'stopping adopted runtime',
      );
      signalGroup(this.pid, 'SIGTERM');
      if (!(await waitForEmptyGroup(this.pid, graceMs))) {
        this.logger.warn(
          { assignmentId: this.assignmentId, pid: this.pid },
          'runtime ignored SIGTERM; killing',
        );
      }
    }
    // Whatever is left of the group goes, workers included.
    signalGroup(this.pid, 'SIGKILL');
    if (!(await waitForEmptyGroup(this.pid, KILL_SETTLE_MS))) {
      this.logger.error({ assignmentId: this.assignmentId, pgid: this.pid }, 'processes survive SIGKILL');
    }
    this.markExited();
    return this.exited;
  }
}

/**
 * Stops a process group the agent found running but will not adopt (an
 * orphan): SIGTERM, SIGKILL after `graceMs`, and waits until /proc shows none
 * of it. False if something survived.
 */
export async function killProcessGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return true;
  if (await waitForEmptyGroup(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitForEmptyGroup(pgid, KILL_SETTLE_MS);
}
