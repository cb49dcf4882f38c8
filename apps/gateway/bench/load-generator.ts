#!/usr/bin/env node
/**
 * The data-plane bench's load generator, a process of its own so it never
 * shares a CPU's event loop with the target it measures. It reads one JSON
 * command per line on stdin (see load-protocol.ts), runs it as a closed loop
 * over keep-alive connections, and answers one JSON line on stdout with the
 * run's percentiles. It stays up between runs so its own code is warm.
 *
 *   node apps/gateway/dist/bench/load-generator.js   (spawned by data-plane.js)
 */
import { Agent, type RequestOptions, request } from 'node:http';
import { createInterface } from 'node:readline';
import type { LoadCommand, LoadReply, RunCommand, RunResult } from './load-protocol';
import { percentilesOf } from './stats';

/** How an OpenAI-compatible stream ends; a stream cut before it is an error, not a fast answer. */
const STREAM_END = Buffer.from('data: [DONE]\n\n');
const REQUEST_TIMEOUT_MS = 30_000;

/** A growable list of doubles, so a long run does not box a million numbers. */
class Samples {
  private values = new Float64Array(4096);
  private count = 0;

  push(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count] = value;
    this.count += 1;
  }

  /** The samples taken, as a copy the caller may sort. */
  taken(): Float64Array {
    return this.values.slice(0, this.count);
  }
}

type Outcome =
  | { readonly ok: true; readonly firstByteMs: number; readonly totalMs: number }
  | { readonly ok: false; readonly kind: string };

function endsWithStreamEnd(tail: Buffer): boolean {
  return (
    tail.length >= STREAM_END.length && tail.subarray(tail.length - STREAM_END.length).equals(STREAM_END)
  );
}

/** One request, timed from just before it is written to its first and last body byte. */
function send(options: RequestOptions, body: Buffer, stream: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const sentAt = performance.now();
    let settled = false;
    const fail = (kind: string): void => {
      if (settled) return;
      settled = true;
      resolve({ ok: false, kind });
    };
    const req = request(options, (res) => {
      let firstByteAt = Number.NaN;
      let bytes = 0;
      let tail: Buffer = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteAt = performance.now();
        bytes += chunk.length;
        if (stream) {
          tail =
            chunk.length >= STREAM_END.length
              ? chunk
              : Buffer.concat([tail, chunk]).subarray(-STREAM_END.length);
        }
      });
      res.once('end', () => {
        const endedAt = performance.now();
        if (res.statusCode !== 200) fail(`status ${res.statusCode ?? 0}`);
        else if (bytes === 0) fail('empty body');
        else if (stream && !endsWithStreamEnd(tail)) fail('incomplete stream');
        else if (!settled) {
          settled = true;
          resolve({ ok: true, firstByteMs: firstByteAt - sentAt, totalMs: endedAt - sentAt });
        }
      });
      res.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      // Cut before its end without an error event: still not an answer.
      res.once('close', () => fail('closed before the end'));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })),
    );
    req.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    req.end(body);
  });
}

async function run(command: RunCommand): Promise<RunResult> {
  const url = new URL(command.url);
  const body = Buffer.from(command.body, 'utf8');
  const agent = new Agent({
    keepAlive: true,
    maxSockets: command.concurrency,
    maxFreeSockets: command.concurrency,
  });
  const options: RequestOptions = {
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent,
    headers: { ...command.headers, 'content-length': String(body.length) },
  };
  let sent = 0;
  try {
    // All connections open (each worker holds one request in flight at a time) before the clock starts.
    await Promise.all(
      Array.from({ length: command.concurrency }, async () => {
        for (let i = 0; i < command.primePerConnection; i += 1) {
          sent += 1;
          await send(options, body, command.stream);
        }
      }),
    );

    const total = new Samples();
    const firstByte = new Samples();
    const errorKinds: Record<string, number> = {};
    let errors = 0;
    let remaining = command.requests ?? Number.POSITIVE_INFINITY;
    const startedAt = performance.now();
    const deadline = command.durationMs === null ? Number.POSITIVE_INFINITY : startedAt + command.durationMs;
    await Promise.all(
      Array.from({ length: command.concurrency }, async () => {
        while (remaining > 0 && performance.now() < deadline) {
          remaining -= 1;
          sent += 1;
          const outcome = await send(options, body, command.stream);
          if (outcome.ok) {
            total.push(outcome.totalMs);
            firstByte.push(outcome.firstByteMs);
          } else {
            errors += 1;
            errorKinds[outcome.kind] = (errorKinds[outcome.kind] ?? 0) + 1;
          }
        }
      }),
    );
    const elapsedMs = performance.now() - startedAt;
    const totalSamples = total.taken();
    return {
      type: 'result',
      id: command.id,
      sent,
      figures: {
        requests: totalSamples.length,
        errors,
        errorKinds,
        elapsedMs: Math.round(elapsedMs),
        requestsPerSecond: Math.round((totalSamples.length / elapsedMs) * 1000 * 10) / 10,
        totalMs: percentilesOf(totalSamples),
        firstByteMs: percentilesOf(firstByte.taken()),
      },
    };
  } finally {
    agent.destroy();
  }
}

function reply(message: LoadReply): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  // One command at a time, in order: a run must never overlap another.
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const command = JSON.parse(line) as LoadCommand;
    if (command.type === 'exit') break;
    try {
      reply(await run(command));
    } catch (error: unknown) {
      reply({
        type: 'failed',
        id: command.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `load generator failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
