import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

/*
 * The model registry (apps/api/src/registry): models, their digest-pinned
 * versions with license, runtime, requirements, verification and evaluation,
 * and the evaluation runs behind the latest summary. Result types are `Pick`s
 * of the generated schema types, as in the other views.
 */

export type LicenseSummary = Pick<
  Schema.License,
  | 'id'
  | 'name'
  | 'kind'
  | 'spdxId'
  | 'customName'
  | 'termsUri'
  | 'commercialUse'
  | 'allowedDataClasses'
  | 'approvalState'
  | 'decidedBy'
  | 'decidedAt'
  | 'note'
>;

export type RuntimeSummary = Pick<Schema.Runtime, 'id' | 'name' | 'version' | 'kind' | 'allowed'>;

export type HardwareRequirements = Pick<
  Schema.CompatibleHardware,
  | 'architectures'
  | 'memoryModels'
  | 'minComputeCapability'
  | 'maxComputeCapability'
  | 'minCudaVersion'
  | 'gpusPerReplica'
  | 'minMemoryBytesPerReplica'
>;

export interface Artifact extends Pick<Schema.Artifact, 'uri' | 'digest' | 'sizeBytes' | 'format'> {
  readonly provenance: Pick<Schema.ArtifactProvenance, 'source' | 'uploader' | 'uploadedAt'> & {
    readonly signature: Pick<Schema.ArtifactSignature, 'algorithm' | 'keyId'> | null;
  };
}

export type Verification = Pick<
  Schema.ArtifactVerification,
  'ok' | 'digest' | 'sizeBytes' | 'store' | 'verifiedAt' | 'code' | 'message'
>;

export interface EvaluationSummary extends Pick<
  Schema.ModelVersionEvaluation,
  'runId' | 'suite' | 'passed' | 'evaluatedAt'
> {
  readonly scores: readonly Pick<Schema.EvaluationScore, 'name' | 'value'>[];
}

/** A version as the model list shows it. */
export interface VersionSummary extends Pick<
  Schema.ModelVersion,
  'id' | 'ref' | 'model' | 'version' | 'runtimeKind' | 'state' | 'stateReason' | 'createdAt'
> {
  readonly license: Pick<Schema.License, 'name' | 'approvalState'>;
  readonly evaluation: Pick<Schema.ModelVersionEvaluation, 'passed' | 'suite'> | null;
}

export interface Model extends Pick<
  Schema.Model,
  'id' | 'name' | 'displayName' | 'description' | 'createdAt'
> {
  readonly versions: readonly VersionSummary[];
}

export interface ModelVersionDetail extends Pick<
  Schema.ModelVersion,
  | 'id'
  | 'ref'
  | 'model'
  | 'version'
  | 'runtimeKind'
  | 'state'
  | 'stateReason'
  | 'allowedEvents'
  | 'contextLength'
  | 'parameterCount'
  | 'createdBy'
  | 'createdAt'
  | 'updatedAt'
> {
  readonly artifact: Artifact;
  readonly requirements: HardwareRequirements;
  readonly verification: Verification | null;
  readonly evaluation: EvaluationSummary | null;
  readonly license: LicenseSummary;
  readonly runtime: RuntimeSummary & { readonly supportedHardware: HardwareRequirements };
}

export interface EvaluationRun extends Pick<
  Schema.EvaluationRun,
  | 'id'
  | 'modelRef'
  | 'deploymentId'
  | 'suite'
  | 'profile'
  | 'state'
  | 'passed'
  | 'reasons'
  | 'errorCode'
  | 'workflowId'
  | 'temporalUiUrl'
  | 'createdBy'
  | 'createdAt'
  | 'finishedAt'
> {
  readonly scores: Pick<
    Schema.EvaluationScores,
    'passRate' | 'passedCases' | 'totalCases' | 'passThreshold'
  > | null;
  readonly metrics:
    | (Pick<Schema.BenchmarkMetrics, 'requests' | 'errorRate' | 'tokensPerSecond'> & {
        readonly ttftMs: Pick<Schema.LatencyPercentiles, 'p50' | 'p95' | 'p99'> | null;
      })
    | null;
}

/** Which aliases serve a version (current revision) or are moving to it (rollout in progress). */
export type AliasUse = Pick<Schema.Alias, 'id' | 'name' | 'currentRevision' | 'canaryWeight'> & {
  readonly current: Pick<Schema.AliasRevision, 'revision' | 'modelRef'> | null;
  readonly activeRollout: Pick<Schema.Rollout, 'id' | 'modelRef' | 'state'> | null;
};

/** A deployment an evaluation may run against: one of the version's, with its readiness. */
export type CandidateDeployment = Pick<
  Schema.Deployment,
  'id' | 'name' | 'modelRef' | 'state' | 'readyReplicas' | 'desiredReplicas'
>;

export type EvaluationSuiteChoice = Pick<
  Schema.EvaluationSuite,
  'id' | 'name' | 'caseCount' | 'passThreshold'
>;
export type BenchmarkProfileChoice = Pick<
  Schema.BenchmarkProfile,
  'id' | 'name' | 'concurrency' | 'durationSeconds' | 'requestCount'
>;

export interface EvaluationOperation extends Pick<
  Schema.EvaluationOperation,
  'runId' | 'workflowId' | 'temporalUiUrl' | 'correlationId'
> {
  readonly run: EvaluationRun | null;
}

const VERSION_SUMMARY_FIELDS = `
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  createdAt
  license { name approvalState }
  evaluation { passed suite }
`;

const HARDWARE_FIELDS = `
  architectures
  memoryModels
  minComputeCapability
  maxComputeCapability
  minCudaVersion
  gpusPerReplica
  minMemoryBytesPerReplica
`;

