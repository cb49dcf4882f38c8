import { spawn, type ChildProcess } from 'node:child_process';
import type { RuntimeHealthCheck } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import type { RuntimeExit, RuntimeHandle } from './adapter';
import { RuntimeError } from './errors';
import { exitStatusOf, signalGroup, waitForEmptyGroup } from './process-group';

/** How long a runtime may take to exit after SIGTERM before it is killed. */
export const DEFAULT_STOP_GRACE_MS = 10_000;
/** After SIGKILL, how long to wait for the group to disappear from /proc. */
const KILL_SETTLE_MS = 5_000;

export interface LaunchCommand {
  /** Absolute path or program name, exec'd directly (no shell). */
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the process. */
  readonly env: Readonly<Record<string, string>>;
}

export interface SupervisedLaunch {
  readonly command: LaunchCommand;
  readonly assignmentId: string;
  readonly runtimeId: string;
  readonly endpoint: string;
  readonly healthCheck: RuntimeHealthCheck;
  /** `binary`: the process is the runtime; `container`: it is the engine CLI attached to the container. */
  readonly packaging: 'binary' | 'container';
  /** A gentler first step than SIGTERM (a container engine's `stop`); bounded by the grace period. */
  readonly gracefulStop?: (graceMs: number) => Promise<void>;
  readonly logger: Logger;
}

/**
 * One runtime process the agent started, in its own process group. Its output
 * is not captured: runtimes may log prompts (vLLM does with request logging
 * on), and the agent keeps no payloads. What the agent knows about a runtime
 * comes from its exit status, its health endpoint and /proc.
 */
export class SupervisedRuntime implements RuntimeHandle {
  readonly assignmentId: string;
  readonly runtimeId: string;
  readonly endpoint: string;
  readonly healthCheck: RuntimeHealthCheck;
  readonly packaging: 'binary' | 'container';
  readonly pid: number;
  readonly startedAt: Date;
  readonly exited: Promise<RuntimeExit>;

  /** Health bookkeeping, written by health checks. */
  everReady = false;
  probes = 0;
  failedProbes = 0;
  lastProbeLatencyMs: number | null = null;

  private exit: RuntimeExit | null = null;
  private stopping: Promise<RuntimeExit> | null = null;
  private readonly logger: Logger;
  private readonly gracefulStop: ((graceMs: number) => Promise<void>) | undefined;

  private constructor(launch: SupervisedLaunch, child: ChildProcess, pid: number) {
    this.assignmentId = launch.assignmentId;
    this.runtimeId = launch.runtimeId;
    this.endpoint = launch.endpoint;
    this.healthCheck = launch.healthCheck;
    this.packaging = launch.packaging;
    this.gracefulStop = launch.gracefulStop;
    this.logger = launch.logger;
    this.pid = pid;
    this.startedAt = new Date();
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal, status: exitStatusOf(code, signal), at: new Date() };
        this.logger.info(
          {
            assignmentId: this.assignmentId,
            runtimeId: this.runtimeId,
            pid,
            code,
            signal,
            status: this.exit.status,
            stopping: this.stopping !== null,
          },
          'runtime process exited',
        );
        resolve(this.exit);
      });
    });
  }

  /** Spawns the command detached (own session and process group); resolves once the kernel has exec'd it. */
  static launch(launch: SupervisedLaunch): Promise<SupervisedRuntime> {
    const { command } = launch;
    return new Promise((resolve, reject) => {
      const child = spawn(command.command, [...command.args], {
        detached: true,
        stdio: 'ignore',
        env: { ...command.env },
        windowsHide: true,
      });
      const onError = (error: Error): void => {
        reject(
          new RuntimeError(
            'SPAWN_FAILED',
            `could not start runtime ${launch.runtimeId}: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          ),
        );
      };
      child.once('error', onError);
      child.once('spawn', () => {
        child.off('error', onError);
        child.on('error', (error: Error) =>
          launch.logger.error({ err: error, runtimeId: launch.runtimeId }, 'runtime process error'),
        );
        if (child.pid === undefined) {
          reject(new RuntimeError('SPAWN_FAILED', `runtime ${launch.runtimeId} has no pid after spawn`));
          return;
        }
        const runtime = new SupervisedRuntime(launch, child, child.pid);
        launch.logger.info(
          {
            assignmentId: launch.assignmentId,
            runtimeId: launch.runtimeId,
            pid: child.pid,
            packaging: launch.packaging,
            executable: command.command,
            endpoint: launch.endpoint,
          },
          'runtime process started',
        );
        resolve(runtime);
      });
    });
  }

  exitStatus(): RuntimeExit | null {
    return this.exit;
  }

  isStopping(): boolean {
    return this.stopping !== null;
  }

  stop(options: { readonly graceMs?: number } = {}): Promise<RuntimeExit> {
    this.stopping ??= this.terminate(options.graceMs ?? DEFAULT_STOP_GRACE_MS);
    return this.stopping;
  }

  private async terminate(graceMs: number): Promise<RuntimeExit> {
    if (this.exit === null) {
      this.logger.info({ assignmentId: this.assignmentId, pid: this.pid, graceMs }, 'stopping runtime');
      let gentle = false;
      if (this.gracefulStop !== undefined) {
        try {
          await this.gracefulStop(graceMs);
          gentle = true;
        } catch (error: unknown) {
          this.logger.warn(
            { err: error, assignmentId: this.assignmentId },
            'graceful stop failed; signalling the process group',
          );
        }
      }
      if (!gentle) signalGroup(this.pid, 'SIGTERM');
      // After an engine stop, the CLI only needs a moment to notice its container is gone.
      const exitedInTime = await this.exitWithin(gentle ? Math.min(graceMs, KILL_SETTLE_MS) : graceMs);
      if (!exitedInTime) {
        this.logger.warn(
          { assignmentId: this.assignmentId, pid: this.pid },
          'runtime ignored SIGTERM; killing',
        );
        signalGroup(this.pid, 'SIGKILL');
      }
    }
    const exit = await this.exited;
    // Workers the runtime forked may outlive it; nothing of the group may stay behind.
    if (signalGroup(this.pid, 'SIGKILL')) {
      this.logger.warn(
        { assignmentId: this.assignmentId, pgid: this.pid },
        'killed processes left in the group',
      );
    }
    if (!(await waitForEmptyGroup(this.pid, KILL_SETTLE_MS))) {
      this.logger.error({ assignmentId: this.assignmentId, pgid: this.pid }, 'processes survive SIGKILL');
    }
    return exit;
  }

  private async exitWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(timer);
    return result;
  }
}
