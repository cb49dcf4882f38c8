import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';

/**
 * GraphQL shapes of the model registry: models, licenses, runtimes and the
 * records a model version carries (artifact, hardware requirements,
 * verification, evaluation). Enumerated values (formats, kinds, states,
 * architectures, data classes) are strings holding the names in
 * libs/contracts, so a newer API can add one without breaking older clients;
 * inputs are validated in the service against the contracts' zod schemas
 * (`@Allow` only lets the fields past the global whitelist pipe). Byte counts
 * are Float: GraphQL Int is 32-bit and a model is larger than 2 GiB.
 */

@ObjectType({ description: 'A model: a name operators recognise; its versions are the deployable records.' })
export class Model {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field()
  displayName!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType()
export class CreateModelInput {
  @Allow()
  @Field({ description: 'A DNS label, unique.' })
  name!: string;

  @Allow()
  @Field({ description: 'What operators read, 1-256 characters.' })
  displayName!: string;

  @Allow()
  @Field(() => String, { nullable: true, description: 'At most 4096 characters.' })
  description?: string | null;
}

@ObjectType({
  description: 'The review of a license: nothing rolls out under a license until it is Approved.',
})
export class License {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Registry name (a DNS label) that model versions refer to.' })
  name!: string;

  @Field({ description: 'spdx or custom.' })
  kind!: string;

  @Field(() => String, { nullable: true, description: 'SPDX id, for kind spdx.' })
  spdxId!: string | null;

  @Field(() => String, { nullable: true, description: 'Name of the custom terms, for kind custom.' })
  customName!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Where the custom terms document is, for kind custom.',
  })
  termsUri!: string | null;

  @Field(() => String, { nullable: true, description: 'sha256 of the custom terms document.' })
  termsDigest!: string | null;

  @Field({ description: 'May outputs be used commercially (as reviewed, not inferred).' })
  commercialUse!: boolean;

  @Field(() => [String], { description: 'Data classes a workload under this license may carry.' })
  allowedDataClasses!: string[];

  @Field(() => String, { nullable: true, description: 'Attribution text the license requires.' })
  attribution!: string | null;

  @Field({ description: 'PendingReview, Approved or Rejected.' })
  approvalState!: string;

  @Field(() => String, { nullable: true, description: 'Who decided the review; null while PendingReview.' })
  decidedBy!: string | null;

  @Field(() => String, { nullable: true })
  decidedAt!: string | null;

  @Field(() => String, { nullable: true, description: 'The reviewer’s note.' })
  note!: string | null;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType({
  description:
    'kind spdx takes spdxId; kind custom takes customName, termsUri and termsDigest. A new license is PendingReview.',
})
export class CreateLicenseInput {
  @Allow()
  @Field({ description: 'Registry name, a DNS label, e.g. apache-2-0 or llama3-1-community.' })
  name!: string;

  @Allow()
  @Field({ description: 'spdx or custom.' })
  kind!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  spdxId?: string | null;

  @Allow()
  @Field(() => String, { nullable: true })
  customName?: string | null;

  @Allow()
  @Field(() => String, { nullable: true })
  termsUri?: string | null;

  @Allow()
  @Field(() => String, { nullable: true })
  termsDigest?: string | null;

  @Allow()
  @Field()
  commercialUse!: boolean;

  @Allow()
  @Field(() => [String], { description: 'public, internal, confidential, restricted.' })
  allowedDataClasses!: string[];

  @Allow()
  @Field(() => String, { nullable: true })
  attribution?: string | null;
}

@ObjectType({ description: 'What one replica needs (model version) or what a runtime can run on.' })
export class CompatibleHardware {
  @Field(() => [String], { description: 'arm64, amd64.' })
  architectures!: string[];

  @Field(() => [String], { description: 'unified, discrete.' })
  memoryModels!: string[];

  @Field()
  minComputeCapability!: string;

  @Field(() => String, { nullable: true })
  maxComputeCapability!: string | null;

  @Field(() => String, { nullable: true })
  minCudaVersion!: string | null;

  @Field(() => Int)
  gpusPerReplica!: number;

  @Field(() => Float, { nullable: true })
  minMemoryBytesPerReplica!: number | null;
}

@InputType()
export class CompatibleHardwareInput {
  @Allow()
  @Field(() => [String])
  architectures!: string[];

  @Allow()
  @Field(() => [String])
  memoryModels!: string[];

