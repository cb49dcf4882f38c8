import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { resolveExecutable } from './host';
import { CONTAINER_CLI_ENV, containerStopArgs } from './launch';

const execFileAsync = promisify(execFile);

/** How long a `ps` or `inspect` may take before the engine counts as unavailable for this sweep. */
const QUERY_TIMEOUT_MS = 15_000;
/** Extra time the engine's `stop` gets beyond the grace period before the agent gives up on it. */
const STOP_SLACK_MS = 10_000;

/** A container as `<engine> inspect` describes it (the fields docker and podman share). */
export interface ContainerState {
  readonly id: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly running: boolean;
  /** `running`, `exited`, `created`, … in the engine's words. */
  readonly status: string;
  /** The container's main process on the host; null when not running. */
  readonly pid: number | null;
  readonly exitCode: number | null;
  readonly createdAt: Date | null;
}

export class ContainerEngineError extends Error {
  override readonly name = 'ContainerEngineError';
}

interface InspectDocument {
  Id?: unknown;
  Name?: unknown;
  Created?: unknown;
  State?: { Status?: unknown; Running?: unknown; Pid?: unknown; ExitCode?: unknown };
  Config?: { Labels?: unknown };
}

function stateOf(document: InspectDocument): ContainerState | null {
  if (typeof document.Id !== 'string' || typeof document.Name !== 'string') return null;
  const labels: Record<string, string> = {};
  const raw = document.Config?.Labels;
  if (raw !== null && typeof raw === 'object') {
    for (const [key, value] of Object.entries(raw)) if (typeof value === 'string') labels[key] = value;
  }
  const running = document.State?.Running === true;
  const pid = document.State?.Pid;
  const exitCode = document.State?.ExitCode;
  const created = typeof document.Created === 'string' ? new Date(document.Created) : null;
  return {
    id: document.Id,
    // Docker prefixes the name with '/', podman does not.
    name: document.Name.replace(/^\//, ''),
    labels,
    running,
    status: typeof document.State?.Status === 'string' ? document.State.Status : 'unknown',
    pid: running && typeof pid === 'number' && pid > 0 ? pid : null,
    exitCode: typeof exitCode === 'number' ? exitCode : null,
    createdAt: created !== null && Number.isFinite(created.getTime()) ? created : null,
  };
}

function noSuchContainer(error: unknown): boolean {
  const stderr = (error as { stderr?: unknown }).stderr;
  return typeof stderr === 'string' && /no such (container|object)/i.test(stderr);
}

function failure(what: string, error: unknown): ContainerEngineError {
  const stderr = (error as { stderr?: unknown }).stderr;
  const detail =
    typeof stderr === 'string' && stderr.trim() !== ''
      ? stderr.trim()
      : error instanceof Error
        ? error.message
        : String(error);
  return new ContainerEngineError(`${what}: ${detail.slice(0, 500)}`);
}

/**
 * The agent's view of the container engine, through its CLI (docker or
 * podman), for finding and clearing the containers it launched: `ps` with a
 * label filter for ids only and `inspect` for the rest, because the JSON that
 * `ps --format '{{json .}}'` prints differs between the two engines (labels
 * as a string or a map, names as a string or a list) while `inspect` output is
 * the same shape in both.
 */
export class ContainerEngine {
  private constructor(
    readonly executable: string,
    private readonly env: Readonly<Record<string, string>>,
  ) {}

  /** The engine by name on PATH or by absolute path; null when it is not installed (no container runtimes here). */
  static async resolve(
    engine: string,
    agentEnv: Readonly<Record<string, string | undefined>>,
  ): Promise<ContainerEngine | null> {
    const executable = await resolveExecutable(engine, agentEnv['PATH'] ?? '');
    if (executable === null) return null;
    const env: Record<string, string> = {};
    for (const name of CONTAINER_CLI_ENV) {
      const value = agentEnv[name];
      if (value !== undefined) env[name] = value;
    }
    return new ContainerEngine(executable, env);
  }

  private async exec(args: readonly string[], timeoutMs = QUERY_TIMEOUT_MS): Promise<string> {
    const { stdout } = await execFileAsync(this.executable, [...args], {
      env: this.env,
      timeout: timeoutMs,
      windowsHide: true,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  }

  /** Every container (running or not) carrying `label=value`. */
  async list(label: string, value: string): Promise<ContainerState[]> {
    let ids: string[];
    try {
      ids = (
        await this.exec([
          'ps',
          '-a',
          '--no-trunc',
          '--filter',
          `label=${label}=${value}`,
          '--format',
          '{{.ID}}',
        ])
      )
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
    } catch (error: unknown) {
      throw failure('listing containers failed', error);
    }
    if (ids.length === 0) return [];
    const found: ContainerState[] = [];
    // One at a time: a container removed between ps and inspect must not hide the others.
    for (const id of ids) {
      const state = await this.inspect(id);
      if (state !== null) found.push(state);
    }
    return found;
  }

  /** One container by name or id; null when the engine has none by that name. */
  async inspect(nameOrId: string): Promise<ContainerState | null> {
    let stdout: string;
    try {
      stdout = await this.exec(['inspect', '--type', 'container', nameOrId]);
    } catch (error: unknown) {
      if (noSuchContainer(error)) return null;
      throw failure(`inspecting ${nameOrId} failed`, error);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(stdout);
    } catch {
      throw new ContainerEngineError(`inspecting ${nameOrId}: the engine did not answer JSON`);
    }
    const first = Array.isArray(parsed) ? (parsed[0] as InspectDocument | undefined) : undefined;
    return first === undefined ? null : stateOf(first);
  }

  /** SIGTERM to the container, SIGKILL after the grace period (`stop --time`). A missing container is stopped. */
  async stop(nameOrId: string, graceMs: number): Promise<void> {
    try {
      await this.exec(containerStopArgs(nameOrId, graceMs), graceMs + STOP_SLACK_MS);
    } catch (error: unknown) {
      if (noSuchContainer(error)) return;
      throw failure(`stopping ${nameOrId} failed`, error);
    }
  }

  /** Removes the container (`rm -f`); one already gone (`--rm` did it) is removed. */
  async remove(nameOrId: string): Promise<void> {
    try {
      await this.exec(['rm', '-f', nameOrId]);
    } catch (error: unknown) {
      if (noSuchContainer(error)) return;
      throw failure(`removing ${nameOrId} failed`, error);
    }
  }
}
