import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../ssh/atomic-file';

/** `<dataDir>/heartbeat-state.json`: the last heartbeat sequence used. */
export const HEARTBEAT_STATE_FILE = 'heartbeat-state.json';
export const HEARTBEAT_STATE_FORMAT = 'lunanexa-agent-heartbeat-v1';

const HeartbeatStateSchema = z
  .object({
    format: z.literal(HEARTBEAT_STATE_FORMAT),
    lastSequence: z.int().nonnegative(),
  })
  .strict();

export class HeartbeatStateError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'HeartbeatStateError';
  }
}

/**
 * Heartbeat sequence numbers, strictly increasing across restarts: the
 * controller drops a heartbeat that is not newer than the last it accepted,
 * so a number reused after a crash would be a heartbeat lost. Each number is
 * written (fsync'd) before it is used; a crash after the write only skips one.
 */
export class HeartbeatSequence {
  private constructor(
    private readonly file: string,
    private last: number,
  ) {}

  /** A file that does not validate stops the agent: restarting from 0 would silence it until it caught up. */
  static async open(dataDir: string): Promise<HeartbeatSequence> {
    const file = join(dataDir, HEARTBEAT_STATE_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error: unknown) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new HeartbeatSequence(file, 0);
      throw error;
    }
    let document: unknown;
    try {
      document = JSON.parse(text) as unknown;
    } catch {
      throw new HeartbeatStateError(file, 'is not JSON');
    }
    const parsed = HeartbeatStateSchema.safeParse(document);
    if (!parsed.success) throw new HeartbeatStateError(file, 'does not validate');
    return new HeartbeatSequence(file, parsed.data.lastSequence);
  }

  /** The last number handed out (0 before the first heartbeat ever). */
  get lastSequence(): number {
    return this.last;
  }

  /** Persists and returns the next number. */
  async next(): Promise<number> {
    const sequence = this.last + 1;
    await writeFileAtomic(
      this.file,
      `${JSON.stringify({ format: HEARTBEAT_STATE_FORMAT, lastSequence: sequence })}\n`,
      0o600,
    );
    this.last = sequence;
    return sequence;
  }
}
