import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { syntheticArtifactDigest } from '@lunanexa/artifact-store';
import { FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import type { Assignment } from '@lunanexa/contracts';
import { signalGroup } from '../src/runtimes/process-group';
import { anAssignment } from './ssh-support';
import { assignedRuntime, FAKE_RECORD, isAlive } from './runtimes/support';

/** Fast loops for tests; the defaults (2 s) are for nodes. */
export const FAST_RECONCILE = {
  intervalMs: 150,
  healthCheck: { path: '/health', startupTimeoutMs: 15_000, intervalMs: 200 },
  restartBackoff: { initialMs: 200, maxMs: 1_000 },
  stopGraceMs: 3_000,
} as const;

/** A model version no other test uses, so /proc scans find only this test's runtimes. */
export function uniqueModelVersion(): string {
  return `reconcile-${randomBytes(4).toString('hex')}@1`;
}

/**
 * The registry's fake runtime in an assignment for this node, with the
 * synthetic artifact the API registers fake versions with (nothing to pull).
 */
export function fakeAssignment(overrides: Partial<Assignment> & { modelVersion: string }): Assignment {
  const base = anAssignment();
  return anAssignment({
    runtime: assignedRuntime(FAKE_RECORD()),
    gpuUuids: [],
    env: {},
    artifact: {
      ...base.artifact,
      uri: `file:///var/lib/lunanexa/models/${overrides.modelVersion.replace('@', '/')}`,
      digest: syntheticArtifactDigest(overrides.modelVersion),
      sizeBytes: 0,
      format: 'fake',
    },
    ...overrides,
  });
}

/**
 * Live fake-runtime processes serving `modelVersion`, found the way an
 * operator would: argv in /proc naming the fake runtime's entry point and the
 * served model.
 */
export function fakeRuntimePids(modelVersion: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv.includes(FAKE_RUNTIME_MAIN) && argv.includes(modelVersion) && isAlive(Number(entry))) {
      pids.push(Number(entry));
    }
  }
  return pids.sort((a, b) => a - b);
}

/** Last resort in `after` hooks: kill every process group still serving `modelVersion`. */
export function killFakeRuntimes(modelVersion: string): void {
  for (const pid of fakeRuntimePids(modelVersion)) {
    try {
      signalGroup(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

export async function chat(
  port: number,
  modelVersion: string,
): Promise<{ status: number; content: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: modelVersion,
      messages: [{ role: 'user', content: 'Which replicas are ready?' }],
    }),
  });
  const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
  return { status: response.status, content: body.choices?.[0]?.message?.content ?? null };
}
