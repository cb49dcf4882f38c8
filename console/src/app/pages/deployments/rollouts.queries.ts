import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

/*
 * Aliases and rollouts (apps/api/src/rollouts). As in deployments.queries.ts,
 * result types are `Pick`s of the generated schema types naming exactly what
 * each selection asks for; rollout states, verdicts and revision reasons are
 * plain strings in the schema and shown as sent when this console does not
 * know them.
 */

export type AliasRevision = Pick<
  Schema.AliasRevision,
  | 'revision'
  | 'modelRef'
  | 'modelVersionId'
  | 'deploymentId'
  | 'deploymentName'
  | 'reason'
  | 'restoredFrom'
  | 'rolloutId'
  | 'createdBy'
  | 'createdAt'
>;

export type RolloutAnalysis = Pick<
  Schema.RolloutAnalysis,
  | 'step'
  | 'weight'
  | 'window'
  | 'verdict'
  | 'reasons'
  | 'canaryRequests'
  | 'canaryErrors'
  | 'canaryErrorRate'
  | 'canaryP95Ms'
  | 'stableRequests'
  | 'stableErrorRate'
  | 'stableP95Ms'
  | 'canaryEvaluationScore'
  | 'stableEvaluationScore'
>;

export type RolloutReceipt = Pick<
  Schema.RolloutReceipt,
  'seq' | 'action' | 'decision' | 'result' | 'evidenceJson' | 'hash' | 'occurredAt' | 'actor'
>;

/** What the alias list shows of a rollout in progress. */
export type RolloutSummary = Pick<
  Schema.Rollout,
  'id' | 'alias' | 'modelRef' | 'state' | 'currentStep' | 'currentWeight' | 'steps' | 'createdAt'
>;

export interface Rollout extends Pick<
  Schema.Rollout,
  | 'id'
  | 'alias'
  | 'modelRef'
  | 'baseRevision'
  | 'state'
  | 'stateReason'
  | 'refusalCode'
  | 'steps'
  | 'currentStep'
  | 'currentWeight'
  | 'analysisWindowSeconds'
  | 'samplesPerStep'
  | 'maxWindowsPerStep'
  | 'bakeSeconds'
  | 'replicas'
  | 'maxErrorRateIncrease'
  | 'maxP95LatencyRatio'
  | 'p95SlackMs'
  | 'maxEvaluationScoreDrop'
  | 'canaryDeploymentId'
  | 'workflowId'
  | 'temporalUiUrl'
  | 'createdBy'
  | 'createdAt'
  | 'updatedAt'
  | 'finishedAt'
> {
  readonly analyses: readonly RolloutAnalysis[];
  readonly receipts: readonly RolloutReceipt[];
}

export interface AliasSummary extends Pick<
  Schema.Alias,
  | 'id'
  | 'name'
  | 'description'
  | 'dataClass'
  | 'currentRevision'
  | 'canaryWeight'
  | 'canaryDeploymentId'
  | 'createdBy'
  | 'createdAt'
  | 'updatedAt'
> {
  readonly current: AliasRevision | null;
  readonly activeRollout: RolloutSummary | null;
}

export interface Alias extends AliasSummary {
  /** Newest first. */
  readonly revisions: readonly AliasRevision[];
}

export interface RolloutOperation extends Pick<
  Schema.RolloutOperation,
  'workflowId' | 'temporalUiUrl' | 'correlationId'
> {
  readonly rollout: Rollout;
}

/** What the start-rollout dialog offers as the version to roll out. */
export type RolloutCandidate = Pick<Schema.ModelVersion, 'id' | 'ref' | 'model' | 'version' | 'runtimeKind'>;

const REVISION_FIELDS = `
  revision
  modelRef
  modelVersionId
  deploymentId
  deploymentName
  reason
  restoredFrom
  rolloutId
  createdBy
  createdAt
`;

const ALIAS_SUMMARY_FIELDS = `
  id
  name
  description
  dataClass
  currentRevision
  canaryWeight
  canaryDeploymentId
  createdBy
  createdAt
  updatedAt
  current { ${REVISION_FIELDS} }
  activeRollout { id alias modelRef state currentStep currentWeight steps createdAt }
`;

