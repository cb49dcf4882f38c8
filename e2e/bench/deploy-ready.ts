import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FleetHarness, REPO_ROOT, prepareBenchEnvironment, waitUntil } from '../src';
import { countReadyReplicas } from '@lunanexa/persistence';

/**
 * `npm run bench:deploy -- --label <before|after|…>`: how long an operator
 * waits from `createDeployment` to a deployment the API reports Ready, on
 * the real api, worker, agents, Temporal and PostgreSQL with the fake
 * runtime (ttft 20 ms) and the default heartbeat interval. Each of the
 * `--deployments` deployments (default 20) asks for `--replicas` (default
 * 2) on a fleet of three simulated nodes and is stopped before the next
 * starts, so every trial starts from the same fleet. Figures per
 * deployment: API answer, first assignment Ready, all replicas observed
 * Ready (the agents' reports) and the deployment Ready (the workflow's
 * decision, what the API and console show). Runs are kept by label in
 * bench/results/deploy-ready.json, so "before" and "after" sit side by side.
 */

const { values } = parseArgs({
  options: {
    label: { type: 'string', default: 'current' },
    deployments: { type: 'string', default: '20' },
    replicas: { type: 'string', default: '2' },
  },
});
const DEPLOYMENTS = Number(values.deployments);
const REPLICAS = Number(values.replicas);
const POLL_MS = 20;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function summarize(samples: readonly number[]): { p50: number; p99: number; min: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
}

interface Trial {
  readonly deployment: string;
  readonly answeredMs: number;
  readonly firstReplicaReadyMs: number;
  readonly replicasReadyMs: number;
  readonly deploymentReadyMs: number;
}

async function deployOnce(h: FleetHarness, name: string, ref: string): Promise<Trial> {
  const began = performance.now();
  let firstReplicaReadyMs = NaN;
  let replicasReadyMs = NaN;
  const observedReady = (): Promise<number> => countReadyReplicas(h.queryable(), { name });
  const answer = h.graphql(
    `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
    { input: { name, model: ref, replicas: REPLICAS, purpose: 'Candidate' } },
  );
  let answeredMs = NaN;
  void answer.then(() => (answeredMs = performance.now() - began));
  await waitUntil(
    `${name} Ready`,
    async () => {
      const ready = await observedReady().catch(() => 0);
      const at = performance.now() - began;
      if (ready >= 1 && Number.isNaN(firstReplicaReadyMs)) firstReplicaReadyMs = at;
      if (ready >= REPLICAS && Number.isNaN(replicasReadyMs)) replicasReadyMs = at;
      const data = await h
        .graphql<{ deployment: { state: string } | null }>(
          `query($d: String!) { deployment(deployment: $d) { state } }`,
          { d: name },
        )
        .catch(() => ({ deployment: null }));
      return data.deployment?.state === 'Ready';
    },
    120_000,
    POLL_MS,
  );
  const deploymentReadyMs = performance.now() - began;
  await answer;
  return {
    deployment: name,
    answeredMs: Math.round(answeredMs),
    firstReplicaReadyMs: Math.round(firstReplicaReadyMs),
    replicasReadyMs: Math.round(Number.isNaN(replicasReadyMs) ? deploymentReadyMs : replicasReadyMs),
    deploymentReadyMs: Math.round(deploymentReadyMs),
  };
}

async function main(): Promise<void> {
  prepareBenchEnvironment();
  const h = await FleetHarness.start('deploy-ready-bench', { leaseSeconds: 60 });
  const trials: Trial[] = [];
  try {
    for (const name of ['node-a', 'node-b', 'node-c']) await h.startReadyAgent(name);
    const ref = 'bench@v1';
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'bench', version: 'v1', ttftMs: 20, tokensPerSecond: 200 } },
    );
    for (let i = 1; i <= DEPLOYMENTS; i++) {
      const trial = await deployOnce(h, `bench-${i}`, ref);
      console.log(`[bench:deploy] ${JSON.stringify(trial)}`);
      trials.push(trial);
      await h.graphql(`mutation($d: String!) { stopDeployment(deployment: $d) { deploymentId } }`, {
        d: trial.deployment,
      });
    }
  } finally {
    await h.stop();
  }
  const run = {
    label: values.label,
    generatedAt: new Date().toISOString(),
    settings: {
      deployments: DEPLOYMENTS,
      replicasEach: REPLICAS,
      fleet: '3 simulated DGX Spark agents on loopback, default heartbeat interval',
      runtime: 'fake (ttft 20 ms, 200 tokens/s)',
      clock: `from the createDeployment call; state polled every ${POLL_MS} ms through the API`,
    },
    machine: { cpus: cpus().length, loadAverageEnd: loadavg() },
    summary: {
      deploymentReadyMs: summarize(trials.map((t) => t.deploymentReadyMs)),
      replicasReadyMs: summarize(trials.map((t) => t.replicasReadyMs)),
      firstReplicaReadyMs: summarize(trials.map((t) => t.firstReplicaReadyMs)),
      answeredMs: summarize(trials.map((t) => t.answeredMs)),
    },
    trials,
  };
  console.log(`[bench:deploy] ${values.label}: ${JSON.stringify(run.summary)}`);
  const dir = join(REPO_ROOT, 'bench', 'results');
  const file = join(dir, 'deploy-ready.json');
  const previous = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { runs?: Record<string, unknown> })
    : {};
  const runs = { ...(previous.runs ?? {}), [values.label]: run };
  const before = runs['before'] as typeof run | undefined;
  const after = runs['after'] as typeof run | undefined;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        benchmark: 'deploy-ready',
        command: 'npm run bench:deploy -- --label <label>',
        target: 'deployment Ready p50 <= 1000 ms (issue 19)',
        comparison:
          before && after
            ? {
                p50BeforeMs: before.summary.deploymentReadyMs.p50,
                p50AfterMs: after.summary.deploymentReadyMs.p50,
                p99BeforeMs: before.summary.deploymentReadyMs.p99,
                p99AfterMs: after.summary.deploymentReadyMs.p99,
                p50Ratio: after.summary.deploymentReadyMs.p50 / before.summary.deploymentReadyMs.p50,
                met: after.summary.deploymentReadyMs.p50 <= 1000,
              }
            : null,
        runs,
      },
      null,
      2,
    )}\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
