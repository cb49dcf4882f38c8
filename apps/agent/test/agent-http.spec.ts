import { Writable } from 'node:stream';
import { createLogger } from '@lunanexa/observability';
import { expect } from 'chai';
import { startAgent, type RunningAgent } from '../src/agent';
import { parseAgentConfig, type AgentConfig } from '../src/config';
import type { HostProbe } from '../src/inventory/host';
import { AGENT_PROTOCOL } from '../src/version';
import { GB10_HOST, GB10_MEM_TOTAL_BYTES, H100_HOST, MIB, capturedHost, fixture } from './support';

const silent = createLogger({
  service: 'agent-test',
  level: 'silent',
  destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
});

function config(inventory: unknown, refreshIntervalSeconds?: number): AgentConfig {
  const parsed = parseAgentConfig(
    { nodeName: 'spark-01', listen: { host: '127.0.0.1', port: 9464 }, dataDir: '/unused', inventory },
    '/test/agent.yaml',
  );
  // Port 0 and sub-second refreshes are refused in files but let tests run fast and in parallel.
  return {
    ...parsed,
    listen: { host: '127.0.0.1', port: 0 },
    inventory: {
      ...parsed.inventory,
      refreshIntervalSeconds: refreshIntervalSeconds ?? parsed.inventory.refreshIntervalSeconds,
    },
  };
}

async function start(
  inventory: unknown,
  probe?: HostProbe,
  refreshIntervalSeconds?: number,
): Promise<RunningAgent & { url: string }> {
  const agent = await startAgent({
    config: config(inventory, refreshIntervalSeconds),
    logger: silent,
    agentVersion: '0.1.0',
    commit: 'test',
    ...(probe === undefined ? {} : { probe }),
  });
  return Object.assign(agent, { url: `http://127.0.0.1:${agent.address.port}` });
}