const ROLLOUT_FIELDS = `
  id
  alias
  modelRef
  baseRevision
  state
  stateReason
  refusalCode
  steps
  currentStep
  currentWeight
  analysisWindowSeconds
  samplesPerStep
  maxWindowsPerStep
  bakeSeconds
  replicas
  maxErrorRateIncrease
  maxP95LatencyRatio
  p95SlackMs
  maxEvaluationScoreDrop
  canaryDeploymentId
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  updatedAt
  finishedAt
  analyses {
    step
    weight
    window
    verdict
    reasons
    canaryRequests
    canaryErrors
    canaryErrorRate
    canaryP95Ms
    stableRequests
    stableErrorRate
    stableP95Ms
    canaryEvaluationScore
    stableEvaluationScore
  }
  receipts { seq action decision result evidenceJson hash occurredAt actor }
`;

export const ALIASES = graphqlOperation<{ readonly aliases: readonly AliasSummary[] }>(`
  query ConsoleAliases {
    aliases { ${ALIAS_SUMMARY_FIELDS} }
  }
`);

/** One alias with its revision history and its recent rollouts, newest first. */
export const ALIAS = graphqlOperation<
  {
    readonly alias: Alias | null;
    readonly rollouts: readonly RolloutSummary[];
  },
  Readonly<Schema.QueryAliasArgs & { readonly limit: number }>
>(`
  query ConsoleAlias($alias: String!, $limit: Int) {
    alias(alias: $alias) { ${ALIAS_SUMMARY_FIELDS} revisions { ${REVISION_FIELDS} } }
    rollouts(alias: $alias, limit: $limit) { id alias modelRef state currentStep currentWeight steps createdAt }
  }
`);

/** A workflow Temporal reports closed without success (failed, timed out, terminated). */
export type WorkflowEnd = Pick<Schema.WorkflowAlert, 'workflowId' | 'status' | 'closedAt' | 'temporalUiUrl'>;

/**
 * One rollout, with the workflows that ended badly lately: a rollout workflow
 * that failed outside its own handling leaves its last recorded state (say
 * Deploying) behind, and only Temporal knows it has stopped.
 */
export const ROLLOUT = graphqlOperation<
  { readonly rollout: Rollout | null; readonly workflowAlerts: readonly WorkflowEnd[] },
  Readonly<Schema.QueryRolloutArgs>
>(`
  query ConsoleRollout($id: ID!) {
    rollout(id: $id) { ${ROLLOUT_FIELDS} }
    workflowAlerts(hours: 24, limit: 50) { workflowId status closedAt temporalUiUrl }
  }
`);

/** The start-rollout dialog's choices: aliases to move and versions to move them to. */
export const ROLLOUT_CHOICES = graphqlOperation<{
  readonly aliases: readonly Pick<
    AliasSummary,
    'id' | 'name' | 'dataClass' | 'currentRevision' | 'current' | 'activeRollout'
  >[];
  readonly modelVersions: readonly RolloutCandidate[];
}>(`
  query ConsoleRolloutChoices {
    aliases { id name dataClass currentRevision current { ${REVISION_FIELDS} } activeRollout { id alias modelRef state currentStep currentWeight steps createdAt } }
    modelVersions { id ref model version runtimeKind }
  }
`);

export const CREATE_ALIAS = graphqlOperation<
  { readonly createAlias: AliasSummary },
  Readonly<Schema.MutationCreateAliasArgs>
>(`
  mutation ConsoleCreateAlias($input: CreateAliasInput!) {
    createAlias(input: $input) { ${ALIAS_SUMMARY_FIELDS} }
  }
`);

export const START_ROLLOUT = graphqlOperation<
  { readonly startRollout: RolloutOperation },
  Readonly<Schema.MutationStartRolloutArgs>
>(`
  mutation ConsoleStartRollout($input: StartRolloutInput!) {
    startRollout(input: $input) {
      workflowId
      temporalUiUrl
      correlationId
      rollout { ${ROLLOUT_FIELDS} }
    }
  }
`);

export const SIGNAL_ROLLOUT = graphqlOperation<
  { readonly signalRollout: Rollout },
  Readonly<Schema.MutationSignalRolloutArgs>
>(`
  mutation ConsoleSignalRollout($rollout: ID!, $action: RolloutAction!, $reason: String) {
    signalRollout(rollout: $rollout, action: $action, reason: $reason) { ${ROLLOUT_FIELDS} }
  }
`);
