import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { createLogger } from '@lunanexa/observability';
import {
  createScratchDatabase,
  runMigrations,
  testAdminUrl,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import { PostgresDataPolicyTable } from '../src/data-policy-table';
import { PostgresPayloadCapture } from '../src/payload-capture';
import { PostgresRequestLog } from '../src/request-log';
import { StaticRouteTable } from '../src/route-table';
import { createGatewayServer, type GatewayServer } from '../src/server';
import { CapturedLog, postJson, route, TEST_ADMISSION, testCredentials } from './support';

const REF = 'privacy-demo@v1';
const DAY_MS = 86_400_000;

interface RuntimeProcess {
  readonly port: number;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** The real fake runtime in its own process, on a port the OS picks. */
async function startFakeRuntime(): Promise<RuntimeProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [FAKE_RUNTIME_MAIN, '--port', '0', '--log-level', 'debug', '--model', REF],
    { env: { PATH: process.env['PATH'] ?? '' } },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === 'fake runtime listening' && typeof parsed.port === 'number') resolve(parsed.port);
      }
    });
    void exited.then(() => reject(new Error(`fake runtime exited before listening: ${output}`)));
  });
  return {
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('gateway payload capture on PostgreSQL with a fake runtime process', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let sql: Client;
  let runtime: RuntimeProcess;
  let policies: PostgresDataPolicyTable;
  let captures: PostgresPayloadCapture;
  let requestLog: PostgresRequestLog;
  let gateway: GatewayServer;
  let url: string;
  const log = new CapturedLog();
  const registry = new Registry();

  before(async () => {
    db = await createScratchDatabase('gateway_payload_capture', testAdminUrl());
    await runMigrations(db.url);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    runtime = await startFakeRuntime();
    const logger = createLogger({ service: 'gateway', level: 'debug', destination: log });
    // Refreshed by hand in the tests; a long interval keeps the loop out of the way.
    policies = new PostgresDataPolicyTable({ databaseUrl: db.url, logger, refreshMs: 60_000, registry });
    captures = new PostgresPayloadCapture({ databaseUrl: db.url, logger, registry, flushMs: 60_000 });
    requestLog = new PostgresRequestLog({ databaseUrl: db.url, logger, flushMs: 60_000 });
    gateway = createGatewayServer({
      credentials: testCredentials(),
      admission: TEST_ADMISSION,
      routes: new StaticRouteTable([
        {
          id: REF,
          createdAt: '2025-11-20T09:00:00.000Z',
          route: route([{ baseUrl: `http://127.0.0.1:${runtime.port}`, servedModel: REF }], {
            modelVersion: REF,
            alias: null,
            allowedDataClasses: ['public', 'internal', 'confidential'],
          }),
        },
      ]),
      logger,
      build: { version: '0.1.0-test', commit: 'test' },
      maxBodyBytes: 1_048_576,
      defaultDataClass: 'internal',
      requestLog,
      dataPolicies: policies,
      payloadCapture: captures,
    });
    const address = await gateway.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${address.port}`;
  });

  after(async () => {
    await gateway?.close(1000);
    await policies?.close();
    await captures?.close();
    await requestLog?.close();
    await runtime?.stop();
    await sql?.end();
    await db?.drop();
  });

  async function complete(marker: string, tenant?: string, stream = false): Promise<void> {
    const response = await postJson(
      url,
      '/v1/chat/completions',
      { model: REF, stream, messages: [{ role: 'user', content: `remember ${marker} please` }] },
      tenant === undefined ? {} : { 'x-lunanexa-tenant-id': tenant },
    );
    expect(response.status, response.text).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await requestLog.flush();
    await captures.flush();
  }

  /** Every row of both tables as text: where a prompt could have gone. */
  async function tableText(): Promise<string> {
    const { rows } = await sql.query<{ text: string }>(
      `SELECT coalesce(string_agg(row_to_json(r)::text, E'\\n'), '') AS text FROM request_records r
       UNION ALL
       SELECT coalesce(string_agg(row_to_json(c)::text, E'\\n'), '') FROM payload_captures c`,
    );
    return rows.map((row) => row.text).join('\n');
  }

  it('retention none (no policy, no tenant header): a request record, no capture, the prompt nowhere', async () => {
    expect(await policies.refresh()).to.equal(true);
    const marker = `m-${randomBytes(8).toString('hex')}`;
    await complete(marker);
    await complete(marker, 'tenant-unconfigured', true);
    const records = await sql.query<{ count: string }>(`SELECT count(*) FROM request_records`);
    expect(Number(records.rows[0]?.count)).to.equal(2);
    const kept = await sql.query<{ count: string }>(`SELECT count(*) FROM payload_captures`);
    expect(Number(kept.rows[0]?.count)).to.equal(0);
    expect(await tableText()).not.to.include(marker);
    expect(log.raw).not.to.include(marker);
    expect(runtime.output()).not.to.include(marker);
  });

  it('retention 2 days: one capture with the prompt and the answer, expiring about 2 days on', async () => {
    await sql.query(
      `INSERT INTO tenant_data_policies (tenant_id, data_class, retention_mode, retention_days,
              evaluation_capture_consent, updated_by, updated_at)
       VALUES ('tenant-2d', 'confidential', 'days', 2, false, 'operator:test', now())`,
    );
    expect(await policies.refresh()).to.equal(true);
    const marker = `m-${randomBytes(8).toString('hex')}`;
    const before = Date.now();
    await complete(marker, 'tenant-2d');
    const { rows } = await sql.query<{
      tenant_id: string;
      purpose: string;
      request_body: unknown;
      response_text: string;
      captured_at: Date;
      expires_at: Date;
      model_ref: string;
    }>(`SELECT tenant_id, purpose, request_body, response_text, captured_at, expires_at, model_ref
          FROM payload_captures`);
    expect(rows).to.have.length(1);
    const [row] = rows;
    if (row === undefined) throw new Error('no capture row');
    expect(row).to.include({ tenant_id: 'tenant-2d', purpose: 'retention', model_ref: REF });
    expect(JSON.stringify(row.request_body)).to.include(marker);
    expect(row.response_text.length).to.be.greaterThan(0);
    const expected = before + 2 * DAY_MS;
    expect(Math.abs(row.expires_at.getTime() - expected)).to.be.lessThan(60_000);
    expect(row.expires_at.getTime() - row.captured_at.getTime()).to.equal(2 * DAY_MS);
    // Kept where the policy allows it, and still in no log line.
    expect(log.raw).not.to.include(marker);
    expect(
      await registry.getSingleMetricAsString('lunanexa_gateway_payload_captures_written_total'),
    ).to.match(/ 1$/m);
  });

  it("a policy change reaches the gateway at the next refresh: back to none, that tenant's next request is not kept", async () => {
    await sql.query(
      `UPDATE tenant_data_policies SET retention_mode = 'none', retention_days = NULL WHERE tenant_id = 'tenant-2d'`,
    );
    expect(await policies.refresh()).to.equal(true);
    const marker = `m-${randomBytes(8).toString('hex')}`;
    await complete(marker, 'tenant-2d');
    expect(await tableText()).not.to.include(marker);
  });
});