  @Allow()
  @Field({ description: 'major.minor, e.g. 8.0.' })
  minComputeCapability!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  maxComputeCapability?: string | null;

  @Allow()
  @Field(() => String, { nullable: true, description: 'major.minor; null when no CUDA dependency.' })
  minCudaVersion?: string | null;

  @Allow()
  @Field(() => Int)
  gpusPerReplica!: number;

  @Allow()
  @Field(() => Float, {
    nullable: true,
    description: 'Weights + KV cache + runtime overhead of one replica.',
  })
  minMemoryBytesPerReplica?: number | null;
}

@ObjectType()
export class RuntimePackaging {
  @Field({ description: 'container or binary.' })
  type!: string;

  @Field(() => String, { nullable: true, description: 'Image repository without tag (containers).' })
  image!: string | null;

  @Field()
  digest!: string;
}

@InputType()
export class RuntimePackagingInput {
  @Allow()
  @Field({ description: 'container or binary.' })
  type!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  image?: string | null;

  @Allow()
  @Field()
  digest!: string;
}

@ObjectType({ description: 'How the agent execs the runtime: no shell, no command line string.' })
export class LaunchSpec {
  @Field()
  executable!: string;

  @Field(() => [String])
  args!: string[];

  @Field(() => [String], { description: 'Environment variables a model version may set for this runtime.' })
  envAllowlist!: string[];

  @Field(() => Int, { nullable: true })
  containerPort!: number | null;
}

@InputType()
export class LaunchSpecInput {
  @Allow()
  @Field()
  executable!: string;

  @Allow()
  @Field(() => [String])
  args!: string[];

  @Allow()
  @Field(() => [String], { defaultValue: [] })
  envAllowlist!: string[];

  @Allow()
  @Field(() => Int, { nullable: true })
  containerPort?: number | null;
}

@ObjectType()
export class RuntimeHealthCheck {
  @Field()
  path!: string;

  @Field(() => Int)
  startupTimeoutMs!: number;

  @Field(() => Int)
  intervalMs!: number;
}

@InputType()
export class RuntimeHealthCheckInput {
  @Allow()
  @Field()
  path!: string;

  @Allow()
  @Field(() => Int)
  startupTimeoutMs!: number;

  @Allow()
  @Field(() => Int)
  intervalMs!: number;
}

@ObjectType({ description: 'A runtime registry record and whether it is on the runtime allowlist.' })
export class Runtime {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field()
  version!: string;

  @Field({ description: 'fake or openai-compatible.' })
  kind!: string;

  @Field({ description: 'On the runtime allowlist: only versions on an allowed runtime roll out.' })
  allowed!: boolean;

  @Field(() => RuntimePackaging)
  packaging!: RuntimePackaging;

  @Field(() => LaunchSpec)
  launch!: LaunchSpec;

  @Field(() => RuntimeHealthCheck)
  health!: RuntimeHealthCheck;

  @Field(() => CompatibleHardware)
  supportedHardware!: CompatibleHardware;

  @Field({
    description:
      'Which metric names its /metrics page uses: vllm, sglang, llamacpp or none (not scraped). Derived for runtimes registered without one.',
  })
  metricsFormat!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType({ description: 'A new runtime; its id is runtime-<name>-<version>. It starts off the allowlist.' })
export class RegisterRuntimeInput {
  @Allow()
  @Field({ description: 'A DNS label, e.g. vllm.' })
  name!: string;

  @Allow()
  @Field()
  version!: string;

  @Allow()
  @Field({ description: 'fake or openai-compatible.' })
  kind!: string;

  @Allow()
  @Field(() => RuntimePackagingInput)
  packaging!: RuntimePackagingInput;

  @Allow()
  @Field(() => LaunchSpecInput)
  launch!: LaunchSpecInput;

  @Allow()
  @Field(() => RuntimeHealthCheckInput)
  health!: RuntimeHealthCheckInput;

  @Allow()
  @Field(() => CompatibleHardwareInput)
  supportedHardware!: CompatibleHardwareInput;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description:
      'vllm, sglang, llamacpp or none; derived from kind and name when omitted (fake and vllm runtimes: vllm).',
  })
  metricsFormat?: string | null;
}

@ObjectType()
export class ArtifactSignature {
  @Field({ description: 'ed25519.' })
  algorithm!: string;

  @Field()
  keyId!: string;

  @Field({ description: 'Base64 of the detached signature over the digest.' })
  value!: string;
}

