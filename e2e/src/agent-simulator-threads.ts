import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { enrollInLanes, type AgentSimulatorOptions, type HeartbeatSample } from './agent-simulator';

/**
 * The simulated fleet spread over worker threads, each thread an
 * AgentSimulator of its own with its agents' heartbeat loops and SSH servers
 * on its own event loop (agent i lives on thread i mod N).
 *
 * Why threads at all: on one event loop the SSH work one node does for an
 * assignment push (key exchange, verifying the envelope, storing the
 * assignment, signing the ack) holds back every other node's heartbeat timer,
 * which real nodes never share. Measured on a 2-core machine, though, four
 * threads cost the simulator a quarter of a core more than one and the
 * controller's heartbeats got slower, not faster (README "Fleet scale"), so
 * bench:scale runs one thread unless told otherwise; more may pay where cores
 * are spare. The one thread keeps the agents off the bench's main thread,
 * which polls the database and scrapes metrics.
 */

/** Event-loop delay of one simulator thread over a window (monitorEventLoopDelay, 10 ms resolution). */
export interface SimulatorLoopDelay {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Everything the threads recorded since the last resetStats. */
export interface SimulatorWindow {
  readonly samples: HeartbeatSample[];
  readonly windowMs: number;
  /** One entry per thread. */
  readonly loopDelay: readonly SimulatorLoopDelay[];
}

/** What a simulator thread is asked, and answers (`id` pairs them). */
export type ShardRequest =
  | { readonly op: 'enroll'; readonly name: string; readonly index: number; readonly token: string }
  | { readonly op: 'reset' }
  | { readonly op: 'collect' }
  | { readonly op: 'kill'; readonly names: readonly string[] }
  | { readonly op: 'stop' };

export interface ShardCollected {
  readonly samples: readonly HeartbeatSample[];
  readonly loopDelay: SimulatorLoopDelay;
}

export type ShardAnswer =
  { readonly ok: true; readonly value?: ShardCollected } | { readonly ok: false; readonly error: string };

export type ShardReply = ShardAnswer & { readonly id: number };

/** The serialisable part of AgentSimulatorOptions a thread is started with (no logger: each thread makes its own). */
export type ShardOptions = Omit<AgentSimulatorOptions, 'logger'>;

/** The compiled thread entry next to this module. */
const SHARD_ENTRY = join(__dirname, 'agent-simulator-shard.js');

class SimulatorThread {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (reply: ShardReply) => void; reject: (error: Error) => void }
  >();
  private failure: Error | null = null;
  readonly worker: Worker;

  constructor(
    options: ShardOptions,
    readonly index: number,
  ) {
    this.worker = new Worker(SHARD_ENTRY, { workerData: options });
    this.worker.on('message', (reply: ShardReply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.resolve(reply);
    });
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`simulator thread ${index} exited (code ${code})`)));
  }

  async ask(request: ShardRequest): Promise<ShardCollected | undefined> {
    if (this.failure !== null) throw this.failure;
    const id = this.nextId++;
    const reply = await new Promise<ShardReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...request });
    });
    if (!reply.ok) throw new Error(`simulator thread ${this.index}: ${reply.error}`);
    return reply.value;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

export class ThreadedAgentSimulator {
  private readonly threads: SimulatorThread[];
  private readonly threadOf = new Map<string, SimulatorThread>();
  private windowStart = Date.now();
  /** Agents enrolled so far (heartbeating). */
  enrolled = 0;

  constructor(
    options: ShardOptions,
    readonly threadCount: number,
  ) {
    if (!Number.isInteger(threadCount) || threadCount < 1)
      throw new RangeError(`threads must be a positive integer, got ${threadCount}`);
    this.threads = Array.from({ length: threadCount }, (_, i) => new SimulatorThread(options, i));
  }

  /**
   * Enrolls `names`, `concurrency` at a time: `token(name)` is asked here (it
   * may call the api), the agent enrolls on its thread and starts heartbeating.
   */
  async enrollAll(
    names: readonly string[],
    token: (name: string) => Promise<string>,
    concurrency: number,
  ): Promise<void> {
    await enrollInLanes(names, concurrency, async (name, index) => {
      const thread = this.threads[index % this.threads.length];
      this.threadOf.set(name, thread);
      await thread.ask({ op: 'enroll', name, index, token: await token(name) });
      this.enrolled += 1;
    });
  }

  /** Starts a new measurement window on every thread. */
  async resetStats(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.ask({ op: 'reset' })));
    this.windowStart = Date.now();
  }

  /** The window so far: every thread's heartbeats, merged, and each thread's event-loop delay. */
  async collect(): Promise<SimulatorWindow> {
    const windowMs = Date.now() - this.windowStart;
    const parts = await Promise.all(this.threads.map((thread) => thread.ask({ op: 'collect' })));
    const collected = parts.filter((part): part is ShardCollected => part !== undefined);
    return {
      samples: collected.flatMap((part) => part.samples),
      windowMs,
      loopDelay: collected.map((part) => part.loopDelay),
    };
  }

  /** These nodes die at once: their heartbeats stop and their SSH servers close. */
  async kill(names: readonly string[]): Promise<void> {
    const byThread = new Map<SimulatorThread, string[]>();
    for (const name of names) {
      const thread = this.threadOf.get(name);
      if (thread === undefined) throw new Error(`no simulated agent named ${name}`);
      byThread.set(thread, [...(byThread.get(thread) ?? []), name]);
    }
    await Promise.all([...byThread].map(([thread, list]) => thread.ask({ op: 'kill', names: list })));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.threads.map(async (thread) => {
        await thread.ask({ op: 'stop' }).catch(() => undefined);
        await thread.worker.terminate();
      }),
    );
  }
}
