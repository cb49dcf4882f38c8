import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { expect } from 'chai';
import { Client } from 'pg';
import type { TenantQuota } from '@lunanexa/contracts';
import {
  createScratchDatabase,
  findTenant,
  queryableClient,
  runMigrations,
  seedBenchTenant,
  updateTenant,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import { BENCH_DEPLOYMENT_ID, newGatewayKey, seedRoute } from '../bench/seed';
import { FakeRuntime, call, openAiChatCompletion, unusedPort, type RawResponse } from './support';

/** The compiled entry point next to this compiled test. */
const MAIN = join(__dirname, '..', 'src', 'main.js');

interface Tenant {
  readonly id: string;
  readonly alias: string;
  readonly key: string;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

/** Live child pids of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A killed worker is a zombie ("Z") until the primary reaps it: not alive.
      if (Number(fields[1]) === pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children.sort((a, b) => a - b);
}

describe('the gateway as two worker processes', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let runtime: FakeRuntime;
  let gateway: ChildProcess;
  let baseUrl: string;
  let output = '';
  /** Upstream answers the runtime holds back (the concurrency tests release them). */
  let held: ServerResponse[] = [];
  let hold = false;
  const tenants: Record<'concurrent' | 'perMinute' | 'unlimited' | 'burst' | 'burstRate', Tenant> = {
    concurrent: { id: 'cluster-concurrent', alias: 'cluster-concurrent', key: newGatewayKey() },
    burst: { id: 'cluster-burst', alias: 'cluster-burst', key: newGatewayKey() },
    burstRate: { id: 'cluster-burst-rate', alias: 'cluster-burst-rate', key: newGatewayKey() },
    perMinute: { id: 'cluster-per-minute', alias: 'cluster-per-minute', key: newGatewayKey() },
    unlimited: { id: 'cluster-unlimited', alias: 'cluster-unlimited', key: newGatewayKey() },
  };
  const quotas: Record<keyof typeof tenants, TenantQuota> = {
    concurrent: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 2 },
    perMinute: { requestsPerMinute: 4, tokensPerMinute: null, maxConcurrentRequests: null },
    unlimited: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: null },
    // Limits far enough from a burst's start that the workers lease admissions in batches.
    burst: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 40 },
    burstRate: { requestsPerMinute: 60, tokensPerMinute: null, maxConcurrentRequests: null },
  };

  /** A chat completion on a connection of its own, so the cluster hands it to the next worker in turn. */
  const chat = (tenant: Tenant): Promise<RawResponse> =>
    call(baseUrl, 'POST', '/v1/chat/completions', {
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${tenant.key}`,
        connection: 'close',
      },
      body: JSON.stringify({ model: tenant.alias, messages: [{ role: 'user', content: 'hi' }] }),
    });

  const release = (): void => {
    for (const res of held) res.end(JSON.stringify(openAiChatCompletion('ok')));
    held = [];
  };

  /** Worker ids that wrote a 429 access-log line for `tenant`'s quota (the errors-mode access log names them). */
  const refusingWorkers = (): Set<number> => {
    const workers = new Set<number>();
    for (const line of output.split('\n')) {
      if (!line.includes('"status":429')) continue;
      const worker = /"worker":(\d+)/.exec(line)?.[1];
      if (worker !== undefined) workers.add(Number(worker));
    }
    return workers;
  };

  before(async () => {
    scratch = await createScratchDatabase('gateway_cluster');
    await runMigrations(scratch.url);
    runtime = await new FakeRuntime((_call, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (hold) held.push(res);
      else res.end(JSON.stringify(openAiChatCompletion('ok')));
    }).start();
    const sql = new Client({ connectionString: scratch.url });
    await sql.connect();
    try {
      await seedRoute(sql, Number(new URL(runtime.baseUrl).port));
      const q = queryableClient(sql);
      for (const [name, tenant] of Object.entries(tenants) as [keyof typeof tenants, Tenant][]) {
        await seedBenchTenant(q, {
          alias: tenant.alias,
          tenantId: tenant.id,
          deploymentId: BENCH_DEPLOYMENT_ID,
          createdBy: 'cluster-test',
          key: tenant.key,
          keyPrefix: tenant.key.slice(0, 13),
        });
        const row = await findTenant(q, tenant.id);
        if (row === null) throw new Error(`tenant ${tenant.id} was not seeded`);
        await updateTenant(q, {
          ...row,
          quota: quotas[name],
          updatedAt: new Date(Date.parse(row.createdAt) + 1000).toISOString(),
        });
      }
    } finally {
      await sql.end();
    }
    const port = await unusedPort();
    baseUrl = `http://127.0.0.1:${port}`;
    gateway = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: scratch.url,
        LUNANEXA_GATEWAY_PORT: String(port),
        LUNANEXA_GATEWAY_WORKERS: '2',
        LUNANEXA_GATEWAY_SHUTDOWN_GRACE_MS: '2000',
      },
    });
    gateway.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    gateway.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    // Both workers ready: /ready answered by each in turn, on fresh connections.
    await until('two workers listening', () =>
      (output.match(/"msg":"gateway listening"/g) ?? []).length >= 2 ? true : undefined,
    );
    for (let i = 0; i < 4; i += 1)
      await until('ready', async () => {
        const ready = await call(baseUrl, 'GET', '/ready', { headers: { connection: 'close' } }).catch(
          () => null,
        );
        return ready?.status === 200 ? true : undefined;
      });
  });

  after(async () => {
    release();
    if (gateway !== undefined && gateway.exitCode === null) {
      gateway.kill('SIGKILL');
      await new Promise((resolve) => gateway.once('exit', resolve));
    }
    await runtime?.stop();
    await scratch?.drop();
  });

  it('runs a primary with two workers', () => {
    expect(childrenOf(gateway.pid!)).to.have.length(2);
  });

  it('holds a tenant to its concurrent requests across both workers, not twice as many', async () => {
    hold = true;
    let refused = 0;
    const answers = Array.from({ length: 6 }, () =>
      chat(tenants.concurrent).then((answer) => {
        if (answer.status === 429) refused += 1;
        return answer;
      }),
    );
    // Every request has either reached the runtime or been refused.
    await until('the requests to settle', () => (held.length + refused === 6 ? true : undefined));
    await delay(200);
    expect(held).to.have.length(2);
    release();
    hold = false;
    const statuses = (await Promise.all(answers)).map((answer) => answer.status).sort();
    expect(statuses).to.deep.equal([200, 200, 429, 429, 429, 429]);
    // Refusals came from both workers: each alone would have admitted two.
    expect(refusingWorkers()).to.have.property('size', 2);
  });

  it('holds a tenant to its requests per minute across both workers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const answer = await chat(tenants.perMinute);
      statuses.push(answer.status);
      if (answer.status === 429)
        expect(answer.json<{ detail: string }>().detail).to.contain('requests per minute');
    }
    // A bucket of 4 (refilling 4 a minute) shared by both workers; per worker it would have been 8.
    expect(statuses).to.deep.equal([200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
  });

  it('leaves a tenant without limits alone while another is at its limit', async () => {
    hold = true;
    const limited = [chat(tenants.concurrent), chat(tenants.concurrent)];
    await until('the limited tenant at its limit', () => (held.length === 2 ? true : undefined));
    hold = false;
    const free = await Promise.all(Array.from({ length: 8 }, () => chat(tenants.unlimited)));
    expect(free.map((answer) => answer.status)).to.deep.equal(Array(8).fill(200));
    release();
    expect((await Promise.all(limited)).map((answer) => answer.status)).to.deep.equal([200, 200]);
  });

  it('serves /metrics summed over both workers', async () => {
    const metrics = await call(baseUrl, 'GET', '/metrics', { headers: { connection: 'close' } });
    expect(metrics.status).to.equal(200);
    const refusals = /lunanexa_gateway_quota_refusals_total\{limit="requestsPerMinute"\} (\d+)/.exec(
      metrics.text,
    );
    // Six refusals of the per-minute test, whichever worker counted them.
    expect(Number(refusals?.[1])).to.equal(6);
  });

  it('holds a burst across both workers to the concurrency limit exactly, with leased admissions', async () => {
    hold = true;
    let refused = 0;
    const burst = 120;
    const answers = Array.from({ length: burst }, () =>
      chat(tenants.burst).then((answer) => {
        if (answer.status === 429) refused += 1;
        return answer;
      }),
    );
    await until('the burst to settle', () => (held.length + refused === burst ? true : undefined));
    await delay(200);
    const running = held.length;
    // Leases are counted by the primary as they are granted: no slack over the limit.
    expect(running).to.be.at.most(40);
    expect(running).to.be.at.least(20);
    release();
    hold = false;
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(running);
    expect(statuses.filter((status) => status === 429)).to.have.length(burst - running);
    expect(refusingWorkers()).to.have.property('size', 2);
  });

  it('holds a burst across both workers to the requests per minute, with leased admissions', async () => {
    const started = Date.now();
    const statuses = (await Promise.all(Array.from({ length: 150 }, () => chat(tenants.burstRate)))).map(
      (answer) => answer.status,
    );
    // A bucket of 60 refilling one a second: at most 60 plus what refilled while the burst ran.
    const refilled = Math.ceil((Date.now() - started) / 1000);
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).to.be.at.most(60 + refilled);
    expect(admitted).to.be.at.least(60);
    expect(admitted + statuses.filter((status) => status === 429).length).to.equal(150);
  });

  it('restarts a killed worker and frees the quota slots its requests held', async () => {
    hold = true;
    const doomed = [chat(tenants.concurrent), chat(tenants.concurrent)].map((answer) =>
      Promise.race([answer.catch(() => null), delay(5000)]),
    );
    await until('both slots taken', () => (held.length === 2 ? true : undefined));
    const before = childrenOf(gateway.pid!);
    process.kill(before[0], 'SIGKILL');
    const after = await until('a replacement worker', () => {
      const now = childrenOf(gateway.pid!);
      return now.length === 2 && !now.includes(before[0]) ? now : undefined;
    });
    expect(after).to.include(before[1]);
    await until('the replacement listening', () =>
      (output.match(/"msg":"gateway listening"/g) ?? []).length >= 3 ? true : undefined,
    );
    expect(output).to.contain('a gateway worker died; starting another');
    // The replacement listened only once it knew the routes: the cluster hands a listening worker new
    // connections at once, and one without routes would answer them 404 MODEL_NOT_FOUND.
    const lines = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; worker?: number });
    const listening = lines.filter((line) => line.msg === 'gateway listening').at(-1);
    const loadedAt = lines.findIndex(
      (line) => line.msg === 'route table loaded' && line.worker === listening?.worker,
    );
    expect(loadedAt).to.be.within(0, lines.indexOf(listening!) - 1);
    // Both upstream answers fail: the survivor's request ends and returns its slot; the dead worker's
    // slot is only free again because the primary released it when the worker died.
    held.splice(0).forEach((res) => res.destroy());
    // The killed worker's client sees its connection reset, which `call` never settles: bounded above.
    await Promise.all(doomed);
    await delay(300);
    hold = true;
    let refused = 0;
    const next = Array.from({ length: 4 }, () =>
      chat(tenants.concurrent).then((answer) => {
        if (answer.status === 429) refused += 1;
        return answer;
      }),
    );
    // Released only once the other two were refused: a slot freed earlier would admit a latecomer.
    await until('two admitted again', () => (held.length === 2 && refused === 2 ? true : undefined));
    release();
    hold = false;
    expect((await Promise.all(next)).map((answer) => answer.status).sort()).to.deep.equal([
      200, 200, 429, 429,
    ]);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const exited = new Promise<number | null>((resolve) => gateway.once('exit', (code) => resolve(code)));
    gateway.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
