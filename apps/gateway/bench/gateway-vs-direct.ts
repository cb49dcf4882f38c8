#!/usr/bin/env node
/**
 * `npm run bench`: the gateway's overhead on the data path, measured against
 * its own baseline in the same run. One fake runtime process (no time to
 * first token, a million tokens/s, so the runtime itself costs next to
 * nothing) answers the same chat completions twice: once called directly,
 * once through the gateway (route lookup, validation, mapping, streaming
 * relay, request record). Writes percentiles and the gateway/direct ratios to
 * bench/results/gateway-vs-direct.json.
 *
 * The gateway runs in this process, sharing its CPU with the load generator,
 * which makes the gateway side look slower than a gateway on its own core
 * would: the ratio is an upper bound of the overhead.
 *
 *   npm run bench -- --requests 2000 --concurrency 16
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import type { RequestLog, RequestRecord } from '../src/request-log';
import { StaticRouteTable } from '../src/route-table';
import { StaticCredentialTable } from '../src/credential-table';
import { hashBearerSecret } from '@lunanexa/credentials';

const BENCH_TOKEN = `lnx_${'b'.repeat(43)}`;

/** The bench calls as an operator (it names model@version). */
function benchCredentials(): StaticCredentialTable {
  const operatorId = '00000000-0000-4000-8000-000000000001';
  return new StaticCredentialTable({
    operators: [{ id: operatorId, username: 'bench', role: 'operator', sessionEpoch: 0, disabled: false }],
    operatorTokens: [
      {
        id: '00000000-0000-4000-8000-000000000002',
        tokenHash: hashBearerSecret(BENCH_TOKEN),
        prefix: BENCH_TOKEN.slice(0, 12),
        operatorId,
        role: 'operator',
        expiresAt: null,
      },
    ],
  });
}
import { createGatewayServer } from '../src/server';

const MODEL_REF = 'bench-model@v1';
const SERVED_MODEL = 'bench-model';

interface Sample {
  readonly firstByteMs: number;
  readonly totalMs: number;
}

interface Summary {
  readonly requests: number;
  readonly errors: number;
  readonly requestsPerSecond: number;
  readonly totalMs: { readonly p50: number; readonly p95: number; readonly p99: number };
  readonly firstByteMs: { readonly p50: number; readonly p95: number; readonly p99: number };
}

/** Counts what the gateway hands over, so the record's construction is part of what is measured. */
class CountingRequestLog implements RequestLog {
  count = 0;
  record(_entry: RequestRecord): void {
    this.count += 1;
  }
  async close(): Promise<void> {}
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? Number.NaN) * 1000) / 1000;
}

function summarise(samples: readonly Sample[], errors: number, elapsedMs: number): Summary {
  const total = samples.map((s) => s.totalMs).sort((a, b) => a - b);
  const first = samples.map((s) => s.firstByteMs).sort((a, b) => a - b);
  return {
    requests: samples.length,
    errors,
    requestsPerSecond: Math.round((samples.length / elapsedMs) * 1000 * 10) / 10,
    totalMs: { p50: percentile(total, 50), p95: percentile(total, 95), p99: percentile(total, 99) },
    firstByteMs: { p50: percentile(first, 50), p95: percentile(first, 95), p99: percentile(first, 99) },
  };
}

async function startRuntime(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [FAKE_RUNTIME_MAIN, '--port', '0', '--log-level', 'info', '--model', SERVED_MODEL, '--ttft-ms', '0'],
    {
      env: { PATH: process.env['PATH'] ?? '', LUNANEXA_FAKE_TOKENS_PER_SECOND: '1000000' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === 'fake runtime listening' && typeof parsed.port === 'number') {
          child.stdout.off('data', onData);
          child.stdout.resume();
          resolve(parsed.port);
          return;
        }
      }
    };
    child.stdout.on('data', onData);
    void exited.then(() => reject(new Error('the fake runtime exited before listening')));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `requests` chat completions, `concurrency` at a time, each timed to its first and last byte. */
