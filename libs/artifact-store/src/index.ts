/**
 * Artifact stores: reading digest-pinned model artifacts from S3-compatible
 * object stores and OCI distribution registries, verifying their sha256 as
 * the bytes stream past.
 */
export * from './config';
export * from './uri';
export { signS3Request, uriEncode, encodeS3Path, EMPTY_PAYLOAD_SHA256, UNSIGNED_PAYLOAD } from './sigv4';
export type { SignableRequest, SigningScope, SignedHeaders } from './sigv4';
export { StoreError } from './http';
export { putS3Object, type PublishedArtifact, type PutS3ObjectOptions, type S3ObjectRef } from './s3';
export {
  pushOciBlob,
  pushOciArtifact,
  parseAuthenticateHeader,
  registryBaseUrl,
  LUNANEXA_MODEL_ARTIFACT_TYPE,
  LUNANEXA_MODEL_LAYER_MEDIA_TYPE,
  type OciTarget,
  type PushOciOptions,
} from './oci';
export * from './verify';
export * from './synthetic';
