import type { RuntimeHealthCheck } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import type { RuntimeExit, RuntimeHandle } from '../runtimes/adapter';
import type { ContainerEngine } from '../runtimes/container-engine';
import { DEFAULT_STOP_GRACE_MS } from '../runtimes/supervised-runtime';

/** How often an adopted container is inspected. */
const WATCH_INTERVAL_MS = 1_000;
/** Inspections that fail in a row (the engine itself is down) before the container counts as gone. */
const MAX_FAILED_INSPECTIONS = 30;

/** What the reconciler needs of any runtime it took over from an earlier run (a process group or a container). */
export interface AdoptedHandle extends RuntimeHandle {
  exitStatus(): RuntimeExit | null;
  /** Stops watching without touching the runtime (the agent is shutting down and leaves it running). */
  release(): void;
}

/**
 * A container started by an earlier run of the agent whose `<engine> run`
 * foreground CLI may be gone (the agent's whole cgroup died with it), while
 * the container kept running inside the engine. It is watched through
 * `<engine> inspect` and stopped with `<engine> stop` then `rm -f`. Its
 * endpoint is the published port the record names.
 */
export class AdoptedContainer implements AdoptedHandle {
  readonly exited: Promise<RuntimeExit>;
  private timer: NodeJS.Timeout | undefined;
  private resolveExit: ((exit: RuntimeExit) => void) | undefined;
  private exit: RuntimeExit | null = null;
  private stopping: Promise<RuntimeExit> | null = null;
  private failedInspections = 0;

  constructor(
    readonly assignmentId: string,
    readonly runtimeId: string,
    readonly endpoint: string,
    /** The pid recorded at launch (the engine CLI's); the container itself is known by name. */
    readonly pid: number,
    readonly startedAt: Date,
    readonly healthCheck: RuntimeHealthCheck,
    readonly containerName: string,
    private readonly engine: ContainerEngine,
    private readonly logger: Logger,
  ) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.watch();
  }

  private watch(): void {
    this.timer = setTimeout(() => {
      void this.engine.inspect(this.containerName).then(
        (state) => {
          this.failedInspections = 0;
          if (state === null || !state.running) this.markExited(state?.exitCode ?? null);
          else if (this.exit === null) this.watch();
        },
        (error: unknown) => {
          this.failedInspections += 1;
          this.logger.warn(
            { err: error, assignmentId: this.assignmentId, container: this.containerName },
            'inspecting the adopted container failed',
          );
          if (this.failedInspections >= MAX_FAILED_INSPECTIONS) this.markExited(null);
          else if (this.exit === null) this.watch();
        },
      );
    }, WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  private markExited(code: number | null): void {
    if (this.exit !== null) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.exit = { code, signal: null, status: code === null ? 255 : code & 0xff, at: new Date() };
    this.logger.info(
      {
        assignmentId: this.assignmentId,
        container: this.containerName,
        exitCode: code,
        stopping: this.stopping !== null,
      },
      'adopted container is gone',
    );
    this.resolveExit?.(this.exit);
  }

  exitStatus(): RuntimeExit | null {
    return this.exit;
  }

  release(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  stop(options: { readonly graceMs?: number } = {}): Promise<RuntimeExit> {
    this.stopping ??= this.terminate(options.graceMs ?? DEFAULT_STOP_GRACE_MS);
    return this.stopping;
  }

  private async terminate(graceMs: number): Promise<RuntimeExit> {
    this.logger.info(
      { assignmentId: this.assignmentId, container: this.containerName, graceMs },
      'stopping adopted container',
    );
    let exitCode: number | null = null;
    try {
      await this.engine.stop(this.containerName, graceMs);
      exitCode = (await this.engine.inspect(this.containerName))?.exitCode ?? null;
      await this.engine.remove(this.containerName);
    } catch (error: unknown) {
      this.logger.error(
        { err: error, assignmentId: this.assignmentId, container: this.containerName },
        'the engine did not stop the adopted container',
      );
    }
    this.markExited(exitCode);
    return this.exited;
  }
}
