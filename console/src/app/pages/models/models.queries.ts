import {
  ConsoleApproveModelVersionDocument,
  ConsoleCreateModelDocument,
  ConsoleCreateModelVersionDocument,
  ConsoleDeprecateModelVersionDocument,
  ConsoleEvaluationChoicesDocument,
  ConsoleEvaluationRunDocument,
  ConsoleModelVersionDocument,
  ConsoleModelsDocument,
  ConsoleReinstateModelVersionDocument,
  ConsoleRetireModelVersionDocument,
  ConsoleStartEvaluationDocument,
  ConsoleVerifyModelVersionDocument,
  ConsoleVersionChoicesDocument,
  type ConsoleEvaluationChoicesQuery,
  type ConsoleModelVersionQuery,
  type ConsoleModelsQuery,
  type ConsoleStartEvaluationMutation,
  type ConsoleVersionChoicesQuery,
} from '@lunanexa/sdk/generated/operations';

/*
 * The model registry (apps/api/src/registry; libs/sdk/graphql/console/models.graphql):
 * models, their digest-pinned versions with license, runtime, requirements,
 * verification and evaluation, and the evaluation runs behind the latest
 * summary. Result types are generated from each selection, as in the other views.
 */

export type Model = ConsoleModelsQuery['models'][number];
/** A version as the model list shows it. */
export type VersionSummary = Model['versions'][number];
export type ModelVersionDetail = NonNullable<ConsoleModelVersionQuery['modelVersion']>;
export type Artifact = ModelVersionDetail['artifact'];
export type HardwareRequirements = ModelVersionDetail['requirements'];
export type Verification = NonNullable<ModelVersionDetail['verification']>;
export type EvaluationSummary = NonNullable<ModelVersionDetail['evaluation']>;
export type LicenseSummary = ModelVersionDetail['license'];
export type EvaluationRun = ConsoleModelVersionQuery['evaluationRuns'][number];
/** Which aliases serve a version (current revision) or are moving to it (rollout in progress). */
export type AliasUse = ConsoleModelVersionQuery['aliases'][number];
/** A deployment an evaluation may run against: one of the version's, with its readiness. */
export type CandidateDeployment = ConsoleEvaluationChoicesQuery['deployments'][number];
export type EvaluationSuiteChoice = ConsoleEvaluationChoicesQuery['evaluationSuites'][number];
export type BenchmarkProfileChoice = ConsoleEvaluationChoicesQuery['benchmarkProfiles'][number];
export type RuntimeSummary = ConsoleVersionChoicesQuery['runtimes'][number];
export type EvaluationOperation = ConsoleStartEvaluationMutation['startEvaluation'];

export const MODELS = ConsoleModelsDocument;
/** One version with its evaluation runs and the aliases that serve it. */
export const MODEL_VERSION = ConsoleModelVersionDocument;
export const EVALUATION_RUN = ConsoleEvaluationRunDocument;
/** The evaluate dialog's choices: deployments to run against, suites and profiles. */
export const EVALUATION_CHOICES = ConsoleEvaluationChoicesDocument;
/** The create-version dialog's choices. */
export const VERSION_CHOICES = ConsoleVersionChoicesDocument;
export const START_EVALUATION = ConsoleStartEvaluationDocument;
export const CREATE_MODEL = ConsoleCreateModelDocument;
export const CREATE_MODEL_VERSION = ConsoleCreateModelVersionDocument;
export const VERIFY_MODEL_VERSION = ConsoleVerifyModelVersionDocument;
export const APPROVE_MODEL_VERSION = ConsoleApproveModelVersionDocument;
export const DEPRECATE_MODEL_VERSION = ConsoleDeprecateModelVersionDocument;
export const REINSTATE_MODEL_VERSION = ConsoleReinstateModelVersionDocument;
export const RETIRE_MODEL_VERSION = ConsoleRetireModelVersionDocument;
