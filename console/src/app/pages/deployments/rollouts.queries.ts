import {
  ConsoleAliasDocument,
  ConsoleAliasesDocument,
  ConsoleCreateAliasDocument,
  ConsoleRolloutChoicesDocument,
  ConsoleRolloutDocument,
  ConsoleSignalRolloutDocument,
  ConsoleStartRolloutDocument,
  type ConsoleAliasQuery,
  type ConsoleAliasesQuery,
  type ConsoleRolloutChoicesQuery,
  type ConsoleRolloutQuery,
  type ConsoleStartRolloutMutation,
} from '@lunanexa/sdk/generated/operations';

/*
 * Aliases and rollouts (apps/api/src/rollouts; libs/sdk/graphql/console/rollouts.graphql).
 * As in deployments.queries.ts, result types are generated from each
 * selection; rollout states, verdicts and revision reasons are plain strings
 * in the schema and shown as sent when this console does not know them.
 */

export type AliasSummary = ConsoleAliasesQuery['aliases'][number];
export type Alias = NonNullable<ConsoleAliasQuery['alias']>;
export type AliasRevision = Alias['revisions'][number];
/** What the alias list shows of a rollout in progress. */
export type RolloutSummary = ConsoleAliasQuery['rollouts'][number];
export type Rollout = NonNullable<ConsoleRolloutQuery['rollout']>;
export type RolloutAnalysis = Rollout['analyses'][number];
export type RolloutReceipt = Rollout['receipts'][number];
export type RolloutOperation = ConsoleStartRolloutMutation['startRollout'];
/** What the start-rollout dialog offers as the version to roll out. */
export type RolloutCandidate = ConsoleRolloutChoicesQuery['modelVersions'][number];
/** A workflow Temporal reports closed without success (failed, timed out, terminated). */
export type WorkflowEnd = ConsoleRolloutQuery['workflowAlerts'][number];

export const ALIASES = ConsoleAliasesDocument;
/** One alias with its revision history and its recent rollouts, newest first. */
export const ALIAS = ConsoleAliasDocument;
/**
 * One rollout, with the workflows that ended badly lately: a rollout workflow
 * that failed outside its own handling leaves its last recorded state (say
 * Deploying) behind, and only Temporal knows it has stopped.
 */
export const ROLLOUT = ConsoleRolloutDocument;
/** The start-rollout dialog's choices: aliases to move and versions to move them to. */
export const ROLLOUT_CHOICES = ConsoleRolloutChoicesDocument;
export const CREATE_ALIAS = ConsoleCreateAliasDocument;
export const START_ROLLOUT = ConsoleStartRolloutDocument;
export const SIGNAL_ROLLOUT = ConsoleSignalRolloutDocument;
