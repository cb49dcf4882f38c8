import { z } from 'zod';
import { ByteCountSchema, DigestSchema, IsoTimestampSchema, OpaqueIdSchema } from './common';

/**
 * A model artifact: immutable bytes pinned by digest. The digest, not the URI,
 * is the identity — the agent verifies it after download and refuses to
 * start a runtime on a mismatch (DIGEST_MISMATCH).
 */

/** Where bytes can come from. Plain http is excluded: private stores use TLS or a local path. */
export const ARTIFACT_URI_PATTERN = /^(https|s3|file|oci|hf):\/\/[^\s]+$/;
export const ArtifactUriSchema = z
  .string()
  .max(2048)
  .regex(ARTIFACT_URI_PATTERN, 'must be an https://, s3://, file://, oci:// or hf:// URI');

export const ARTIFACT_FORMATS = ['safetensors', 'gguf', 'onnx', 'tensorrt-engine', 'fake'] as const;
export const ArtifactFormatSchema = z.enum(ARTIFACT_FORMATS);
export type ArtifactFormat = z.infer<typeof ArtifactFormatSchema>;

export const SIGNATURE_ALGORITHMS = ['ed25519'] as const;

/** A detached signature over the artifact digest by a key the registry trusts. */
export const ArtifactSignatureSchema = z
  .object({
    algorithm: z.enum(SIGNATURE_ALGORITHMS),
    keyId: OpaqueIdSchema,
    /** Base64 (standard alphabet, padded) of the 64-byte Ed25519 signature. */
    value: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, 'must be a base64 Ed25519 signature (88 characters)'),
  })
  .strict();
export type ArtifactSignature = z.infer<typeof ArtifactSignatureSchema>;

export const ArtifactProvenanceSchema = z
  .object({
    /** Where the weights originally came from, e.g. an upstream repository URI and revision. */
    source: z.string().min(1).max(2048),
    /** Opaque id of the operator or service that registered it. */
    uploader: OpaqueIdSchema,
    uploadedAt: IsoTimestampSchema,
    signature: ArtifactSignatureSchema.optional(),
  })
  .strict();
export type ArtifactProvenance = z.infer<typeof ArtifactProvenanceSchema>;

export const ArtifactSchema = z
  .object({
    uri: ArtifactUriSchema,
    digest: DigestSchema,
    sizeBytes: ByteCountSchema,
    format: ArtifactFormatSchema,
    provenance: ArtifactProvenanceSchema,
  })
  .strict();
export type Artifact = z.infer<typeof ArtifactSchema>;
