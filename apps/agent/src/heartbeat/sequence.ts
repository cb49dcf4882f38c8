import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../ssh/atomic-file';

/** `<dataDir>/heartbeat-state.json`: the highest heartbeat sequence reserved (every one sent is at most this). */
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
 * Numbers reserved per write of heartbeat-state.json: one write (and fsync) a
 * minute at 1 s heartbeats rather than one a beat. A crash skips at most this
 * many numbers, which costs nothing: the controller only asks for "after".
 */
export const DEFAULT_SEQUENCE_RESERVATION = 60;

/**
 * Heartbeat sequence numbers, strictly increasing across restarts: the
 * controller drops a heartbeat that is not newer than the last it accepted,
 * so a number reused after a crash would be a heartbeat lost. Numbers are
 * reserved in blocks: the file holds the highest number that may have been
 * used (written and fsync'd before any number up to it is handed out), and
 * a restart continues after it, skipping what was reserved but not used.
 */
export class HeartbeatSequence {
  private constructor(
    private readonly file: string,
    private last: number,
    /** Highest number persisted as possibly used. */
    private reserved: number,
    private readonly reservation: number,
  ) {}

  /** A file that does not validate stops the agent: restarting from 0 would silence it until it caught up. */
  static async open(
    dataDir: string,
    options: { readonly reservation?: number } = {},
  ): Promise<HeartbeatSequence> {
    const reservation = options.reservation ?? DEFAULT_SEQUENCE_RESERVATION;
    if (!Number.isInteger(reservation) || reservation < 1)
      throw new Error('the sequence reservation must be a positive integer');
    const file = join(dataDir, HEARTBEAT_STATE_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error: unknown) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return new HeartbeatSequence(file, 0, 0, reservation);
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
    return new HeartbeatSequence(file, parsed.data.lastSequence, parsed.data.lastSequence, reservation);
  }

  /** The last number handed out (0 before the first heartbeat ever; after a restart, the last one reserved). */
  get lastSequence(): number {
    return this.last;
  }

  /** The next number, persisted as reserved before it is returned. */
  async next(): Promise<number> {
    const sequence = this.last + 1;
    if (sequence > this.reserved) {
      const reserved = this.last + this.reservation;
      await writeFileAtomic(
        this.file,
        `${JSON.stringify({ format: HEARTBEAT_STATE_FORMAT, lastSequence: reserved })}\n`,
        0o600,
      );
      this.reserved = reserved;
    }
    this.last = sequence;
    return sequence;
  }
}
