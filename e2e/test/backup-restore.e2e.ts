import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseControlPlaneDigestFile, type RecordedControlPlaneDigest } from '@lunanexa/contracts';
import {
  controlPlaneDigest,
  createDataSource,
  createScratchDatabase,
  type ControlPlaneDigest,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import {
  FleetHarness,
  GraphQLFailure,
  REPO_ROOT,
  deploymentAssignments,
  fakeRuntimeProcesses,
  libpqEnvironment,
  pgToolsServer,
  waitUntil,
  type PgToolsServer,
} from '../src';

/**
 * Backup and restore on the real stack: a running controller (api, worker,
 * gateway, Temporal, PostgreSQL) with two agents serving two deployments is
 * backed up by infra/backup/backup.sh while it runs. After the backup the
 * fleet moves on (one deployment stopped, a new one started), then the
 * controller host is lost: api, worker, gateway and Temporal are killed.
 * infra/backup/restore.sh restores the dump into a new database; its
 * registry, desired state and audit chain are identical by hash to the
 * source at backup time and to the digest backup.sh recorded from the
 * dumped snapshot, which restore.sh checks itself. A clean controller (new Temporal, no history, the
 * controller key from its secret store) starts on it. Reconcile's dry run
 * lists the drift and changes nothing; a Reconcile pass repairs it with a
 * fleet.reconcile receipt: the deployment workflows run again, the stopped
 * replica's generation moves past the agent's and it runs again, the
 * replica the backup never saw is reported. Replicas that were serving kept
 * serving (same runtime processes), and the gateway routes through the new
 * controller.
 */

const RUN_FIELDS = `workflowId dryRun inSync receiptHash receiptSeq
  drift { kind target deploymentId nodeId desired observed repair note }
  repairs { kind target deploymentId fromGeneration toGeneration stop reason outcome }`;

interface ReconcileAnswer {
  readonly workflowId: string;
  readonly dryRun: boolean;
  readonly inSync: boolean;
  readonly receiptHash: string | null;
  readonly receiptSeq: number | null;
  readonly drift: {
    kind: string;
    target: string;
    deploymentId: string | null;
    repair: string | null;
    observed: string;
  }[];
  readonly repairs: {
    kind: string;
    target: string;
    deploymentId: string;
    fromGeneration: number | null;
    toGeneration: number | null;
    outcome: string;
  }[];
}

function script(name: string, args: readonly string[], env: Record<string, string>) {
  const result = spawnSync('bash', [join(REPO_ROOT, 'infra', 'backup', name), ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What backup.sh wrote beside a control-plane dump (`<dump>.digest`). */
function recordedDigest(dumpFile: string): RecordedControlPlaneDigest {
  return parseControlPlaneDigestFile(readFileSync(`${dumpFile}.digest`, 'utf8'));
}

async function digestOf(url: string): Promise<ControlPlaneDigest> {
  const db = createDataSource({ url, applicationName: 'lunanexa-backup-test' });
  await db.initialize();
  try {
    return await controlPlaneDigest(db);
  } finally {
    await db.destroy();
  }
}

describe('Backup and restore: backup.sh on a running controller, restore.sh into a clean one, Reconcile repairs the fleet', function () {
  this.timeout(900_000);
  let tools: PgToolsServer;
  let h: FleetHarness;
  let source: ScratchDatabase;
  let restored: ScratchDatabase | undefined;
  /** A database without the audit chain (as Temporal's are), backed up beside the control plane's. */
  let plain: ScratchDatabase | undefined;
  /** Databases restore.sh created in the refusal tests, dropped at the end. */
  const restoredByName: string[] = [];
  let plainDump = '';
  const backupDir = mkdtempSync(join(tmpdir(), 'lunanexa-backups-'));
  let atBackup: ControlPlaneDigest;
  let dump = '';
  const deploymentIds = new Map<string, string>();
  let servingPids: number[] = [];

  before(async () => {
    tools = await pgToolsServer();
    // Long assignment leases, as in production (600 s): replicas outlive the controller's replacement even on a
    // slow machine (renewed every 100 s, so at least 200 s are left when it is killed).
    h = await FleetHarness.start('backup_restore', { postgresAdminUrl: tools.adminUrl, leaseSeconds: 300 });
    source = h.db;
    for (const name of ['node-a', 'node-b']) await h.startReadyAgent(name);
  });

  after(async () => {
    for (const name of restoredByName) await h?.sql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await h?.stop();
    if (restored !== undefined && source !== restored) await source?.drop();
    await plain?.drop();
    rmSync(backupDir, { recursive: true, force: true });
  });

  async function deploy(name: string, replicas: number): Promise<void> {
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: name, version: 'v1', ttftMs: 20, tokensPerSecond: 200 } },
    );
    const created = await h.graphql<{ createDeployment: { deploymentId: string } }>(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name, model: `${name}@v1`, replicas, purpose: 'Candidate' } },
    );
    deploymentIds.set(name, created.createDeployment.deploymentId);
    await waitUntil(
      `${name}: ${replicas} replica(s) Ready`,
      async () =>
        (await deploymentAssignments(h, name)).filter(
          (r) => r.intent === 'Run' && r.observed_state === 'Ready' && r.observed_generation === r.generation,
        ).length === replicas,
      120_000,
    );
  }

  async function chat(model: string): Promise<number> {
    const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
      ...h.asOperator({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_tokens: 4, messages: [{ role: 'user', content: 'still there?' }] }),
      }),
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function reconcile(dryRun: boolean): Promise<ReconcileAnswer> {
    const data = await h.graphql<{ reconcileFleet: ReconcileAnswer }>(
      `mutation($input: ReconcileInput!) { reconcileFleet(input: $input) { ${RUN_FIELDS} } }`,
      { input: { dryRun } },
    );
    return data.reconcileFleet;
  }

  it('backs up the running controller with backup.sh: a checked dump, its checksum and the digest of the snapshot it dumped', async () => {
    await deploy('chat', 2);
    await deploy('summarize', 1);
    expect(await chat('chat@v1')).to.equal(200);
    servingPids = fakeRuntimeProcesses('chat@v1').sort();
    expect(servingPids).to.have.length(2);
    plain = await createScratchDatabase(`${source.name}_plain`, tools.adminUrl);
    const plainSql = createDataSource({ url: plain.url, applicationName: 'lunanexa-backup-test' });
    await plainSql.initialize();
    await plainSql.query(`CREATE TABLE kept (id integer PRIMARY KEY); INSERT INTO kept VALUES (1), (2)`);
    await plainSql.destroy();

    const before = await digestOf(source.url);
    const run = script('backup.sh', [], {
      ...libpqEnvironment(tools.adminUrl),
      LUNANEXA_BACKUP_DATABASES: `${source.name} ${plain.name}`,
      LUNANEXA_BACKUP_DIR: backupDir,
    });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/backup: done/);
    expect(run.stdout).to.match(/\.dump \([^)]*\), with its digest\n/);
    const after = await digestOf(source.url);
    // Nothing an operator did happened during the dump: the desired state and registry are the dump's.
    expect(after.registry).to.equal(before.registry);
    expect(after.desiredState).to.equal(before.desiredState);
    atBackup = before;
    expect(atBackup.auditChain.valid).to.equal(true);

    const files = readdirSync(backupDir).sort();
    const controlPlane = files.filter((f) => f.startsWith(`${source.name}-`));
    expect(controlPlane).to.have.length(3);
    expect(controlPlane[0]).to.match(new RegExp(`^${source.name}-\\d{8}T\\d{6}Z\\.dump$`));
    expect(controlPlane.slice(1)).to.deep.equal([
      `${controlPlane[0] ?? ''}.digest`,
      `${controlPlane[0] ?? ''}.sha256`,
    ]);
    dump = join(backupDir, controlPlane[0] ?? '');
    // Only a database with the audit chain gets a digest.
    const others = files.filter((f) => f.startsWith(`${plain?.name ?? ''}-`));
    expect(others).to.have.length(2);
    expect(others[1]).to.equal(`${others[0] ?? ''}.sha256`);
    plainDump = join(backupDir, others[0] ?? '');

    // The digest was read in the snapshot pg_dump dumped: the registry and desired state are the
    // controller's, and the audit head is an event of the source chain at exactly that length.
    const recorded = recordedDigest(dump);
    expect(recorded.registry).to.equal(atBackup.registry);
    expect(recorded.desiredState).to.equal(atBackup.desiredState);
    const head = await h.sql<{ seq: string }>(`SELECT seq FROM audit_events WHERE hash = $1`, [
      recorded.auditHeadHash,
    ]);
    expect(head.map((row) => Number(row.seq))).to.deep.equal([recorded.auditEvents]);
    expect(recorded.auditEvents).to.be.at.least(atBackup.auditChain.events);
  });

  it('the fleet moves on after the backup: summarize stopped (a newer generation on its node), late deployed', async () => {
    await h.graphql(`mutation($d: String!) { stopDeployment(deployment: $d) { workflowId } }`, {
      d: 'summarize',
    });
    await waitUntil(
      'summarize stopped on its node',
      () => Promise.resolve(fakeRuntimeProcesses('summarize@v1').length === 0),
      60_000,
    );
    await deploy('late', 1);
  });

  it('restore.sh refuses a dump that does not match its checksum, and a target database still in use, changing nothing', async () => {
    const tampered = `${dump}.copy`;
    spawnSync('cp', [dump, tampered]);
    spawnSync('bash', ['-c', `printf 'x' >> '${tampered}'; cp '${dump}.sha256' '${tampered}.sha256'`]);
    const bad = script('restore.sh', [tampered, `${source.name}_never`], libpqEnvironment(tools.adminUrl));
    expect(bad.status, bad.stderr).to.equal(65);
    expect(bad.stderr).to.match(/does not match/);
    const never = await h.sql(`SELECT 1 FROM pg_database WHERE datname = $1`, [`${source.name}_never`]);
    expect(never).to.deep.equal([]);
    const busy = script('restore.sh', [dump, source.name], libpqEnvironment(tools.adminUrl));
    // The source is live (sessions connected): refused before anything is touched.
    expect(busy.status).to.equal(75);
    expect(busy.stderr).to.match(/other session\(s\) are connected/);
    rmSync(tampered, { force: true });
    rmSync(`${tampered}.sha256`, { force: true });
  });

  it('restore.sh compares the restored database with the digest recorded at backup: a difference exits 70; a dump without one says so', async () => {
    // A dump whose recorded digest says something else than what it holds (a digest from another backup, say).
    const mismatched = `${dump}.other`;
    spawnSync('bash', [
      '-c',
      `cp '${dump}' '${mismatched}' && sha256sum '${mismatched}' > '${mismatched}.sha256'`,
    ]);
    const recorded = recordedDigest(dump);
    writeFileSync(
      `${mismatched}.digest`,
      readFileSync(`${dump}.digest`, 'utf8').replace(recorded.desiredState, '0'.repeat(64)),
    );
    const target = `${source.name}_mismatch`;
    restoredByName.push(target);
    const run = script('restore.sh', [mismatched, target], libpqEnvironment(tools.adminUrl));
    expect(run.status, run.stderr).to.equal(70);
    expect(run.stderr).to.match(/does not hold what the backup did; do not start the services on it/);
    expect(run.stderr).to.contain(`desired_state=${'0'.repeat(64)}`);
    for (const file of ['', '.sha256', '.digest']) rmSync(`${mismatched}${file}`, { force: true });

    const plainTarget = `${plain?.name ?? ''}_restored`;
    restoredByName.push(plainTarget);
    const plainRun = script('restore.sh', [plainDump, plainTarget], libpqEnvironment(tools.adminUrl));
    expect(plainRun.status, plainRun.stderr).to.equal(0);
    expect(plainRun.stdout).to.match(/no digest was recorded with .*; its contents were not compared/);
    const rows = await h.sql<{ n: number }>(`SELECT 1 AS n FROM pg_database WHERE datname = $1`, [
      plainTarget,
    ]);
    expect(rows).to.have.length(1);
  });

  it('restores into a new database with restore.sh: registry, desired state and audit chain identical by hash to the backup', async () => {
    // The controller host is lost (its database server is not: the restore target sits beside it).
    restored = await createScratchDatabase(`${source.name}_restored`, tools.adminUrl);
    const run = script('restore.sh', [dump, restored.name], libpqEnvironment(tools.adminUrl));
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/restore: done/);
    expect(run.stdout).to.match(
      /registry, desired state and audit chain \(\d+ events\) match the backup's digest/,
    );
    const digest = await digestOf(restored.url);
    expect(digest.registry).to.equal(atBackup.registry);
    expect(digest.desiredState).to.equal(atBackup.desiredState);
    expect(digest.auditChain.valid).to.equal(true);
    // Exactly the chain the backup's snapshot held; its head is an event of the source chain.
    expect(digest.auditChain.events).to.equal(recordedDigest(dump).auditEvents);
    expect(digest.auditChain.headHash).to.equal(recordedDigest(dump).auditHeadHash);
    const sourceEvent = await h.sql<{ seq: string; hash: string }>(
      `SELECT seq, hash FROM audit_events WHERE hash = $1`,
      [digest.auditChain.headHash],
    );
    expect(sourceEvent).to.have.length(1);
    expect(Number(sourceEvent[0]?.seq)).to.equal(digest.auditChain.events);
  });

  it('a clean controller starts on the restored database; the agents reach it and keep serving', async () => {
    await h.replaceController(restored as ScratchDatabase);
    await waitUntil(
      'both nodes heartbeating to the new controller',
      async () =>
        (
          await h.sql<{ n: number }>(
            `SELECT count(*)::integer AS n FROM nodes WHERE lease_expires_at > now() AND lifecycle = 'Active'`,
          )
        )[0]?.n === 2,
      60_000,
    );
    // The runtimes never stopped: the agents held their leases through the outage.
    expect(fakeRuntimeProcesses('chat@v1').sort()).to.deep.equal(servingPids);
  });

  it('before Reconcile writes, `lunanexa digest --compare` finds the running controller holding what the backup did', () => {
    const cli = (...args: string[]) =>
      spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'apps/cli/dist/src/main.js'), '--api-url', h.apiUrl, ...args],
        {
          env: { ...process.env, LUNANEXA_TOKEN: h.operatorToken },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
    const compared = cli('digest', '--compare', `${dump}.digest`);
    expect(compared.status, `${compared.stdout}${compared.stderr}`).to.equal(0);
    expect(compared.stdout).to.match(/^registry +same /m);
    expect(compared.stdout).to.match(/^desired state +same /m);
    expect(compared.stdout).to.match(
      /^audit chain +same +holds the backup's \d+ events, \d+ appended since$/m,
    );
    // Against another backup's digest it says what differs and exits 1.
    const other = `${dump}.other-digest`;
    writeFileSync(
      other,
      readFileSync(`${dump}.digest`, 'utf8').replace(/^registry=.*$/m, `registry=${'0'.repeat(64)}`),
    );
    const differs = cli('digest', '--compare', other);
    rmSync(other, { force: true });
    expect(differs.status).to.equal(1);
    expect(differs.stdout).to.match(/^registry +DIFFERS +backup 0{12}, now [0-9a-f]{12}$/m);
    expect(differs.stdout).to.contain('the controller does not hold what the backup did');
  });

  it('the dry run lists the drift and the repairs a pass would take, and changes nothing', async () => {
    const before = await digestOf(h.db.url);
    const dry = await waitUntil(
      'the nodes report every replica they run',
      async () => {
        const answer = await reconcile(true);
        return answer.drift.some((d) => d.kind === 'UnknownReplicaOnNode') &&
          answer.drift.some((d) => d.kind === 'GenerationBehindNode')
          ? answer
          : null;
      },
      60_000,
      1000,
    );
    expect(dry.dryRun).to.equal(true);
    expect(dry.inSync).to.equal(false);
    expect(dry.receiptHash).to.equal(null);
    const chatId = deploymentIds.get('chat') ?? '';
    const summarizeId = deploymentIds.get('summarize') ?? '';
    const lateId = deploymentIds.get('late') ?? '';
    const kinds = dry.drift.map((d) => [d.kind, d.deploymentId ?? d.observed]).sort();
    expect(kinds).to.deep.include(['DeploymentWorkflowMissing', chatId]);
    expect(kinds).to.deep.include(['DeploymentWorkflowMissing', summarizeId]);
    expect(kinds).to.deep.include(['GenerationBehindNode', summarizeId]);
    const unknown = dry.drift.find((d) => d.kind === 'UnknownReplicaOnNode');
    expect(unknown?.observed).to.contain(lateId);
    expect(unknown?.repair).to.equal(null);
    expect(dry.repairs.map((r) => r.outcome)).to.satisfy((all: string[]) =>
      all.every((o) => o === 'not applied: dry run'),
    );
    const after = await digestOf(h.db.url);
    expect(after.desiredState).to.equal(before.desiredState);
    expect(after.auditChain.events).to.equal(before.auditChain.events);
  });

  it('a Reconcile pass repairs it with a fleet.reconcile receipt: workflows resumed, the stale generation advanced, every replica Ready again', async () => {
    const pass = await reconcile(false);
    expect(pass.dryRun).to.equal(false);
    expect(pass.receiptHash).to.match(/^[0-9a-f]{64}$/);
    const chatId = deploymentIds.get('chat') ?? '';
    const summarizeId = deploymentIds.get('summarize') ?? '';
    expect(pass.repairs.map((r) => [r.kind, r.deploymentId, r.outcome])).to.deep.include.members([
      ['AdvanceGeneration', summarizeId, 'applied'],
      ['ResumeDeploymentWorkflow', chatId, 'applied'],
      ['ResumeDeploymentWorkflow', summarizeId, 'applied'],
    ]);
    const advance = pass.repairs.find((r) => r.kind === 'AdvanceGeneration');
    expect(advance?.toGeneration).to.equal((advance?.fromGeneration ?? 0) + 2);

    const receipt = await h.sql<{ action: string; workflow_id: string; hash: string }>(
      `SELECT action, workflow_id, hash FROM audit_events WHERE action = 'fleet.reconcile'`,
    );
    expect(receipt).to.deep.equal([
      { action: 'fleet.reconcile', workflow_id: pass.workflowId, hash: pass.receiptHash },
    ]);
    expect(
      await h.sql(`SELECT action FROM audit_events WHERE action = 'assignment.generation-advanced'`),
    ).to.have.length(1);

    for (const [name, replicas] of [
      ['chat', 2],
      ['summarize', 1],
    ] as const) {
      await waitUntil(
        `${name}: ${replicas} replica(s) Ready at the desired generation`,
        async () =>
          (await deploymentAssignments(h, name)).filter(
            (r) =>
              r.intent === 'Run' && r.observed_state === 'Ready' && r.observed_generation === r.generation,
          ).length === replicas,
        120_000,
      );
    }
    // Restored desired state wins: summarize runs again, at the advanced generation.
    expect(fakeRuntimeProcesses('summarize@v1')).to.have.length(1);
    // Chat was never interrupted, and the gateway of the new controller routes to it.
    expect(fakeRuntimeProcesses('chat@v1').sort()).to.deep.equal(servingPids);
    expect(await waitUntil('chat routed', async () => (await chat('chat@v1')) === 200, 30_000)).to.equal(
      true,
    );

    const description = await h.temporal.client.workflow.getHandle(`deployment/${chatId}`).describe();
    expect(description.status.name).to.equal('RUNNING');
    expect((await digestOf(h.db.url)).auditChain.valid).to.equal(true);
  });

  it('afterwards only the replica the backup never saw remains, reported for its lease to end', async () => {
    const after = await waitUntil(
      'only the unknown replica left',
      async () => {
        const answer = await reconcile(true);
        return answer.drift.every((d) => d.kind === 'UnknownReplicaOnNode') ? answer : null;
      },
      60_000,
      1000,
    );
    expect(after.drift.map((d) => d.kind)).to.deep.equal(['UnknownReplicaOnNode']);
    expect(after.repairs).to.deep.equal([]);
    // Readers get the same dry run as a query.
    const plan = await h.graphql<{ reconcilePlan: ReconcileAnswer }>(
      `query { reconcilePlan { ${RUN_FIELDS} } }`,
      {},
      h.operatorToken,
    );
    expect(plan.reconcilePlan.dryRun).to.equal(true);
    expect(plan.reconcilePlan.drift).to.deep.equal(after.drift);
  });

  it('refuses a bad idempotency key (audited) and a caller with no key, typed, starting nothing', async () => {
    const runs = async (): Promise<string[]> => {
      const ids: string[] = [];
      for await (const run of h.temporal.client.workflow.list({
        query: `WorkflowType = 'reconcileFleetWorkflow'`,
      }))
        ids.push(run.workflowId);
      return ids.sort();
    };
    const before = await runs();
    const refused = await h
      .graphql(
        `mutation { reconcileFleet(input: { dryRun: false, idempotencyKey: "not a key!" }) { workflowId } }`,
      )
      .catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(GraphQLFailure);
    expect((refused as GraphQLFailure).code).to.equal('VALIDATION_FAILED');
    const audited = await h.sql<{ decision: string; result: string }>(
      `SELECT decision, result FROM audit_events WHERE action = 'fleet.reconcile' AND decision = 'denied'`,
    );
    expect(audited).to.deep.equal([{ decision: 'denied', result: 'refused' }]);

    const anonymous = await fetch(`${h.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { reconcileFleet(input: { dryRun: false }) { workflowId } }' }),
    });
    const body = (await anonymous.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).to.equal('UNAUTHENTICATED');
    // Visibility is eventually consistent: give it a moment before counting.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await runs()).to.deep.equal(before);
  });
});
