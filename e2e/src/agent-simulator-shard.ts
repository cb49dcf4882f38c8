import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { AgentSimulator } from './agent-simulator';
import type {
  ShardAnswer,
  ShardOptions,
  ShardReply,
  ShardRequest,
  SimulatorLoopDelay,
} from './agent-simulator-threads';

/** One thread of ThreadedAgentSimulator: an AgentSimulator of its own, driven by the parent's messages. */

const port = parentPort;
if (port === null) throw new Error('agent-simulator-shard runs as a worker thread');

const simulator = new AgentSimulator(workerData as ShardOptions);
let loopDelay: IntervalHistogram = startLoopDelay();

function startLoopDelay(): IntervalHistogram {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return histogram;
}

function loopDelayOf(histogram: IntervalHistogram): SimulatorLoopDelay {
  const ms = (ns: number): number => Math.round(ns / 1e5) / 10;
  return {
    p50Ms: ms(histogram.percentile(50)),
    p99Ms: ms(histogram.percentile(99)),
    maxMs: ms(histogram.max),
  };
}

async function handle(request: ShardRequest): Promise<ShardAnswer> {
  switch (request.op) {
    case 'enroll':
      await simulator.enrollOne(request.name, request.index, request.token);
      return { ok: true };
    case 'reset':
      simulator.resetStats();
      loopDelay.disable();
      loopDelay = startLoopDelay();
      return { ok: true };
    case 'collect':
      return {
        ok: true,
        // postMessage copies them; no copy of our own.
        value: { samples: simulator.rawSamples(), loopDelay: loopDelayOf(loopDelay) },
      };
    case 'kill':
      await simulator.kill(request.names);
      return { ok: true };
    case 'stop':
      loopDelay.disable();
      await simulator.stop();
      return { ok: true };
  }
}

port.on('message', (message: ShardRequest & { readonly id: number }) => {
  const reply = (answer: ShardAnswer): void =>
    port.postMessage({ ...answer, id: message.id } satisfies ShardReply);
  handle(message).then(reply, (error: unknown) =>
    reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
