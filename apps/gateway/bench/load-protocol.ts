import type { RunFigures } from './stats';

/**
 * What the harness and its load generator child say to each other: one JSON
 * object per line, commands on the child's stdin, results on its stdout.
 */

/** One closed-loop run: `concurrency` keep-alive connections, each sending the next request when the last ended. */
export interface RunCommand {
  readonly type: 'run';
  readonly id: number;
  /** `http://127.0.0.1:<port>/v1/chat/completions`. */
  readonly url: string;
  /** Sent as is to every target, so each receives the same request bytes. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Streamed answers must end with `data: [DONE]`; anything else counts as an error. */
  readonly stream: boolean;
  readonly concurrency: number;
  /** Stop after this long… */
  readonly durationMs: number | null;
  /** …or after this many requests (exactly one of the two is set). */
  readonly requests: number | null;
  /**
   * Untimed requests per connection before the clock starts, so every
   * connection is open and every process has served it once.
   */
  readonly primePerConnection: number;
}

export interface ExitCommand {
  readonly type: 'exit';
}

export type LoadCommand = RunCommand | ExitCommand;

export interface RunResult {
  readonly type: 'result';
  readonly id: number;
  readonly figures: RunFigures;
  /** Every request sent, primes and failures included (what the target's request log should have seen). */
  readonly sent: number;
}

export interface FailedResult {
  readonly type: 'failed';
  readonly id: number;
  readonly message: string;
}

export type LoadReply = RunResult | FailedResult;
