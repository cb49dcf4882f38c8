import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DigestSchema,
  GenerationSchema,
  IsoTimestampSchema,
  OpaqueIdSchema,
  RuntimeKindSchema,
} from '@lunanexa/contracts';
import { z } from 'zod';
import { writeFileAtomic } from '../ssh/atomic-file';

/** `<dataDir>/runtimes.json`: the runtimes this agent started and believes are running. */
export const RUNTIMES_FILE = 'runtimes.json';
export const RUNTIMES_FILE_FORMAT = 'lunanexa-agent-runtimes-v1';

export const RuntimeRecordSchema = z
  .object({
    assignmentId: OpaqueIdSchema,
    generation: GenerationSchema,
    /** sha256 of what the runtime was launched from (see `launchDigest`): a changed spec is a new runtime. */
    launchDigest: DigestSchema,
    runtimeId: OpaqueIdSchema,
    kind: RuntimeKindSchema,
    pid: z.int().positive(),
    /** `starttime` from /proc/<pid>/stat, so a reused pid is never mistaken for the runtime. */
    processStartTime: z.string().regex(/^[0-9]{1,20}$/),
    port: z.int().min(1).max(65535),
    endpoint: z.url({ protocol: /^http$/ }),
    startedAt: IsoTimestampSchema,
    /** A container runtime's name in the engine (pid is then its `<engine> run` CLI's); absent for a binary. */
    container: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$/)
      .optional(),
  })
  .strict();
export type RuntimeRecord = z.infer<typeof RuntimeRecordSchema>;

const RuntimesFileSchema = z
  .object({
    format: z.literal(RUNTIMES_FILE_FORMAT),
    runtimes: z.array(RuntimeRecordSchema).max(1024),
  })
  .strict();

/**
 * Reads the records; a missing file is none. A file that does not validate is
 * also treated as none, with the reason returned: unlike assignments.json it
 * holds no desired state, and every tagged process it fails to describe is
 * stopped and started again, which is safe.
 */
export async function loadRuntimeRecords(
  dataDir: string,
): Promise<{ records: RuntimeRecord[]; problem: string | null }> {
  const file = join(dataDir, RUNTIMES_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problem: null };
    throw error;
  }
  try {
    return { records: RuntimesFileSchema.parse(JSON.parse(text) as unknown).runtimes, problem: null };
  } catch {
    return { records: [], problem: `${file} does not validate; its runtimes will be restarted` };
  }
}

export async function saveRuntimeRecords(dataDir: string, records: readonly RuntimeRecord[]): Promise<void> {
  const sorted = [...records].sort((a, b) =>
    a.assignmentId < b.assignmentId ? -1 : a.assignmentId > b.assignmentId ? 1 : 0,
  );
  await writeFileAtomic(
    join(dataDir, RUNTIMES_FILE),
    `${JSON.stringify({ format: RUNTIMES_FILE_FORMAT, runtimes: sorted }, null, 2)}\n`,
    0o600,
  );
}
