/**
 * Artifact stores: reading digest-pinned model artifacts from S3-compatible
 * object stores, OCI distribution registries, https:// URLs and local files,
 * verifying their sha256 as the bytes stream past; downloads resume.
 */
export * from './config';
export * from './uri';
export * from './secret-ref';
export { StoreError } from './http';
export {
  putS3Object,
  DEFAULT_S3_PART_SIZE_BYTES,
  type PublishedArtifact,
  type PutS3ObjectOptions,
  type S3ObjectRef,
} from './s3';
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
