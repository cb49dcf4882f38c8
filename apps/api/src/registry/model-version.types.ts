import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import {
  Artifact,
  ArtifactVerification,
  CompatibleHardware,
  ModelVersionEvaluation,
  RuntimeEnvVar,
} from './registry.types';

@ObjectType({
  description:
    'A registered, digest-pinned model version: artifact, hardware requirements, lifecycle state, verification and evaluation (license and runtime resolve from the registry).',
})
export class ModelVersion {
  @Field(() => ID)
  id!: string;

  @Field()
  ref!: string;

  @Field()
  model!: string;

  @Field()
  version!: string;

  @Field()
  runtimeKind!: string;

  @Field()
  artifactDigest!: string;

  @Field({ description: 'Lifecycle state (contracts MODEL_VERSION_STATES).' })
  state!: string;

  @Field(() => String, { nullable: true })
  stateReason!: string | null;

  @Field(() => [String], { description: 'Lifecycle events the version accepts in its state.' })
  allowedEvents!: string[];

  @Field(() => Artifact)
  artifact!: Artifact;

  @Field(() => CompatibleHardware, { description: 'What one replica needs.' })
  requirements!: CompatibleHardware;

  @Field(() => ArtifactVerification, { nullable: true })
  verification!: ArtifactVerification | null;

  @Field(() => ModelVersionEvaluation, { nullable: true })
  evaluation!: ModelVersionEvaluation | null;

  @Field(() => Int, { nullable: true })
  contextLength!: number | null;

  @Field(() => Float, { nullable: true })
  parameterCount!: number | null;

  @Field(() => [RuntimeEnvVar])
  runtimeEnv!: RuntimeEnvVar[];

  @Field()
  licenseId!: string;

  @Field()
  runtimeId!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType()
export class RegisterModelVersionInput {
  @Allow()
  @Field({ description: 'Model name (a DNS label).' })
  model!: string;

  @Allow()
  @Field({ description: 'Version label, unique per model.' })
  version!: string;

  @Allow()
  @Field({
    defaultValue: 'fake',
    description: 'Runtime kind: fake (deterministic test runtime) in this release.',
  })
  runtime!: string;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Fake runtime: time to first token in ms.' })
  ttftMs?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Fake runtime: tokens per second.' })
  tokensPerSecond?: number | null;

  @Allow()
  @Field(() => Float, {
    nullable: true,
    description:
      'Fake runtime: share of inference requests answered with an injected 500 (0-1, spread evenly and predictably) — for exercising canary analysis and rollback.',
  })
  errorRate?: number | null;
}
