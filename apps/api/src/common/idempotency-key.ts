import { randomUUID } from 'node:crypto';
import { ErrorCode, LunaNexaError, OPAQUE_ID_PATTERN } from '@lunanexa/contracts';

/** The caller's key, or a fresh one when none was given: the same key names the same workflow run. */
export function validateIdempotencyKey(key: string | null | undefined): string {
  if (key === null || key === undefined) return randomUUID();
  if (!OPAQUE_ID_PATTERN.test(key)) {
    const message = 'must be 1-128 of letters, digits, . _ : -';
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `idempotencyKey ${message}`, [
      { path: 'idempotencyKey', message },
    ]);
  }
  return key;
}
