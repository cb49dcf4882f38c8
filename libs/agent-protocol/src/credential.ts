import { sign, verify, type KeyObject } from 'node:crypto';
import {
  canonicalJson,
  ErrorCode,
  IsoTimestampSchema,
  LunaNexaError,
  NameSchema,
  OpaqueIdSchema,
} from '@lunanexa/contracts';
import { z } from 'zod';
import { SIGNATURE_ALGORITHM, SIGNATURE_VALUE_PATTERN } from './protocol';

/**
 * A node credential: the controller's signed statement that key `keyId`
 * speaks for node `nodeId` until `expiresAt`. EnrollNode issues the first,
 * RotateNodeCredential the next (a higher serial); the agent keeps the newest
 * and shows its serial in every heartbeat, so the controller can see which
 * nodes hold which credential.
 */
export const NodeCredentialDocumentSchema = z
  .object({
    nodeId: OpaqueIdSchema,
    nodeName: NameSchema,
    /** The node key this credential binds (ed25519KeyId of the node's public key). */
    keyId: OpaqueIdSchema,
    serial: z.int().positive(),
    issuedAt: IsoTimestampSchema,
    expiresAt: IsoTimestampSchema,
    /** The controller key that signed it. */
    issuer: OpaqueIdSchema,
  })
  .strict()
  .refine((doc) => Date.parse(doc.expiresAt) > Date.parse(doc.issuedAt), {
    path: ['expiresAt'],
    message: 'must be after issuedAt',
  });
export type NodeCredentialDocument = z.infer<typeof NodeCredentialDocumentSchema>;

export const NodeCredentialSchema = z
  .object({
    document: NodeCredentialDocumentSchema,
    alg: z.literal(SIGNATURE_ALGORITHM),
    signature: z.string().regex(SIGNATURE_VALUE_PATTERN),
  })
  .strict();
export type NodeCredential = z.infer<typeof NodeCredentialSchema>;

function credentialInput(document: NodeCredentialDocument): Buffer {
  return Buffer.from(`lunanexa-node-credential-v1\n${canonicalJson(document)}`, 'utf8');
}

export function signNodeCredential(
  controllerKey: KeyObject,
  document: NodeCredentialDocument,
): NodeCredential {
  const parsed = NodeCredentialDocumentSchema.parse(document);
  return {
    document: parsed,
    alg: SIGNATURE_ALGORITHM,
    signature: sign(null, credentialInput(parsed), controllerKey).toString('base64url'),
  };
}

/**
 * Verifies a credential against the controller key it names; SIGNATURE_INVALID
 * for a bad signature or another issuer, LEASE_EXPIRED once it has expired.
 */
export function verifyNodeCredential(
  controllerKeys: ReadonlyMap<string, KeyObject>,
  credential: unknown,
  now: Date,
): NodeCredential {
  const parsed = NodeCredentialSchema.safeParse(credential);
  if (!parsed.success) throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'not a node credential');
  const key = controllerKeys.get(parsed.data.document.issuer);
  if (key === undefined) {
    throw new LunaNexaError(
      ErrorCode.SIGNATURE_INVALID,
      `credential issuer ${parsed.data.document.issuer} is not trusted`,
    );
  }
  const valid = verify(
    null,
    credentialInput(parsed.data.document),
    key,
    Buffer.from(parsed.data.signature, 'base64url'),
  );
  if (!valid) throw new LunaNexaError(ErrorCode.SIGNATURE_INVALID, 'credential signature does not verify');
  if (Date.parse(parsed.data.document.expiresAt) <= now.getTime()) {
    throw new LunaNexaError(
      ErrorCode.LEASE_EXPIRED,
      `credential expired at ${parsed.data.document.expiresAt}`,
    );
  }
  return parsed.data;
}

/** What a rotated-to key signs to prove the agent holds it: bound to the node and the key it replaces. */
export function rotationProofInput(nodeId: string, currentKeyId: string, nextKeyId: string): Buffer {
  return Buffer.from(`lunanexa-node-key-rotation-v1\n${nodeId}\n${currentKeyId}\n${nextKeyId}`, 'utf8');
}
