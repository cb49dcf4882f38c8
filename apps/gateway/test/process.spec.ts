import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { EXIT_CONFIG } from '@lunanexa/observability';
import { loadGatewayConfig } from '../src/config';
import { call, unusedPort } from './support';

/** The compiled entry point next to this compiled test. */
const MAIN = join(__dirname, '..', 'src', 'main.js');

function startMain(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [MAIN], { env: { PATH: process.env['PATH'] ?? '', ...env } });
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
    });
    expect(config).to.deep.equal({
      host: '0.0.0.0',
      port: 8080,
      logLevel: 'warn',
      maxBodyBytes: 4096,
      defaultDataClass: 'public',
      shutdownGraceMs: 500,
    });
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

  it('serves, then exits 0 on SIGTERM after logging the shutdown', async () => {
    const port = await unusedPort();
    const child = startMain({ LUNANEXA_GATEWAY_PORT: String(port) });
    const exited = exitOf(child);
    const url = `http://127.0.0.1:${port}`;
    let health = 0;
    for (let attempt = 0; attempt < 200 && health !== 200; attempt += 1) {
      health = await call(url, 'GET', '/health').then(
        (response) => response.status,
        () => 0,
      );
      if (health !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(health).to.equal(200);
    expect((await call(url, 'GET', '/ready')).status).to.equal(200);
    child.kill('SIGTERM');
    const result = await exited;
    expect(result.code).to.equal(0);
    const messages = result.stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).to.include('gateway listening');
    expect(messages).to.include('stopped');
  });
});
