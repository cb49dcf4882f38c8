import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ed25519KeyId,
  KeyIdSchema,
  OpenSshEd25519LineSchema,
  parseEd25519PublicKey,
} from '@lunanexa/agent-protocol';
import { IsoTimestampSchema, OpaqueIdSchema } from '@lunanexa/contracts';
import { z } from 'zod';
import { writeFileAtomic } from '../ssh/atomic-file';

/** `<dataDir>/controller-trust.json`: the controller keys learnt or retired after enrollment. */
export const CONTROLLER_TRUST_FILE = 'controller-trust.json';
export const CONTROLLER_TRUST_FILE_FORMAT = 'lunanexa-agent-controller-trust-v1';
/** Retired key ids kept (newest last); older ones are forgotten, the keys themselves are long gone. */
export const MAX_RETIRED_KEY_IDS = 64;

export const AnnouncedControllerKeySchema = z
  .object({
    keyId: KeyIdSchema,
    publicKey: OpenSshEd25519LineSchema,
    /** The rotation that announced it; null when an operator pinned it (`trust-controller-key`). */
    rotationId: OpaqueIdSchema.nullable(),
    addedAt: IsoTimestampSchema,
  })
  .strict();
export type AnnouncedControllerKey = z.infer<typeof AnnouncedControllerKeySchema>;

export const ControllerTrustStateSchema = z
  .object({
    format: z.literal(CONTROLLER_TRUST_FILE_FORMAT),
    announced: z.array(AnnouncedControllerKeySchema),
    retiredKeyIds: z.array(KeyIdSchema).max(MAX_RETIRED_KEY_IDS),
  })
  .strict();
export type ControllerTrustState = z.infer<typeof ControllerTrustStateSchema>;

export const EMPTY_CONTROLLER_TRUST_STATE: ControllerTrustState = {
  format: CONTROLLER_TRUST_FILE_FORMAT,
  announced: [],
  retiredKeyIds: [],
};

export class ControllerTrustStateError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'ControllerTrustStateError';
  }
}

export function controllerTrustFile(dataDir: string): string {
  return join(dataDir, CONTROLLER_TRUST_FILE);
}

/**
 * The persisted trust state, or the empty one before the first rotation. A
 * file that does not validate, or names a key by an id that is not its
 * public key's, stops the agent (like enrollment.json): guessing
 * which keys a half-read file meant could trust a retired key again.
 */
export async function loadControllerTrustState(dataDir: string): Promise<ControllerTrustState> {
  const file = controllerTrustFile(dataDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_CONTROLLER_TRUST_STATE;
    throw error;
  }
  let document: unknown;
  try {
    document = JSON.parse(text) as unknown;
  } catch {
    throw new ControllerTrustStateError(file, 'is not JSON');
  }
  const parsed = ControllerTrustStateSchema.safeParse(document);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ControllerTrustStateError(
      file,
      `does not validate (${first === undefined ? 'unknown problem' : `${first.path.join('.') || '(root)'}: ${first.message}`})`,
    );
  }
  for (const entry of parsed.data.announced) {
    let keyId: string;
    try {
      keyId = ed25519KeyId(parseEd25519PublicKey(entry.publicKey));
    } catch (error: unknown) {
      throw new ControllerTrustStateError(
        file,
        `the key of ${entry.keyId} is not usable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (keyId !== entry.keyId) {
      throw new ControllerTrustStateError(file, `${entry.keyId} does not match its publicKey (${keyId})`);
    }
  }
  return parsed.data;
}

/** Atomic replace (temp file, fsync, rename), mode 0600. */
export async function saveControllerTrustState(dataDir: string, state: ControllerTrustState): Promise<void> {
  await writeFileAtomic(
    controllerTrustFile(dataDir),
    `${JSON.stringify(ControllerTrustStateSchema.parse(state), null, 2)}\n`,
    0o600,
  );
}
