import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ed25519KeyId,
  EnrollResponseBodySchema,
  OpenSshEd25519LineSchema,
  parseEd25519PublicKey,
} from '@lunanexa/agent-protocol';
import { IsoTimestampSchema, NameSchema, OpaqueIdSchema } from '@lunanexa/contracts';
import { z } from 'zod';
import { writeFileAtomic } from '../ssh/atomic-file';

/** `<dataDir>/enrollment.json`: present once the controller accepted this node. */
export const ENROLLMENT_FILE = 'enrollment.json';
export const ENROLLMENT_FILE_FORMAT = 'lunanexa-agent-enrollment-v1';

/** Who this node is for the controller, and which controller key it pinned at enrollment. */
export const EnrollmentSchema = z
  .object({
    format: z.literal(ENROLLMENT_FILE_FORMAT),
    nodeId: OpaqueIdSchema,
    nodeName: NameSchema,
    controllerKeyId: OpaqueIdSchema,
    controllerPublicKey: OpenSshEd25519LineSchema,
    workflowId: EnrollResponseBodySchema.shape.workflowId,
    heartbeatIntervalSeconds: EnrollResponseBodySchema.shape.heartbeatIntervalSeconds,
    leaseDurationSeconds: EnrollResponseBodySchema.shape.leaseDurationSeconds,
    enrolledAt: IsoTimestampSchema,
  })
  .strict();
export type Enrollment = z.infer<typeof EnrollmentSchema>;

export class EnrollmentStateError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'EnrollmentStateError';
  }
}

/**
 * The persisted enrollment, or null before the first one. A file that does
 * not validate, belongs to another node name, or names a controller key that
 * is not what its id says stops the agent: trusting a half-read file would
 * hand the node to whichever key it happens to hold.
 */
export async function loadEnrollment(dataDir: string, nodeName: string): Promise<Enrollment | null> {
  const file = join(dataDir, ENROLLMENT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let document: unknown;
  try {
    document = JSON.parse(text) as unknown;
  } catch {
    throw new EnrollmentStateError(file, 'is not JSON');
  }
  const parsed = EnrollmentSchema.safeParse(document);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new EnrollmentStateError(
      file,
      `does not validate (${first === undefined ? 'unknown problem' : `${first.path.join('.') || '(root)'}: ${first.message}`})`,
    );
  }
  const enrollment = parsed.data;
  if (enrollment.nodeName !== nodeName) {
    throw new EnrollmentStateError(file, `belongs to node ${enrollment.nodeName}, not ${nodeName}`);
  }
  let keyId: string;
  try {
    keyId = ed25519KeyId(parseEd25519PublicKey(enrollment.controllerPublicKey));
  } catch (error: unknown) {
    throw new EnrollmentStateError(
      file,
      `controllerPublicKey is not usable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (keyId !== enrollment.controllerKeyId) {
    throw new EnrollmentStateError(file, 'controllerKeyId does not match controllerPublicKey');
  }
  return enrollment;
}

export async function saveEnrollment(dataDir: string, enrollment: Enrollment): Promise<void> {
  await writeFileAtomic(
    join(dataDir, ENROLLMENT_FILE),
    `${JSON.stringify(EnrollmentSchema.parse(enrollment), null, 2)}\n`,
    0o600,
  );
}