@InputType()
export class ArtifactSignatureInput {
  @Allow()
  @Field()
  algorithm!: string;

  @Allow()
  @Field()
  keyId!: string;

  @Allow()
  @Field()
  value!: string;
}

@ObjectType()
export class ArtifactProvenance {
  @Field({ description: 'Where the weights came from, e.g. an upstream repository and revision.' })
  source!: string;

  @Field({ description: 'Who registered them (the caller of createModelVersion).' })
  uploader!: string;

  @Field()
  uploadedAt!: string;

  @Field(() => ArtifactSignature, { nullable: true })
  signature!: ArtifactSignature | null;
}

@ObjectType({ description: 'Immutable bytes pinned by digest: the digest, not the URI, is the identity.' })
export class Artifact {
  @Field()
  uri!: string;

  @Field()
  digest!: string;

  @Field(() => Float)
  sizeBytes!: number;

  @Field({ description: 'safetensors, gguf, onnx, tensorrt-engine or fake.' })
  format!: string;

  @Field(() => ArtifactProvenance)
  provenance!: ArtifactProvenance;
}

@InputType()
export class ArtifactInput {
  @Allow()
  @Field({ description: 'https://, s3://, file://, oci:// or hf:// URI.' })
  uri!: string;

  @Allow()
  @Field({ description: 'sha256:<64 lower-case hex digits>.' })
  digest!: string;

  @Allow()
  @Field(() => Float)
  sizeBytes!: number;

  @Allow()
  @Field()
  format!: string;

  @Allow()
  @Field({ description: 'Provenance: where the weights came from.' })
  source!: string;

  @Allow()
  @Field(() => ArtifactSignatureInput, { nullable: true })
  signature?: ArtifactSignatureInput | null;
}

@ObjectType({ description: 'The last check of the artifact’s bytes in its store against the digest.' })
export class ArtifactVerification {
  @Field()
  ok!: boolean;

  @Field(() => String, { nullable: true, description: 'What the stored bytes hashed to.' })
  digest!: string | null;

  @Field(() => Float, { nullable: true })
  sizeBytes!: number | null;

  @Field({ description: 's3, oci, file or synthetic (fake-runtime weights).' })
  store!: string;

  @Field()
  verifiedAt!: string;

  @Field(() => String, { nullable: true, description: 'Typed reason when not ok, e.g. DIGEST_MISMATCH.' })
  code!: string | null;

  @Field(() => String, { nullable: true })
  message!: string | null;
}

@ObjectType()
export class EvaluationScore {
  @Field()
  name!: string;

  @Field(() => Float)
  value!: number;
}

@ObjectType({ description: 'The latest evaluation of a model version.' })
export class ModelVersionEvaluation {
  @Field()
  runId!: string;

  @Field()
  suite!: string;

  @Field()
  passed!: boolean;

  @Field(() => [EvaluationScore])
  scores!: EvaluationScore[];

  @Field()
  evaluatedAt!: string;
}

@ObjectType({ description: 'An environment variable a model version passes to its runtime.' })
export class RuntimeEnvVar {
  @Field()
  name!: string;

  @Field()
  value!: string;
}

@InputType()
export class RuntimeEnvVarInput {
  @Allow()
  @Field({ description: 'Must be on the runtime’s envAllowlist.' })
  name!: string;

  @Allow()
  @Field()
  value!: string;
}

@InputType()
export class CreateModelVersionInput {
  @Allow()
  @Field({ description: 'Name of an existing model (createModel).' })
  model!: string;

  @Allow()
  @Field({ description: 'Version label, unique per model: 1-64 of [A-Za-z0-9._-].' })
  version!: string;

  @Allow()
  @Field(() => ArtifactInput)
  artifact!: ArtifactInput;

  @Allow()
  @Field({ description: 'Registry name of the license.' })
  license!: string;

  @Allow()
  @Field({ description: 'Runtime id (registerRuntime).' })
  runtime!: string;

  @Allow()
  @Field(() => CompatibleHardwareInput, { description: 'What one replica needs.' })
  requirements!: CompatibleHardwareInput;

  @Allow()
  @Field(() => Int, { nullable: true })
  contextLength?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  parameterCount?: number | null;

  @Allow()
  @Field(() => [RuntimeEnvVarInput], { nullable: true })
  runtimeEnv?: RuntimeEnvVarInput[] | null;
}
