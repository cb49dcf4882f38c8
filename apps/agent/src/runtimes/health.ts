import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RuntimeHealthCheck } from '@lunanexa/contracts';
import type { RuntimeAdapter, RuntimeExit, RuntimeHandle, RuntimeHealth, RuntimeMetrics } from './adapter';
import { processGroupMembers, residentBytes } from './process-group';
import type { SupervisedRuntime } from './supervised-runtime';

/**
 * Health through the runtime's own HTTP endpoint, as vLLM, llama.cpp server
 * and SGLang expose it: the record's path (normally `/health`) first; a
 * runtime that has no such route (404/405/501) is asked `/v1/models`, which
 * every OpenAI-compatible server answers once its model is loaded.
 */

export const MODELS_PATH = '/v1/models';

/** Used when the agent has no registry record for the runtime at hand. */
export const DEFAULT_HEALTH_CHECK: RuntimeHealthCheck = {
  path: '/health',
  startupTimeoutMs: 600_000,
  intervalMs: 2_000,
};

/** One probe never waits longer than this, whatever the interval. */
const MAX_PROBE_TIMEOUT_MS = 5_000;
/** Statuses that mean "this route does not exist here": try the next path. */
const ABSENT_ROUTE_STATUSES = new Set([404, 405, 501]);

export type ProbeResult =
  | { readonly ok: true; readonly path: string; readonly latencyMs: number }
  | { readonly ok: false; readonly reason: string; readonly latencyMs: number };

export function probePaths(check: RuntimeHealthCheck): string[] {
  return [...new Set([check.path, MODELS_PATH])];
}

function get(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', agent: false, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        // The body is not needed; drain it so the socket closes cleanly.
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function describeError(error: unknown): string {
  if (error instanceof Error && error.name === 'AbortError') return 'timed out';
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

export async function probeEndpoint(
  endpoint: string,
  paths: readonly string[],
  timeoutMs: number,
): Promise<ProbeResult> {
  const startedAt = performance.now();
  const latency = (): number => Math.round(performance.now() - startedAt);
  const absent: string[] = [];
  for (const path of paths) {
    let status: number;
    try {
      status = await get(`${endpoint}${path}`, timeoutMs);
    } catch (error: unknown) {
      return { ok: false, reason: `GET ${path} failed: ${describeError(error)}`, latencyMs: latency() };
    }
    if (status >= 200 && status < 300) return { ok: true, path, latencyMs: latency() };
    if (!ABSENT_ROUTE_STATUSES.has(status)) {
      return { ok: false, reason: `GET ${path} answered ${status}`, latencyMs: latency() };
    }
    absent.push(`${path} (${status})`);
  }
  return { ok: false, reason: `no health route: ${absent.join(', ')}`, latencyMs: latency() };
}

export function describeExit(exit: RuntimeExit): string {
  return exit.signal !== null
    ? `runtime process was killed by ${exit.signal} (status ${exit.status})`
    : `runtime process exited with status ${exit.status}`;
}

/**
 * One health check. Failing: the process has exited (the reason and `exit`
 * say how), it is being stopped, it stopped answering after having been
 * ready, or it was not ready within the startup timeout. Starting: alive, not
 * ready yet, still inside the startup timeout.
 */
export async function checkHealth(runtime: SupervisedRuntime): Promise<RuntimeHealth> {
  const exited = (exit: RuntimeExit): RuntimeHealth => ({
    status: 'failing',
    reason: describeExit(exit),
    exit,
    checkedAt: new Date(),
  });
  const before = runtime.exitStatus();
  if (before !== null) return exited(before);
  if (runtime.isStopping()) {
    return { status: 'failing', reason: 'runtime is being stopped', exit: null, checkedAt: new Date() };
  }
  const check = runtime.healthCheck;
  const probe = await probeEndpoint(
    runtime.endpoint,
    probePaths(check),
    Math.min(check.intervalMs, MAX_PROBE_TIMEOUT_MS),
  );
  runtime.probes += 1;
  runtime.lastProbeLatencyMs = probe.latencyMs;
  // The process may have died while we waited for an answer.
  const after = runtime.exitStatus();
  if (after !== null) return exited(after);
  if (probe.ok) {
    runtime.everReady = true;
    return { status: 'ready', reason: null, exit: null, checkedAt: new Date() };
  }
  runtime.failedProbes += 1;
  const elapsedMs = Date.now() - runtime.startedAt.getTime();
  if (!runtime.everReady && elapsedMs < check.startupTimeoutMs) {
    return { status: 'starting', reason: probe.reason, exit: null, checkedAt: new Date() };
  }
  return {
    status: 'failing',
    reason: runtime.everReady
      ? probe.reason
      : `not ready within ${check.startupTimeoutMs} ms: ${probe.reason}`,
    exit: null,
    checkedAt: new Date(),
  };
}

/**
 * Polls `adapter.health` every `healthCheck.intervalMs` until the runtime is
 * ready or failing. An exit ends the wait at once rather than at the next
 * interval.
 */
export async function waitForReady(
  adapter: RuntimeAdapter,
  handle: RuntimeHandle,
  options: { readonly signal?: AbortSignal } = {},
): Promise<RuntimeHealth> {
  for (;;) {
    const health = await adapter.health(handle);
    if (health.status !== 'starting') return health;
    options.signal?.throwIfAborted();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      handle.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, handle.healthCheck.intervalMs);
        onAbort = resolve;
        options.signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort !== undefined) options.signal?.removeEventListener('abort', onAbort);
    options.signal?.throwIfAborted();
  }
}

export async function collectMetrics(runtime: SupervisedRuntime): Promise<RuntimeMetrics> {
  const exit = runtime.exitStatus();
  const members = await processGroupMembers(runtime.pid);
  const rssBytes =
    runtime.packaging === 'binary' && members !== null && members.length > 0
      ? await residentBytes(members)
      : null;
  const now = exit?.at ?? new Date();
  return {
    pid: runtime.pid,
    state:
      exit !== null
        ? 'Exited'
        : runtime.isStopping()
          ? 'Stopping'
          : runtime.everReady
            ? 'Running'
            : 'Starting',
    startedAt: runtime.startedAt.toISOString(),
    uptimeSeconds: Math.max(0, (now.getTime() - runtime.startedAt.getTime()) / 1000),
    exitCode: exit?.status ?? null,
    processes: members?.length ?? null,
    rssBytes,
    healthProbes: runtime.probes,
    failedHealthProbes: runtime.failedProbes,
    lastProbeLatencyMs: runtime.lastProbeLatencyMs,
  };
}
