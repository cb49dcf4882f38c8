import {
  ConsolePoliciesDocument,
  ConsoleRegisterSigningKeyDocument,
  ConsoleRevokeSigningKeyDocument,
  ConsoleSetDataPolicyDocument,
  ConsoleSetTenantUnsignedPolicyDocument,
  ConsoleTenantSigningPolicyDocument,
  ConsoleSetRuntimeAllowedDocument,
  type ConsolePoliciesQuery,
} from '@lunanexa/sdk/generated/operations';

/* The policies operations (libs/sdk/graphql/console/policies.graphql); result types are generated from each selection. */

export type DataPolicy = ConsolePoliciesQuery['dataPolicies'][number];
export type AllowlistRuntime = ConsolePoliciesQuery['runtimes'][number];

export const POLICIES = ConsolePoliciesDocument;
export const SET_DATA_POLICY = ConsoleSetDataPolicyDocument;
export const SET_RUNTIME_ALLOWED = ConsoleSetRuntimeAllowedDocument;
export type SigningKey = ConsolePoliciesQuery['trustedSigningKeys'][number];

export const REGISTER_SIGNING_KEY = ConsoleRegisterSigningKeyDocument;
export const REVOKE_SIGNING_KEY = ConsoleRevokeSigningKeyDocument;
export const TENANT_SIGNING_POLICY = ConsoleTenantSigningPolicyDocument;
export const SET_TENANT_UNSIGNED_POLICY = ConsoleSetTenantUnsignedPolicyDocument;
