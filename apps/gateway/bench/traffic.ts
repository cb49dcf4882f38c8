import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RoutingPolicy } from '@lunanexa/contracts';
import { hashBearerSecret } from '@lunanexa/credentials';
import { FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { createLogger } from '@lunanexa/observability';
import type { AdmissionLimits } from '../src/admission';
import { StaticCredentialTable } from '../src/credential-table';
import type { RequestLog, RequestRecord } from '../src/request-log';
import { type Route, StaticRouteTable } from '../src/route-table';
import { createGatewayServer, type GatewayServer } from '../src/server';
import { freePort, startProcess, waitForHttp, type StartedProcess } from './processes';

/**
 * What the routing and fairness benches share: real fake-runtime processes,
 * the real gateway server (in this process, behind a static route table and
 * credential table, so the figures isolate routing and admission from the
 * database), an open-loop request sender that measures time to first token
 * at the client, and percentile arithmetic.
 */

export const BENCH_OPERATOR_TOKEN = `lnx_${'b'.repeat(43)}`;
export const BENCH_MODEL_REF = 'routing-bench@1';
export const BENCH_ALIAS = 'routing-bench';

export function log(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

export function workDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `lunanexa-${name}-`));
}

export function writeResult(file: string, result: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}

/** Starts `count` fake runtimes with these extra flags; resolves with their base URLs. */
export async function startRuntimes(
  count: number,
  flags: readonly string[],
  work: string,
  tag: string,
  logLevel = 'warn',
): Promise<{ urls: string[]; processes: StartedProcess[]; logFiles: string[] }> {
  const processes: StartedProcess[] = [];
  const urls: string[] = [];
  const logFiles: string[] = [];
  for (let i = 0; i < count; i += 1) {
    logFiles.push(join(work, `runtime-${tag}-${i}.log`));
    const port = await freePort();
    const runtime = startProcess({
      name: `fake runtime ${tag}-${i}`,
      command: process.execPath,
      args: [
        FAKE_RUNTIME_MAIN,
        ...['--port', String(port), '--model', BENCH_MODEL_REF, '--log-level', logLevel],
        ...flags,
      ],
      env: { PATH: process.env['PATH'] ?? '' },
      logFile: logFiles[i],
    });
    processes.push(runtime);
    urls.push(`http://127.0.0.1:${port}`);
  }
  for (const [i, runtime] of processes.entries()) await waitForHttp(runtime, `${urls[i]}/health`, 15_000);
  return { urls, processes, logFiles };
}

/** Request records kept in memory: what the gateway would write to request_records. */
export class MemoryRequestLog implements RequestLog {
  readonly records: RequestRecord[] = [];
  record(entry: RequestRecord): void {
    this.records.push(entry);
  }
  async close(): Promise<void> {}
}

export interface BenchGateway {
  readonly gateway: GatewayServer;
  readonly url: string;
  readonly records: MemoryRequestLog;
  readonly credentials: StaticCredentialTable;
  stop(): Promise<void>;
}

/** The real gateway server over `urls`, as one alias with `policy`, callable with BENCH_OPERATOR_TOKEN. */
export async function startBenchGateway(
  urls: readonly string[],
  policy: RoutingPolicy,
  admission: AdmissionLimits,
  tenantCaps: readonly { tenantId: string; maxPriority: string | null }[] = [],
): Promise<BenchGateway> {
  const operatorId = '0b7c1f00-0000-4000-8000-00000000b001';
  const credentials = new StaticCredentialTable({
    operators: [{ id: operatorId, username: 'bench', role: 'operator', sessionEpoch: 0, disabled: false }],
    operatorTokens: [
      {
        id: '0b7c1f00-0000-4000-8000-00000000b002',
        tokenHash: hashBearerSecret(BENCH_OPERATOR_TOKEN),
        prefix: BENCH_OPERATOR_TOKEN.slice(0, 12),
        operatorId,
        role: 'operator',
        expiresAt: null,
      },
    ],
    tenants: tenantCaps.map((cap) => ({
      tenantId: cap.tenantId,
      requestsPerMinute: null,
      tokensPerMinute: null,
      maxConcurrentRequests: null,
      maxPriority: cap.maxPriority,
    })),
  });
  const endpoints = urls.map((baseUrl) => ({ baseUrl, servedModel: BENCH_MODEL_REF }));
  const route: Route = {
    modelVersion: BENCH_MODEL_REF,
    alias: BENCH_ALIAS,
    deploymentId: 'dep-routing-bench',
    allowedDataClasses: ['public', 'internal'],
    endpoints,
    routingPolicy: policy,
  };
  // One route object per rotation, as the PostgreSQL table hands them out.
  const rotations = endpoints.map((_, start) => ({
    ...route,
    endpoints: [...endpoints.slice(start), ...endpoints.slice(0, start)],
  }));
  let next = 0;
  const table = new StaticRouteTable([]);
  table.lookup = (name: string): Route | undefined => {
    if (name !== BENCH_ALIAS) return undefined;
    next = (next + 1) % rotations.length;
    return rotations[next];
  };
  const records = new MemoryRequestLog();
  const gateway = createGatewayServer({
    routes: table,
    credentials,
    admission,
    logger: createLogger({ service: 'gateway', level: 'warn' }),
    build: { version: 'bench', commit: 'bench' },
    maxBodyBytes: 4 * 1024 * 1024,
    defaultDataClass: 'internal',
    requestLog: records,
    accessLog: 'none',
  });
  const address = await gateway.listen(0, '127.0.0.1');
  return {
    gateway,
    url: `http://127.0.0.1:${address.port}`,
    records,
    credentials,
    stop: () => gateway.close(2000),
  };
}

export interface Outcome {
  readonly tenant: string;
  readonly status: number;
  /** From sending to the first SSE event (the first token); null when none came. */
  readonly ttftMs: number | null;
  readonly totalMs: number;
  readonly startedAt: number;
}

/** One streamed chat completion through the gateway; never rejects. */
export function sendChat(
  url: string,
  tenant: string,
  messages: readonly { role: string; content: string }[],
  headers: Record<string, string> = {},
  maxTokens = 64,
): Promise<Outcome> {
  const body = JSON.stringify({ model: BENCH_ALIAS, messages, stream: true, max_tokens: maxTokens });
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const req = request(
      `${url}/v1/chat/completions`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${BENCH_OPERATOR_TOKEN}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-lunanexa-tenant-id': tenant,
          ...headers,
        },
      },
      (res) => {
        let ttftMs: number | null = null;
        res.on('data', () => {
          if (ttftMs === null && res.statusCode === 200) ttftMs = performance.now() - startedAt;
        });
        const done = (): void =>
          resolve({
            tenant,
            status: res.statusCode ?? 0,
            ttftMs,
            totalMs: performance.now() - startedAt,
            startedAt,
          });
        res.once('end', done);
        res.once('error', done);
      },
    );
    req.once('error', () =>
      resolve({ tenant, status: 0, ttftMs: null, totalMs: performance.now() - startedAt, startedAt }),
    );
    req.end(body);
  });
}

/** Exponential gaps: arrivals at `ratePerSecond` on average, independent of how fast answers come. */
export function poissonGapMs(ratePerSecond: number, random: () => number): number {
  return (-Math.log(1 - random()) * 1000) / ratePerSecond;
}

/** A seeded generator (mulberry32), so every policy sees the same arrivals and prompts. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index] * 10) / 10;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