const VERSION_DETAIL_FIELDS = `
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance { source uploader uploadedAt signature { algorithm keyId } }
  }
  requirements { ${HARDWARE_FIELDS} }
  verification { ok digest sizeBytes store verifiedAt code message }
  evaluation { runId suite passed evaluatedAt scores { name value } }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime { id name version kind allowed supportedHardware { ${HARDWARE_FIELDS} } }
`;

const RUN_FIELDS = `
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  scores { passRate passedCases totalCases passThreshold }
  metrics { requests errorRate tokensPerSecond ttftMs { p50 p95 p99 } }
`;

const ALIAS_USE_FIELDS = `
  id
  name
  currentRevision
  canaryWeight
  current { revision modelRef }
  activeRollout { id modelRef state }
`;

export const MODELS = graphqlOperation<{ readonly models: readonly Model[] }>(`
  query ConsoleModels {
    models {
      id
      name
      displayName
      description
      createdAt
      versions { ${VERSION_SUMMARY_FIELDS} }
    }
  }
`);

/** One version with its evaluation runs and the aliases that serve it. */
export const MODEL_VERSION = graphqlOperation<
  {
    readonly modelVersion: ModelVersionDetail | null;
    readonly evaluationRuns: readonly EvaluationRun[];
    readonly aliases: readonly AliasUse[];
  },
  Readonly<Schema.QueryModelVersionArgs & { readonly limit: number }>
>(`
  query ConsoleModelVersion($ref: String!, $limit: Int) {
    modelVersion(ref: $ref) { ${VERSION_DETAIL_FIELDS} }
    evaluationRuns(modelVersion: $ref, limit: $limit) { ${RUN_FIELDS} }
    aliases { ${ALIAS_USE_FIELDS} }
  }
`);

export const EVALUATION_RUN = graphqlOperation<
  { readonly evaluationRun: EvaluationRun | null },
  Readonly<Schema.QueryEvaluationRunArgs>
>(`
  query ConsoleEvaluationRun($id: ID!) {
    evaluationRun(id: $id) { ${RUN_FIELDS} }
  }
`);

/** The evaluate dialog's choices: deployments to run against, suites and profiles. */
export const EVALUATION_CHOICES = graphqlOperation<{
  readonly deployments: readonly CandidateDeployment[];
  readonly evaluationSuites: readonly EvaluationSuiteChoice[];
  readonly benchmarkProfiles: readonly BenchmarkProfileChoice[];
}>(`
  query ConsoleEvaluationChoices {
    deployments { id name modelRef state readyReplicas desiredReplicas }
    evaluationSuites { id name caseCount passThreshold }
    benchmarkProfiles { id name concurrency durationSeconds requestCount }
  }
`);

/** The create-version dialog's choices. */
export const VERSION_CHOICES = graphqlOperation<{
  readonly models: readonly Pick<Schema.Model, 'id' | 'name'>[];
  readonly licenses: readonly Pick<Schema.License, 'id' | 'name' | 'approvalState' | 'allowedDataClasses'>[];
  readonly runtimes: readonly RuntimeSummary[];
}>(`
  query ConsoleVersionChoices {
    models { id name }
    licenses { id name approvalState allowedDataClasses }
    runtimes { id name version kind allowed }
  }
`);

export const START_EVALUATION = graphqlOperation<
  { readonly startEvaluation: EvaluationOperation },
  Readonly<Schema.MutationStartEvaluationArgs>
>(`
  mutation ConsoleStartEvaluation($input: StartEvaluationInput!) {
    startEvaluation(input: $input) {
      runId
      workflowId
      temporalUiUrl
      correlationId
      run { ${RUN_FIELDS} }
    }
  }
`);

export const CREATE_MODEL = graphqlOperation<
  { readonly createModel: Pick<Schema.Model, 'id' | 'name'> },
  Readonly<Schema.MutationCreateModelArgs>
>(`
  mutation ConsoleCreateModel($input: CreateModelInput!) {
    createModel(input: $input) { id name }
  }
`);

export const CREATE_MODEL_VERSION = graphqlOperation<
  { readonly createModelVersion: ModelVersionDetail },
  Readonly<Schema.MutationCreateModelVersionArgs>
>(`
  mutation ConsoleCreateModelVersion($input: CreateModelVersionInput!) {
    createModelVersion(input: $input) { ${VERSION_DETAIL_FIELDS} }
  }
`);

export const VERIFY_MODEL_VERSION = graphqlOperation<
  { readonly verifyModelVersion: ModelVersionDetail },
  Readonly<Schema.MutationVerifyModelVersionArgs>
>(`
  mutation ConsoleVerifyModelVersion($ref: String!) {
    verifyModelVersion(ref: $ref) { ${VERSION_DETAIL_FIELDS} }
  }
`);

export const APPROVE_MODEL_VERSION = graphqlOperation<
  { readonly approveModelVersion: ModelVersionDetail },
  Readonly<Schema.MutationApproveModelVersionArgs>
>(`
  mutation ConsoleApproveModelVersion($ref: String!, $note: String) {
    approveModelVersion(ref: $ref, note: $note) { ${VERSION_DETAIL_FIELDS} }
  }
`);

export const DEPRECATE_MODEL_VERSION = graphqlOperation<
  { readonly deprecateModelVersion: ModelVersionDetail },
  Readonly<Schema.MutationDeprecateModelVersionArgs>
>(`
  mutation ConsoleDeprecateModelVersion($ref: String!, $reason: String!) {
    deprecateModelVersion(ref: $ref, reason: $reason) { ${VERSION_DETAIL_FIELDS} }
  }
`);
