import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  detectMetricsFormat,
  parsePrometheusText,
  parseRuntimeLoad,
  RuntimeLoadSchema,
} from '../src/runtime-load';
import { RuntimeSchema, runtimeMetricsFormat } from '../src/runtime';
import { HeartbeatSchema } from '../src/telemetry';
import { fixture } from './helpers';

/** Recorded metric pages stay beside the sources; compiled tests run from dist/test. */
const page = (name: string): string =>
  readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'metrics', name), 'utf8');

const AT = new Date('2026-03-01T12:00:00.000Z');

describe('runtime load from /metrics pages', () => {
  it('reads a data-parallel vLLM V1 page: counts summed over engines, the fullest cache', () => {
    const load = parseRuntimeLoad(page('vllm-v1.prom'), 'vllm', AT);
    expect(load).to.deep.equal({
      format: 'vllm',
      waiting: 4,
      running: 21,
      cachePressure: 0.7314,
      scrapedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(RuntimeLoadSchema.parse(load)).to.deep.equal(load);
  });

  it('reads an older vLLM page through its gpu_cache_usage_perc name', () => {
    expect(parseRuntimeLoad(page('vllm-v0.prom'), 'vllm', AT)).to.include({
      waiting: 0,
      running: 4,
      cachePressure: 0.18359375,
    });
  });

  it('prefers kv_cache_usage_perc when a server prints both names', () => {
    const text = 'vllm:gpu_cache_usage_perc 0.9\nvllm:kv_cache_usage_perc 0.2\n';
    expect(parseRuntimeLoad(text, 'vllm', AT).cachePressure).to.equal(0.2);
  });

  it('reads an SGLang page', () => {
    expect(parseRuntimeLoad(page('sglang.prom'), 'sglang', AT)).to.include({
      format: 'sglang',
      waiting: 6,
      running: 37,
      cachePressure: 0.58,
    });
  });

  it('reads a llama.cpp page, which has no cache figure', () => {
    expect(parseRuntimeLoad(page('llamacpp.prom'), 'llamacpp', AT)).to.include({
      format: 'llamacpp',
      waiting: 2,
      running: 4,
      cachePressure: null,
    });
  });

  it('reports a gauge the page does not carry as null, never zero', () => {
    // A vLLM page read as SGLang carries none of SGLang's names.
    expect(parseRuntimeLoad(page('vllm-v1.prom'), 'sglang', AT)).to.include({
      waiting: null,
      running: null,
      cachePressure: null,
    });
    expect(parseRuntimeLoad('', 'vllm', AT)).to.include({
      waiting: null,
      running: null,
      cachePressure: null,
    });
  });

  it('reads nothing for a runtime whose format is none', () => {
    expect(parseRuntimeLoad(page('vllm-v1.prom'), 'none', AT)).to.include({
      waiting: null,
      running: null,
      cachePressure: null,
    });
  });

  it('leaves NaN, infinite, negative and out-of-range series out, and null when nothing usable is left', () => {
    const text = [
      'vllm:num_requests_waiting{engine="0"} NaN',
      'vllm:num_requests_waiting{engine="1"} 2',
      'vllm:num_requests_running{engine="0"} NaN',
      'vllm:num_requests_running{engine="1"} -1',
      'vllm:kv_cache_usage_perc{engine="0"} 37.5',
      'vllm:kv_cache_usage_perc{engine="1"} +Inf',
    ].join('\n');
    expect(parseRuntimeLoad(text, 'vllm', AT)).to.include({ waiting: 2, running: null, cachePressure: null });
  });

  it('clamps float noise just above a full cache to 1', () => {
    expect(parseRuntimeLoad('vllm:kv_cache_usage_perc 1.0000000002\n', 'vllm', AT).cachePressure).to.equal(1);
  });

  it('does not take a longer name for the gauge it starts with', () => {
    const text = 'vllm:num_requests_waiting_by_reason{reason="capacity"} 9\nvllm:num_requests_waiting 1\n';
    expect(parseRuntimeLoad(text, 'vllm', AT).waiting).to.equal(1);
  });
});

describe('Prometheus text parsing', () => {
  it('reads labels with escaped quotes, backslashes, newlines, commas and braces in their values', () => {
    const { samples, malformedLines } = parsePrometheusText(
      'm{a="x\\"y",b="c\\\\d",c="e\\nf",d="1,2}",} 3 1700000000000\n',
    );
    expect(malformedLines).to.equal(0);
    expect(samples).to.deep.equal([
      { name: 'm', labels: { a: 'x"y', b: 'c\\d', c: 'e\nf', d: '1,2}' }, value: 3 },
    ]);
  });

  it('skips comments and blank lines, and counts malformed lines without giving up on the page', () => {
    const text = [
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      '',
      'vllm:num_requests_running{model_name="m"} 5',
      'vllm:num_requests_running{model_name="m" 7',
      'vllm:num_requests_running{model_name=m} 7',
      'vllm:num_requests_running 0x10',
      'vllm:num_requests_running',
      'vllm:num_requests_running 1 2 3',
      '<html>502 Bad Gateway</html>',
      'vllm:num_requests_waiting\t3',
    ].join('\r\n');
    const parsed = parsePrometheusText(text);
    expect(parsed.malformedLines).to.equal(6);
    expect(parsed.samples.map((s) => [s.name, s.value])).to.deep.equal([
      ['vllm:num_requests_running', 5],
      ['vllm:num_requests_waiting', 3],
    ]);
    expect(parseRuntimeLoad(text, 'vllm', AT)).to.include({ running: 5, waiting: 3 });
  });

  it('tells the format of a page from its metric names', () => {
    const formats = ['vllm-v1.prom', 'vllm-v0.prom', 'sglang.prom', 'llamacpp.prom'].map((name) =>
      detectMetricsFormat(parsePrometheusText(page(name))),
    );
    expect(formats).to.deep.equal(['vllm', 'vllm', 'sglang', 'llamacpp']);
    expect(detectMetricsFormat(parsePrometheusText('process_cpu_seconds_total 4.2\n'))).to.equal('none');
  });

  it('parses every line of the recorded pages', () => {
    for (const name of ['vllm-v1.prom', 'vllm-v0.prom', 'sglang.prom', 'llamacpp.prom']) {
      expect(parsePrometheusText(page(name)).malformedLines, name).to.equal(0);
    }
  });
});

describe('the metrics format of a runtime record', () => {
  const vllm = fixture('runtime.vllm-container.json') as Record<string, unknown>;
  const fake = fixture('runtime.fake-binary.json') as Record<string, unknown>;

  it('is what the record names, and only one of the known formats', () => {
    const sglang = RuntimeSchema.parse({ ...vllm, metricsFormat: 'sglang' });
    expect(runtimeMetricsFormat(sglang)).to.equal('sglang');
    expect(RuntimeSchema.safeParse({ ...vllm, metricsFormat: 'tgi' }).success).to.equal(false);
  });

  it('is derived for records registered before it existed', () => {
    expect(runtimeMetricsFormat(RuntimeSchema.parse(fake))).to.equal('vllm');
    expect(runtimeMetricsFormat(RuntimeSchema.parse(vllm))).to.equal('vllm');
    const named = (name: string) => runtimeMetricsFormat({ kind: 'openai-compatible', name });
    expect(['sglang', 'llama-cpp', 'llamacpp', 'llama-server', 'nim'].map(named)).to.deep.equal([
      'sglang',
      'llamacpp',
      'llamacpp',
      'llamacpp',
      'none',
    ]);
  });
});

describe('load in the heartbeat', () => {
  const heartbeat = fixture('heartbeat.json') as { observedAssignments: Record<string, unknown>[] };
  const observed = heartbeat.observedAssignments[0] ?? {};
  const withLoad = (load: unknown) => ({ ...heartbeat, observedAssignments: [{ ...observed, load }] });

  it('is optional, so heartbeats of older agents still parse', () => {
    expect(HeartbeatSchema.safeParse(heartbeat).success).to.equal(true);
    expect(HeartbeatSchema.safeParse(withLoad(null)).success).to.equal(true);
  });

  it('carries a runtime load, and refuses a cache pressure outside 0..1', () => {
    const load = parseRuntimeLoad(page('sglang.prom'), 'sglang', AT);
    expect(HeartbeatSchema.safeParse(withLoad(load)).success).to.equal(true);
    expect(HeartbeatSchema.safeParse(withLoad({ ...load, cachePressure: 58 })).success).to.equal(false);
  });
});
