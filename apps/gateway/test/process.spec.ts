import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, EXIT_CONFIG } from '@lunanexa/observability';
import { loadGatewayConfig } from '../src/config';
import { call, unusedPort } from './support';

/** The compiled entry point next to this compiled test. */
const MAIN = join(__dirname, '..', 'src', 'main.js');

function startMain(env: Record<string, string>): ChildProcessWithoutNullStreams {
  // One process: these tests read one process's log and exit code; cluster.int.ts covers the workers.
  return spawn(process.execPath, [MAIN], {
    env: { PATH: process.env['PATH'] ?? '', LUNANEXA_GATEWAY_WORKERS: '1', ...env },
  });
}

function exitOf(
  child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('gateway configuration', () => {
  it('uses the documented defaults', () => {
    expect(loadGatewayConfig({})).to.deep.equal({
      host: '127.0.0.1',
      port: 4100,
      logLevel: 'info',
      maxBodyBytes: 1_048_576,
      defaultDataClass: 'confidential',
      shutdownGraceMs: 10_000,
      databaseUrl: null,
      routeRefreshMs: 1000,
      requestRecordRetentionHours: 168,
      admission: { replicaConcurrency: 256, queuePerReplica: 64, maxQueueWaitMs: 30_000 },
      credentialRefreshMs: 30_000,
      accessLog: 'errors',
      workers: availableParallelism(),
      quotaLeaseSize: 32,
    });
  });

  it('reads every variable', () => {
    const config = loadGatewayConfig({
      LUNANEXA_GATEWAY_HOST: '0.0.0.0',
      LUNANEXA_GATEWAY_PORT: '8080',
      LUNANEXA_LOG_LEVEL: 'warn',
      LUNANEXA_GATEWAY_MAX_BODY_BYTES: '4096',
      LUNANEXA_GATEWAY_DEFAULT_DATA_CLASS: 'public',
      LUNANEXA_GATEWAY_SHUTDOWN_GRACE_MS: '500',
      DATABASE_URL: 'postgres://lunanexa@db.internal:5432/lunanexa',
      LUNANEXA_GATEWAY_ROUTE_REFRESH_MS: '250',
      LUNANEXA_REQUEST_RECORD_RETENTION_HOURS: '24',
      LUNANEXA_GATEWAY_REPLICA_CONCURRENCY: '4',
      LUNANEXA_GATEWAY_QUEUE_PER_REPLICA: '0',
      LUNANEXA_GATEWAY_MAX_QUEUE_WAIT_MS: '1500',
      LUNANEXA_GATEWAY_CREDENTIAL_REFRESH_MS: '2000',
      LUNANEXA_GATEWAY_ACCESS_LOG: 'all',
      LUNANEXA_GATEWAY_WORKERS: '3',
      LUNANEXA_GATEWAY_QUOTA_LEASE: '8',
    });
    expect(config).to.deep.equal({
      host: '0.0.0.0',
      port: 8080,
      logLevel: 'warn',
      maxBodyBytes: 4096,
      defaultDataClass: 'public',
      shutdownGraceMs: 500,
      databaseUrl: 'postgres://lunanexa@db.internal:5432/lunanexa',
      routeRefreshMs: 250,
      requestRecordRetentionHours: 24,
      admission: { replicaConcurrency: 4, queuePerReplica: 0, maxQueueWaitMs: 1500 },
      credentialRefreshMs: 2000,
      accessLog: 'all',
      workers: 3,
      quotaLeaseSize: 8,
    });
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(loadGatewayConfig({ DATABASE_URL: '' }).databaseUrl).to.equal(null);
  });

  it('refuses a non-postgres DATABASE_URL and a refresh interval out of range', () => {
    for (const [env, variable, message] of [
      [{ DATABASE_URL: 'mysql://db/lunanexa' }, 'DATABASE_URL', 'postgres://'],
      [{ LUNANEXA_GATEWAY_ROUTE_REFRESH_MS: '10' }, 'LUNANEXA_GATEWAY_ROUTE_REFRESH_MS', 'at least 100'],
      [{ LUNANEXA_GATEWAY_ROUTE_REFRESH_MS: '60000' }, 'LUNANEXA_GATEWAY_ROUTE_REFRESH_MS', 'at most 10000'],
      [{ LUNANEXA_GATEWAY_ROUTE_REFRESH_MS: 'soon' }, 'LUNANEXA_GATEWAY_ROUTE_REFRESH_MS', 'integer'],
      [{ LUNANEXA_GATEWAY_REPLICA_CONCURRENCY: '0' }, 'LUNANEXA_GATEWAY_REPLICA_CONCURRENCY', 'at least 1'],
      [{ LUNANEXA_GATEWAY_QUEUE_PER_REPLICA: '-1' }, 'LUNANEXA_GATEWAY_QUEUE_PER_REPLICA', 'at least 0'],
      [{ LUNANEXA_GATEWAY_MAX_QUEUE_WAIT_MS: '1' }, 'LUNANEXA_GATEWAY_MAX_QUEUE_WAIT_MS', 'at least 10 ms'],
      [{ LUNANEXA_GATEWAY_QUOTA_LEASE: '0' }, 'LUNANEXA_GATEWAY_QUOTA_LEASE', 'at least 1'],
      [
        { LUNANEXA_REQUEST_RECORD_RETENTION_HOURS: '0' },
        'LUNANEXA_REQUEST_RECORD_RETENTION_HOURS',
        'at least 1 hour',
      ],
    ] as const) {
      expect(() => loadGatewayConfig(env))
        .to.throw(ConfigError)
        .that.satisfies((error: ConfigError) =>
          error.problems.some((p) => p.variable === variable && p.message.includes(message)),
        );
    }
  });
});

describe('gateway process', function () {
  this.timeout(20_000);

  it('exits 78 naming each bad variable', async () => {
    const result = await exitOf(
      startMain({
        LUNANEXA_GATEWAY_PORT: '70000',
        LUNANEXA_GATEWAY_MAX_BODY_BYTES: 'lots',
        LUNANEXA_LOG_LEVEL: 'chatty',
      }),
    );
    expect(result.code).to.equal(EXIT_CONFIG);
    expect(result.stderr).to.include('LUNANEXA_GATEWAY_PORT');
    expect(result.stderr).to.include('LUNANEXA_GATEWAY_MAX_BODY_BYTES');
    expect(result.stderr).to.include('LUNANEXA_LOG_LEVEL');
  });

  async function waitForHealth(url: string): Promise<void> {
    let health = 0;
    for (let attempt = 0; attempt < 200 && health !== 200; attempt += 1) {
      health = await call(url, 'GET', '/health').then(
        (response) => response.status,
        () => 0,
      );
      if (health !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(health).to.equal(200);
  }

  function logLines(stdout: string): { msg: string; [key: string]: unknown }[] {
    return stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { msg: string });
  }

  it('serves, then exits 0 on SIGTERM after logging the shutdown', async () => {
    const port = await unusedPort();
    const child = startMain({ LUNANEXA_GATEWAY_PORT: String(port) });
    const exited = exitOf(child);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url);
    expect((await call(url, 'GET', '/ready')).status).to.equal(200);
    child.kill('SIGTERM');
    const result = await exited;
    expect(result.code).to.equal(0);
    const messages = logLines(result.stdout).map((line) => line.msg);
    expect(messages).to.include(
      'DATABASE_URL not set: empty route table, every inference request gets MODEL_NOT_FOUND',
    );
    expect(messages).to.include('gateway listening');
    expect(messages).to.include('stopped');
  });

  it('with DATABASE_URL unreachable: serves /health, answers /ready 503, still stops cleanly', async () => {
    const port = await unusedPort();
    const dbPort = await unusedPort();
    const child = startMain({
      LUNANEXA_GATEWAY_PORT: String(port),
      DATABASE_URL: `postgres://lunanexa:secret-password@127.0.0.1:${dbPort}/lunanexa`,
      LUNANEXA_GATEWAY_ROUTE_REFRESH_MS: '100',
    });
    const exited = exitOf(child);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url);
    const ready = await call(url, 'GET', '/ready');
    expect(ready.status).to.equal(503);
    expect(ready.json()['code']).to.equal('DEPENDENCY_UNAVAILABLE');
    let metrics = await call(url, 'GET', '/metrics');
    // The first refresh runs concurrently with startup; give its failure a moment to be counted.
    for (let attempt = 0; attempt < 40 && /failures_total 0$/m.test(metrics.text); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      metrics = await call(url, 'GET', '/metrics');
    }
    expect(metrics.text).to.match(/^lunanexa_gateway_route_refresh_failures_total [1-9]/m);
    expect(metrics.text).to.match(/^lunanexa_gateway_route_snapshot_age_seconds \d/m);
    child.kill('SIGTERM');
    const result = await exited;
    expect(result.code).to.equal(0);
    const lines = logLines(result.stdout);
    expect(lines.map((line) => line.msg)).to.include.members([
      'routes from PostgreSQL (DATABASE_URL)',
      'route table could not load; reporting not ready',
      'stopped',
    ]);
    // The connection string carries credentials; it must not reach the log.
    expect(result.stdout).to.not.include('secret-password');
  });
});
