import { listAssignmentsOfDeploymentNamed, type DeploymentAssignmentView } from '@lunanexa/persistence';
import { readFileSync } from 'node:fs';
import { fakeRuntimeProcesses, waitUntil, type FleetHarness } from './fleet-harness';

/**
 * The node-loss scenario NodeRecovery is measured by, shared by its e2e test
 * and `npm run bench:recovery`: a deployment of two replicas on a fleet of
 * three, clients calling it through the gateway (each request new, so none
 * is streaming when the node dies), one replica's node killed (agent and
 * runtime), timed until a replacement is Ready and serving requests.
 */

/** Lease settings for the api and worker (FleetHarness `extraEnv`). */
export function nodeLossEnv(leaseSeconds: number, graceSeconds: number): Record<string, string> {
  return {
    LUNANEXA_NODE_LEASE_SECONDS: String(leaseSeconds),
    LUNANEXA_NODE_LOST_GRACE_SECONDS: String(graceSeconds),
    LUNANEXA_NODE_WATCH_INTERVAL_SECONDS: '1',
  };
}

export type NodeLossAssignment = DeploymentAssignmentView;

export interface NodeLossResult {
  readonly victim: NodeLossAssignment;
  readonly survivor: NodeLossAssignment;
  readonly lost: NodeLossAssignment;
  readonly replacement: NodeLossAssignment;
  /** Kill → the replacement observed Ready at its generation. */
  readonly killToReadyMs: number;
  /** Kill → the replacement has answered a request the gateway routed to it. */
  readonly killToRoutedMs: number;
  readonly requests: number;
  readonly errors: readonly string[];
}

export async function deploymentAssignments(
  h: FleetHarness,
  deployment: string,
): Promise<NodeLossAssignment[]> {
  return listAssignmentsOfDeploymentNamed(h.queryable(), deployment);
}

/** The pid of the fake runtime listening on `port` (it takes `--port <n>`). */
function runtimeOnPort(pids: number[], port: number): number | undefined {
  return pids.find((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv[argv.indexOf('--port') + 1] === String(port);
    } catch {
      return false;
    }
  });
}

async function servedCount(port: number): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const served = /lunanexa_fake_runtime_requests_total(?:\{[^}]*\})?\s+([0-9.e+]+)/.exec(metrics)?.[1];
  return served === undefined ? 0 : Number(served);
}

/** Registers `model@v1`, deploys it as `deployment` (2 replicas), kills one replica's node under load. */
export async function runNodeLoss(
  h: FleetHarness,
  model: string,
  deployment: string,
): Promise<NodeLossResult> {
  const ref = `${model}@v1`;
  await h.graphql(
    `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
    { input: { model, version: 'v1', ttftMs: 20, tokensPerSecond: 200 } },
  );
  await h.graphql(
    `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
    {
      input: { name: deployment, model: ref, replicas: 2, purpose: 'Candidate' },
    },
  );
  const placed = await waitUntil(
    'two replicas Ready',
    async () => {
      const ready = (await deploymentAssignments(h, deployment)).filter(
        (r) => r.intent === 'Run' && r.observed_state === 'Ready',
      );
      return ready.length === 2 ? ready : null;
    },
    120_000,
  );
  const victim = placed[0];
  const survivor = placed[1];
  // Ready in the database comes before the gateway's route refresh: the load starts once the model is routed.
  await waitUntil(
    'the gateway to route the model',
    async () => {
      const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.operatorToken}` },
        body: JSON.stringify({ model: ref, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
      });
      await response.arrayBuffer();
      return response.status === 200;
    },
    30_000,
    100,
  );

  const outcomes = { ok: 0, errors: [] as string[] };
  let calling = true;
  const caller = (async () => {
    while (calling) {
      const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.operatorToken}` },
        body: JSON.stringify({ model: ref, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
      }).catch((error: unknown) => ({ status: 0, text: () => Promise.resolve(String(error)) }));
      const text = await response.text();
      if (response.status === 200) outcomes.ok += 1;
      else outcomes.errors.push(`${response.status} ${text.slice(0, 120)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const runtimePid = runtimeOnPort(fakeRuntimeProcesses(ref), victim.endpoint_port ?? -1);
    if (runtimePid === undefined) throw new Error(`no runtime found on port ${String(victim.endpoint_port)}`);
    const killedAt = Date.now();
    await h.agents.get(victim.node)?.service.kill('SIGKILL');
    process.kill(runtimePid, 'SIGKILL');

    const lost = await waitUntil(
      'the victim’s replica marked Lost',
      async () =>
        (await deploymentAssignments(h, deployment)).find(
          (r) => r.node === victim.node && r.observed_state === 'Lost',
        ) ?? null,
      60_000,
      100,
    );
    const replacement = await waitUntil(
      'a replacement Ready on the third node',
      async () =>
        (await deploymentAssignments(h, deployment)).find(
          (r) =>
            r.node !== victim.node &&
            r.node !== survivor.node &&
            r.intent === 'Run' &&
            r.observed_state === 'Ready' &&
            r.observed_generation === r.generation,
        ) ?? null,
      60_000,
      100,
    );
    const killToReadyMs = Date.now() - killedAt;
    await waitUntil(
      'the gateway routing to the replacement',
      async () => (await servedCount(replacement.endpoint_port ?? -1)) > 0,
      30_000,
      100,
    );
    const killToRoutedMs = Date.now() - killedAt;
    return {
      victim,
      survivor,
      lost,
      replacement,
      killToReadyMs,
      killToRoutedMs,
      requests: outcomes.ok + outcomes.errors.length,
      errors: outcomes.errors,
    };
  } finally {
    calling = false;
    await caller;
  }
}
