import {
  ConsolePoliciesDocument,
  ConsoleSetDataPolicyDocument,
  ConsoleSetRuntimeAllowedDocument,
  type ConsolePoliciesQuery,
} from '@lunanexa/sdk/generated/operations';

/* The policies operations (libs/sdk/graphql/console/policies.graphql); result types are generated from each selection. */

export type DataPolicy = ConsolePoliciesQuery['dataPolicies'][number];
export type AllowlistRuntime = ConsolePoliciesQuery['runtimes'][number];

export const POLICIES = ConsolePoliciesDocument;
export const SET_DATA_POLICY = ConsoleSetDataPolicyDocument;
export const SET_RUNTIME_ALLOWED = ConsoleSetRuntimeAllowedDocument;