async function drive(
  url: string,
  model: string,
  stream: boolean,
  requests: number,
  concurrency: number,
  dispatcher: Agent,
): Promise<Summary> {
  const samples: Sample[] = [];
  let errors = 0;
  let next = 0;
  const body = JSON.stringify({
    model,
    stream,
    max_tokens: 16,
    seed: 7,
    messages: [{ role: 'user', content: 'Measure the proxy, not the model.' }],
  });
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < requests) {
      next += 1;
      const sent = performance.now();
      let firstByte = Number.NaN;
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const call = request(
            `${url}/v1/chat/completions`,
            {
              method: 'POST',
              agent: dispatcher,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` },
            },
            (response) => {
              response.once('data', () => (firstByte = performance.now()));
              response.on('data', () => undefined);
              response.once('end', () => resolve(response.statusCode ?? 0));
              response.once('error', reject);
            },
          );
          call.once('error', reject);
          call.end(body);
        });
        if (status !== 200) {
          errors += 1;
          continue;
        }
        samples.push({ firstByteMs: firstByte - sent, totalMs: performance.now() - sent });
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summarise(samples, errors, performance.now() - started);
}

function ratio(gateway: number, direct: number): number {
  return Math.round((gateway / direct) * 1000) / 1000;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '16' },
      warmup: { type: 'string', default: '200' },
    },
  });
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const warmup = Number(values.warmup);
  const runtime = await startRuntime();
  const log = new CountingRequestLog();
  const gateway = createGatewayServer({
    credentials: benchCredentials(),
    admission: { replicaConcurrency: 1024, queuePerReplica: 1024, maxQueueWaitMs: 30_000 },
    routes: new StaticRouteTable([
      {
        id: MODEL_REF,
        createdAt: new Date().toISOString(),
        route: {
          modelVersion: MODEL_REF,
          alias: null,
          deploymentId: 'dep-bench',
          allowedDataClasses: ['public', 'internal', 'confidential'],
          endpoints: [{ baseUrl: runtime.baseUrl, servedModel: SERVED_MODEL }],
        },
      },
    ]),
    logger: createLogger({ service: 'gateway', level: 'silent' }),
    build: { version: 'bench', commit: 'bench' },
    maxBodyBytes: 1_048_576,
    defaultDataClass: 'internal',
    requestLog: log,
  });
  const address = await gateway.listen(0, '127.0.0.1');
  const gatewayUrl = `http://127.0.0.1:${address.port}`;
  const dispatcher = new Agent({ keepAlive: true, maxSockets: concurrency * 2 });
  const scenarios = [];
  try {
    for (const stream of [false, true]) {
      // Warm both paths (JIT, connection pools) before anything counts.
      await drive(runtime.baseUrl, SERVED_MODEL, stream, warmup, concurrency, dispatcher);
      await drive(gatewayUrl, MODEL_REF, stream, warmup, concurrency, dispatcher);
      // Alternate halves so drift on the machine hits both sides alike.
      const half = Math.ceil(requests / 2);
      const direct1 = await drive(runtime.baseUrl, SERVED_MODEL, stream, half, concurrency, dispatcher);
      const gateway1 = await drive(gatewayUrl, MODEL_REF, stream, half, concurrency, dispatcher);
      const direct2 = await drive(runtime.baseUrl, SERVED_MODEL, stream, half, concurrency, dispatcher);
      const gateway2 = await drive(gatewayUrl, MODEL_REF, stream, half, concurrency, dispatcher);
      const pick = (a: Summary, b: Summary): Summary => (a.totalMs.p50 <= b.totalMs.p50 ? a : b);
      const direct = pick(direct1, direct2);
      const viaGateway = pick(gateway1, gateway2);
      scenarios.push({
        name: stream ? 'chat, streamed (16 tokens)' : 'chat, not streamed (16 tokens)',
        concurrency,
        direct,
        gateway: viaGateway,
        ratio: {
          totalP50: ratio(viaGateway.totalMs.p50, direct.totalMs.p50),
          totalP99: ratio(viaGateway.totalMs.p99, direct.totalMs.p99),
          firstByteP50: ratio(viaGateway.firstByteMs.p50, direct.firstByteMs.p50),
          throughput: ratio(viaGateway.requestsPerSecond, direct.requestsPerSecond),
        },
        addedLatencyP50Ms: Math.round((viaGateway.totalMs.p50 - direct.totalMs.p50) * 1000) / 1000,
      });
    }
  } finally {
    dispatcher.destroy();
    await gateway.close(1000);
    await runtime.stop();
  }
  const result = {
    benchmark: 'gateway-vs-direct',
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version },
    note: 'Gateway and load generator share one process; the ratio is an upper bound of the gateway overhead.',
    requestRecordsHandedOver: log.count,
    scenarios,
  };
  const dir = join(findRepoRoot(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'gateway-vs-direct.json');
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  for (const s of scenarios) {
    process.stdout.write(
      `${s.name}: direct p50 ${s.direct.totalMs.p50} ms p99 ${s.direct.totalMs.p99} ms ${s.direct.requestsPerSecond} req/s | ` +
        `gateway p50 ${s.gateway.totalMs.p50} ms p99 ${s.gateway.totalMs.p99} ms ${s.gateway.requestsPerSecond} req/s | ` +
        `ratio p50 ${s.ratio.totalP50} p99 ${s.ratio.totalP99} throughput ${s.ratio.throughput}\n`,
    );
  }
  process.stdout.write(`wrote ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
