import {
  ConsoleApiTokensDocument,
  ConsoleBootstrapTokensDocument,
  ConsoleChangePasswordDocument,
  ConsoleCreateApiTokenDocument,
  ConsoleRevokeApiTokenDocument,
  ConsoleRevokeBootstrapTokenDocument,
  type ConsoleApiTokensQuery,
  type ConsoleBootstrapTokensQuery,
  ConsoleCreateOperatorDocument,
  ConsoleDisableOperatorDocument,
  ConsoleEndOperatorSessionsDocument,
  ConsoleOperatorsDocument,
  ConsoleResetOperatorPasswordDocument,
  type ConsoleOperatorsQuery,
} from '@lunanexa/sdk/generated/operations';

/* Accounts and passwords (libs/sdk/graphql/console/access.graphql and session.graphql). */

export type OperatorSummary = ConsoleOperatorsQuery['operators'][number];

export const OPERATORS = ConsoleOperatorsDocument;
export const CREATE_OPERATOR = ConsoleCreateOperatorDocument;
export const RESET_OPERATOR_PASSWORD = ConsoleResetOperatorPasswordDocument;
export const END_OPERATOR_SESSIONS = ConsoleEndOperatorSessionsDocument;
export const DISABLE_OPERATOR = ConsoleDisableOperatorDocument;
export const CHANGE_PASSWORD = ConsoleChangePasswordDocument;

export type ApiTokenSummary = ConsoleApiTokensQuery['apiTokens'][number];
export type BootstrapTokenSummary = ConsoleBootstrapTokensQuery['bootstrapTokens'][number];

export const API_TOKENS = ConsoleApiTokensDocument;
export const CREATE_API_TOKEN = ConsoleCreateApiTokenDocument;
export const REVOKE_API_TOKEN = ConsoleRevokeApiTokenDocument;
export const BOOTSTRAP_TOKENS = ConsoleBootstrapTokensDocument;
export const REVOKE_BOOTSTRAP_TOKEN = ConsoleRevokeBootstrapTokenDocument;
