import { createHash, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';

/**
 * Artifact signatures: whether a version's provenance signature vouches for
 * its artifact, and whether an unsigned version may be deployed.
 *
 * What is signed: the UTF-8 bytes of the artifact statement
 *
 *     lunanexa-artifact-v1\n
 *     digest=sha256:<64 hex>\n
 *     size=<sizeBytes>\n
 *
 * (`artifactSigningStatement`). The digest is the artifact's identity and
 * the size pins the byte count the agent downloads; the model name and
 * version are not signed, so the same blessed bytes may be registered under
 * several versions. Ed25519 (RFC 8032, pure, no pre-hash), the signature
 * stored base64 in `provenance.signature.value`.
 *
 * Key ids are fingerprints, not names: `ed25519:` + the first 32 hex digits
 * of sha256 over the raw 32-byte public key (`signingKeyFingerprint`), so a
 * signature's keyId cannot point at a different key than the one that made it.
 *
 * Deterministic and side-effect free (node:crypto's Ed25519 verify is a pure
 * function of its inputs), so the API, the worker before a rollout and the
 * agent before a start all reach the same verdict from the same facts. It
 * lives here, not in libs/domain, because the domain may not import Node
 * builtins (test/architecture.spec.ts); the deploy gate in libs/domain takes
 * its verdict (`ArtifactSignatureDecision`) as a fact.
 */

export const ARTIFACT_STATEMENT_VERSION = 'lunanexa-artifact-v1';

export interface SignedArtifactFacts {
  readonly digest: string;
  readonly sizeBytes: number;
}

export interface ArtifactSignatureClaim {
  readonly algorithm: string;
  readonly keyId: string;
  /** Base64 of the 64-byte Ed25519 signature. */
  readonly value: string;
}

/** A key an admin registered; `revoked` keys verify nothing. */
export interface TrustedSigningKey {
  readonly keyId: string;
  /** Base64 of the raw 32-byte Ed25519 public key. */
  readonly publicKey: string;
  readonly revoked: boolean;
}

export type ArtifactSignatureCode = 'SIGNATURE_INVALID' | 'UNSIGNED_VERSION_NOT_ALLOWED';

export type ArtifactSignatureDecision =
  | { readonly ok: true; readonly signed: boolean; readonly keyId: string | null }
  | { readonly ok: false; readonly code: ArtifactSignatureCode; readonly reason: string };

/** The exact bytes an Ed25519 artifact signature covers. */
export function artifactSigningStatement(artifact: SignedArtifactFacts): Buffer {
  return Buffer.from(
    `${ARTIFACT_STATEMENT_VERSION}\ndigest=${artifact.digest}\nsize=${artifact.sizeBytes}\n`,
    'utf8',
  );
}

const RAW_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
/** DER SubjectPublicKeyInfo prefix for an Ed25519 key (OID 1.3.101.112). */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function decodeBase64(value: string, bytes: number): Buffer | null {
  if (!BASE64.test(value)) return null;
  const decoded = Buffer.from(value, 'base64');
  return decoded.length === bytes && decoded.toString('base64') === value ? decoded : null;
}

/** The raw 32-byte key from base64, or null when it is not one. */
export function decodeEd25519PublicKey(base64: string): Buffer | null {
  return decodeBase64(base64, RAW_KEY_BYTES);
}

/**
 * The raw 32-byte key from what an operator pastes: base64 of the raw key,
 * or a PEM SubjectPublicKeyInfo (`openssl pkey -pubout`, `lunanexa
 * signing-key generate`). Null when it is neither or not an Ed25519 key.
 */
export function parseEd25519PublicKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('-----BEGIN')) return decodeEd25519PublicKey(trimmed);
  try {
    const key = createPublicKey({ key: trimmed, format: 'pem' });
    if (key.asymmetricKeyType !== 'ed25519') return null;
    const der = key.export({ format: 'der', type: 'spki' });
    return der.length === ED25519_SPKI_PREFIX.length + RAW_KEY_BYTES
      ? der.subarray(ED25519_SPKI_PREFIX.length)
      : null;
  } catch {
    return null;
  }
}

/** `ed25519:` + 32 hex digits of sha256(raw public key). */
export function signingKeyFingerprint(rawPublicKey: Buffer): string {
  return `ed25519:${createHash('sha256').update(rawPublicKey).digest('hex').slice(0, 32)}`;
}

/** A node:crypto key object for a raw Ed25519 public key. */
export function ed25519PublicKeyObject(rawPublicKey: Buffer): KeyObject {
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, rawPublicKey]),
    format: 'der',
    type: 'spki',
  });
}

const invalid = (reason: string): ArtifactSignatureDecision => ({
  ok: false,
  code: 'SIGNATURE_INVALID',
  reason,
});

/**
 * The signature gate. A signed version must verify against a trusted,
 * unrevoked key whose fingerprint is the signature's keyId — otherwise
 * SIGNATURE_INVALID, whatever the unsigned policy says (a bad signature is
 * evidence of tampering, not an absence of evidence). An unsigned version
 * passes unless `unsignedAllowed` is false (UNSIGNED_VERSION_NOT_ALLOWED).
 */
export function decideArtifactSignature(input: {
  readonly ref: string;
  readonly artifact: SignedArtifactFacts;
  readonly signature: ArtifactSignatureClaim | null;
  readonly trustedKeys: readonly TrustedSigningKey[];
  readonly unsignedAllowed: boolean;
}): ArtifactSignatureDecision {
  const { ref, signature } = input;
  if (signature === null) {
    return input.unsignedAllowed
      ? { ok: true, signed: false, keyId: null }
      : {
          ok: false,
          code: 'UNSIGNED_VERSION_NOT_ALLOWED',
          reason: `${ref}: has no provenance signature and unsigned versions are not allowed here`,
        };
  }
  if (signature.algorithm !== 'ed25519') {
    return invalid(`${ref}: signature algorithm ${signature.algorithm} is not supported (ed25519)`);
  }
  const key = input.trustedKeys.find((candidate) => candidate.keyId === signature.keyId);
  if (key === undefined) return invalid(`${ref}: signing key ${signature.keyId} is not a trusted key`);
  if (key.revoked) return invalid(`${ref}: signing key ${signature.keyId} was revoked`);
  const raw = decodeEd25519PublicKey(key.publicKey);
  if (raw === null || signingKeyFingerprint(raw) !== key.keyId) {
    return invalid(`${ref}: trusted key ${signature.keyId} is malformed or does not match its fingerprint`);
  }
  const value = decodeBase64(signature.value, SIGNATURE_BYTES);
  if (value === null) return invalid(`${ref}: signature is not a base64 64-byte Ed25519 signature`);
  let verified: boolean;
  try {
    verified = verifySignature(
      null,
      artifactSigningStatement(input.artifact),
      ed25519PublicKeyObject(raw),
      value,
    );
  } catch {
    verified = false;
  }
  if (!verified) {
    return invalid(
      `${ref}: signature by ${signature.keyId} does not verify over digest ${input.artifact.digest} and size ${input.artifact.sizeBytes}`,
    );
  }
  return { ok: true, signed: true, keyId: key.keyId };
}
