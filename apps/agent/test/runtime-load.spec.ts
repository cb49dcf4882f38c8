import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { readRuntimeLoad, runtimeLoadOfPage } from '../src/reconcile/runtime-load';

const AT = new Date('2026-03-01T12:00:00.000Z');
const now = (): Date => AT;

const VLLM_PAGE = [
  '# HELP vllm:num_requests_running Number of requests in model execution batches.',
  '# TYPE vllm:num_requests_running gauge',
  'vllm:num_requests_running{engine="0",model_name="llama-3-1-8b@2024-07-23"} 3.0',
  'vllm:num_requests_waiting{engine="0",model_name="llama-3-1-8b@2024-07-23"} 7.0',
  'vllm:kv_cache_usage_perc{engine="0",model_name="llama-3-1-8b@2024-07-23"} 0.25',
].join('\n');

describe('reading a runtime’s load from its /metrics page', () => {
  let server: Server;
  let endpoint: string;
  let answer: (res: ServerResponse) => void;

  before(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads vLLM’s gauges, knowing the format from the page', async () => {
    answer = (res) => res.end(VLLM_PAGE);
    expect(await readRuntimeLoad(endpoint, now)).to.deep.equal({
      format: 'vllm',
      waiting: 7,
      running: 3,
      cachePressure: 0.25,
      scrapedAt: AT.toISOString(),
    });
  });

  it('reads llama.cpp’s gauges, with no cache figure', async () => {
    answer = (res) => res.end('llamacpp:requests_processing 2\nllamacpp:requests_deferred 1\n');
    expect(await readRuntimeLoad(endpoint, now)).to.include({
      format: 'llamacpp',
      running: 2,
      waiting: 1,
      cachePressure: null,
    });
  });

  it('is null for a page in no format it knows, an error answer, or a runtime that does not answer in time', async () => {
    answer = (res) => res.end('process_cpu_seconds_total 1.5\n');
    expect(await readRuntimeLoad(endpoint, now)).to.equal(null);
    answer = (res) => {
      res.statusCode = 503;
      res.end(VLLM_PAGE);
    };
    expect(await readRuntimeLoad(endpoint, now)).to.equal(null);
    answer = () => undefined;
    const started = Date.now();
    expect(await readRuntimeLoad(endpoint, now, 200)).to.equal(null);
    expect(Date.now() - started).to.be.below(2_000);
  });

  it('is null when nothing listens', async () => {
    expect(await readRuntimeLoad('http://127.0.0.1:1', now)).to.equal(null);
  });

  it('reports a gauge the page lacks as null, not zero', () => {
    expect(runtimeLoadOfPage('vllm:num_requests_running 1\n', AT)).to.include({ running: 1, waiting: null });
  });
});