describe('agent HTTP surface', () => {
  let agent: (RunningAgent & { url: string }) | undefined;
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });

  it('GET /health describes a GB10 node as one unified GPU sized from /proc/meminfo', async () => {
    agent = await start({ source: 'nvidia-smi' }, capturedHost(GB10_HOST));
    const response = await fetch(`${agent.url}/health`, { headers: { 'x-request-id': 'req-gb10-1' } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-request-id')).to.equal('req-gb10-1');
    expect(response.headers.get('x-correlation-id')).to.equal('req-gb10-1');
    expect(response.headers.get('traceparent')).to.match(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).to.deep.include({
      status: 'ok',
      nodeName: 'spark-01',
      agentVersion: '0.1.0',
      protocol: AGENT_PROTOCOL,
    });
    expect(Number.isNaN(Date.parse(String(body['startedAt'])))).to.equal(false);
    expect(body['inventory']).to.deep.include({
      architecture: 'arm64',
      gpuCount: 1,
      gpus: [
        {
          name: 'NVIDIA GB10',
          memoryModel: 'unified',
          totalMemoryBytes: GB10_MEM_TOTAL_BYTES,
          memorySource: 'proc-meminfo',
        },
      ],
      problems: [],
    });
  });

  it('generates a request id when the caller sends none', async () => {
    agent = await start({ source: 'simulated', profile: 'dgx-spark' });
    const response = await fetch(`${agent.url}/health`);
    expect(response.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('GET /metrics exports GPU counts and memory by model and source, in bytes', async () => {
    agent = await start({ source: 'nvidia-smi' }, capturedHost(H100_HOST));
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    expect(text).to.contain('lunanexa_agent_gpus{memory_model="discrete"} 8');
    expect(text).to.contain('lunanexa_agent_gpus{memory_model="unified"} 0');
    expect(text).to.contain(
      `lunanexa_agent_gpu_memory_total_bytes{gpu="7",memory_model="discrete",memory_source="nvml"} ${81_559 * MIB}`,
    );
    expect(text).to.contain(
      `lunanexa_agent_gpu_memory_free_bytes{gpu="3",memory_model="discrete",memory_source="nvml"} ${9_741 * MIB}`,
    );
    expect(text).to.contain('lunanexa_agent_inventory_problems 0');
    expect(text).to.contain('lunanexa_build_info{service="agent",version="0.1.0",commit="test"} 1');
  });

  it('exports the unified GB10 figure and no zero for it', async () => {
    agent = await start({ source: 'nvidia-smi' }, capturedHost(GB10_HOST));
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    expect(text).to.contain(
      `lunanexa_agent_gpu_memory_total_bytes{gpu="0",memory_model="unified",memory_source="proc-meminfo"} ${GB10_MEM_TOTAL_BYTES}`,
    );
    expect(text).to.not.match(/lunanexa_agent_gpu_memory_(total|free)_bytes\{[^}]*\} 0$/m);
  });

  it('exports no free-memory series for a GPU whose free figure is [N/A]', async () => {
    const csv = fixture('h100-mig-query-gpu.csv').replace('81559, 44, 80960', '81559, [N/A], [N/A]');
    agent = await start({ source: 'nvidia-smi' }, capturedHost({ ...H100_HOST, queryCsv: csv }));
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    expect(text).to.contain('lunanexa_agent_gpu_memory_total_bytes{gpu="1"');
    expect(text).to.contain('lunanexa_agent_gpu_memory_free_bytes{gpu="0"');
    expect(text).to.not.contain('lunanexa_agent_gpu_memory_free_bytes{gpu="1"');
  });

  it('reports degraded, with the reason, when nvidia-smi is missing', async () => {
    const missing = Object.assign(new Error('spawn nvidia-smi ENOENT'), { code: 'ENOENT' });
    agent = await start(
      { source: 'nvidia-smi' },
      capturedHost({ nodeArch: 'arm64', nvidiaSmiError: missing }),
    );
    const body = (await (await fetch(`${agent.url}/health`)).json()) as {
      status: string;
      inventory: { gpuCount: number; problems: string[] };
    };
    expect(body.status).to.equal('degraded');
    expect(body.inventory.gpuCount).to.equal(0);
    expect(body.inventory.problems[0]).to.match(/nvidia-smi: not found/);
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    expect(text).to.contain('lunanexa_agent_inventory_problems 1');
  });

  it('answers unknown routes with a problem+json 404', async () => {
    agent = await start({ source: 'simulated', profile: 'h100-8x' });
    for (const path of ['/exec', '/shell', '/']) {
      const response = await fetch(`${agent.url}${path}`, { headers: { 'x-request-id': 'req-404' } });
      expect(response.status, path).to.equal(404);
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const problem = (await response.json()) as Record<string, unknown>;
      expect(problem).to.deep.include({
        code: 'NOT_FOUND',
        status: 404,
        requestId: 'req-404',
        instance: path,
      });
    }
  });

  it('refuses every method but GET/HEAD on its routes with a 405 problem', async () => {
    agent = await start({ source: 'simulated', profile: 'h100-8x' });
    for (const [method, path] of [
      ['POST', '/health'],
      ['PUT', '/metrics'],
      ['DELETE', '/health'],
    ] as const) {
      const response = await fetch(`${agent.url}${path}`, { method, body: method === 'DELETE' ? null : 'x' });
      expect(response.status, `${method} ${path}`).to.equal(405);
      expect(response.headers.get('allow')).to.equal('GET, HEAD');
      expect(((await response.json()) as { code: string }).code).to.equal('METHOD_NOT_ALLOWED');
    }
  });

  it('refreshes the inventory on its interval and keeps the last good one when a refresh fails', async () => {
    const host = capturedHost(GB10_HOST);
    let driverLoaded = true;
    let meminfoReadable = true;
    const probe: HostProbe = {
      ...host,
      nvidiaSmi: (args) =>
        driverLoaded
          ? host.nvidiaSmi(args)
          : Promise.reject(Object.assign(new Error('spawn nvidia-smi ENOENT'), { code: 'ENOENT' })),
      readProcMeminfo: () => (meminfoReadable ? host.readProcMeminfo() : Promise.reject(new Error('EIO'))),
    };
    agent = await start({ source: 'nvidia-smi' }, probe, 0.02);
    const running = agent;
    expect(running.health().status).to.equal('ok');

    driverLoaded = false;
    await until(() => running.health().status === 'degraded');
    expect(running.health().inventory.gpuCount).to.equal(0);

    meminfoReadable = false;
    const lastGood = running.health().inventory.collectedAt;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(running.health().inventory.collectedAt).to.equal(lastGood);

    driverLoaded = true;
    meminfoReadable = true;
    await until(() => running.health().status === 'ok');
    expect(running.health().inventory.gpuCount).to.equal(1);
  });

  it('serves the simulated h100-8x profile', async () => {
    agent = await start({ source: 'simulated', profile: 'h100-8x' });
    const body = (await (await fetch(`${agent.url}/health`)).json()) as {
      inventory: { architecture: string; gpuCount: number };
    };
    expect(body.inventory).to.deep.include({ architecture: 'amd64', gpuCount: 8 });
  });
});

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
