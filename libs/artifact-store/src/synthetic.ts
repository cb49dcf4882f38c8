import { createHash } from 'node:crypto';
import type { ArtifactCheckResult } from './verify';

/**
 * The fake runtime's weights are synthetic: nothing is stored, and the digest
 * is derived from the model version's ref, exactly as the API derives it when
 * it registers a `fake`-format version. A fake artifact with any other digest
 * was not made by LunaNexa and fails as a DIGEST_MISMATCH.
 */
export function syntheticArtifactDigest(ref: string): string {
  return `sha256:${createHash('sha256').update(`lunanexa-fake-weights:${ref}`, 'utf8').digest('hex')}`;
}

export function verifySyntheticArtifact(
  artifact: { readonly digest: string },
  ref: string,
): ArtifactCheckResult {
  const expected = syntheticArtifactDigest(ref);
  if (artifact.digest === expected) return { ok: true, digest: expected, sizeBytes: 0, store: 'synthetic' };
  return {
    ok: false,
    code: 'DIGEST_MISMATCH',
    digest: expected,
    sizeBytes: 0,
    store: 'synthetic',
    message: `a fake-format artifact of ${ref} must have the synthetic digest ${expected}, not ${artifact.digest}`,
  };
}
