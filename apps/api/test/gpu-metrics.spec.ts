import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { GPU_THROTTLE_REASONS, HeartbeatSchema, type GpuTelemetry } from '@lunanexa/contracts';
import { createServiceMetrics } from '@lunanexa/observability';
import type { DataSource } from 'typeorm';
import { GpuTelemetryMetrics, gpuSamples } from '../src/metrics/gpu-telemetry.metric';
import { gpuTelemetryView } from '../src/nodes/views';

/** The contracts' golden heartbeats: an 8x H100 with one GPU lost, and a v1.0 agent's GB10. */
function goldenTelemetry(file: string): GpuTelemetry[] {
  const path = join(__dirname, '..', '..', '..', '..', 'libs', 'contracts', 'fixtures', 'v1', file);
  return HeartbeatSchema.parse(JSON.parse(readFileSync(path, 'utf8'))).gpuTelemetry;
}

describe('GPU telemetry metrics', () => {
  const h100 = goldenTelemetry('heartbeat.h100-telemetry.json');
  const legacy = goldenTelemetry('heartbeat.json');

  it('labels series by node and GPU index only, leaves unreported figures out and marks the lost GPU', () => {
    const samples = gpuSamples([
      { nodeName: 'dgx-h100-1', telemetry: h100, inventoryIndexByUuid: new Map() },
    ]);
    const of = (metric: string, gpu: string) =>
      samples
        .filter((sample) => sample.metric === metric && sample.labels.gpu === gpu)
        .map((sample) => sample.value);
    expect(of('lunanexa_gpu_utilization_ratio', '0')).to.deep.equal([0.87]);
    expect(of('lunanexa_gpu_memory_used_bytes', '0')).to.deep.equal([72978595840]);
    expect(of('lunanexa_gpu_power_watts', '0')).to.deep.equal([612.4]);
    expect(of('lunanexa_gpu_ecc_errors_total', '0')).to.deep.equal([0]);
    expect(of('lunanexa_gpu_lost', '0')).to.deep.equal([0]);
    // The lost GPU: no figures at all (never zeros), just the marker and the Xid it logged.
    expect(
      samples.filter((sample) => sample.labels.gpu === '1').map((sample) => [sample.metric, sample.value]),
    ).to.deep.equal([
      ['lunanexa_gpu_lost', 1],
      ['lunanexa_gpu_last_xid', 79],
    ]);
    // No Xid seen on GPU 0: no series (a 0 would read as an Xid code).
    expect(of('lunanexa_gpu_last_xid', '0')).to.deep.equal([]);
    const throttled = samples.filter((sample) => sample.metric === 'lunanexa_gpu_throttled');
    expect(throttled.map((sample) => sample.labels.reason)).to.deep.equal([...GPU_THROTTLE_REASONS]);
    expect(
      throttled.filter((sample) => sample.value === 1).map((sample) => sample.labels.reason),
    ).to.deep.equal(['SwPowerCap']);
    const labelSets = new Set(samples.map((sample) => Object.keys(sample.labels).sort().join(',')));
    expect([...labelSets].sort()).to.deep.equal(['gpu,node', 'gpu,node,reason']);
  });

  it("takes the index of a v1.0 agent's GPU from the inventory, and skips a GPU it cannot label", () => {
    const uuid = legacy[0]?.uuid ?? '';
    const labelled = gpuSamples([
      { nodeName: 'spark-1', telemetry: legacy, inventoryIndexByUuid: new Map([[uuid, 0]]) },
    ]);
    expect(labelled.map((sample) => [sample.metric, sample.labels.gpu, sample.value])).to.deep.equal([
      ['lunanexa_gpu_utilization_ratio', '0', 0],
      ['lunanexa_gpu_temperature_celsius', '0', 35],
      ['lunanexa_gpu_power_watts', '0', 11.17],
      ['lunanexa_gpu_lost', '0', 0],
    ]);
    expect(
      gpuSamples([{ nodeName: 'spark-1', telemetry: legacy, inventoryIndexByUuid: new Map() }]),
    ).to.deep.equal([]);
  });

  it('exports the gauges from one read per scrape, and none when the database read fails', async () => {
    let reads = 0;
    let fail = false;
    const db = {
      query: () => {
        reads += 1;
        if (fail) return Promise.reject(new Error('connection refused'));
        return Promise.resolve([{ name: 'dgx-h100-1', gpu_telemetry: h100, gpus: null }]);
      },
    } as unknown as DataSource;
    const metrics = createServiceMetrics('api', { version: '0.0.0', commit: 'test' });
    new GpuTelemetryMetrics(metrics, db);
    const text = await metrics.registry.metrics();
    expect(reads).to.equal(1);
    expect(text).to.include('lunanexa_gpu_utilization_ratio{node="dgx-h100-1",gpu="0"} 0.87');
    expect(text).to.include('lunanexa_gpu_throttled{node="dgx-h100-1",gpu="0",reason="SwPowerCap"} 1');
    expect(text).to.include('lunanexa_gpu_lost{node="dgx-h100-1",gpu="1"} 1');
    const gpuLines = text.split('\n').filter((line) => line.startsWith('lunanexa_gpu_'));
    expect(gpuLines.filter((line) => /pid|uuid|GPU-/i.test(line))).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    fail = true;
    expect(await metrics.registry.metrics()).to.not.include('lunanexa_gpu_utilization_ratio{');
  });

  it('shows a v1.0 agent’s telemetry on the GraphQL node with the new figures null, never zero', () => {
    const [gpu] = legacy;
    if (gpu === undefined) throw new Error('the golden heartbeat has a GPU');
    expect(gpuTelemetryView(gpu)).to.deep.include({
      index: null,
      sampledAt: null,
      memoryUsedBytes: null,
      memorySource: null,
      throttleReasons: null,
      eccUncorrectedErrors: null,
      lost: false,
      processCount: 1,
      processMemoryBytes: 20064501760,
    });
  });
});
