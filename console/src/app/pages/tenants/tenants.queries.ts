import {
  ConsoleAliasNamesDocument,
  ConsoleCreateGatewayKeyDocument,
  ConsoleCreateTenantDocument,
  ConsoleGatewayKeysDocument,
  ConsolePayloadCapturesDocument,
  ConsolePurgePayloadCapturesDocument,
  ConsoleRevokeGatewayKeyDocument,
  ConsoleTenantDocument,
  ConsoleTenantsDocument,
  ConsoleTenantUsageDocument,
  ConsoleUpdateTenantDocument,
  type ConsoleCreateGatewayKeyMutation,
  type ConsoleGatewayKeysQuery,
  type ConsolePayloadCapturesQuery,
  type ConsolePurgePayloadCapturesMutation,
  type ConsoleTenantsQuery,
  type ConsoleTenantUsageQuery,
} from '@lunanexa/sdk/generated/operations';

/* The tenancy operations (libs/sdk/graphql/console/tenants.graphql); result types are generated from each selection. */

export type TenantSummary = ConsoleTenantsQuery['tenants'][number];
export type TenantQuota = TenantSummary['quota'];
export type GatewayKeySummary = ConsoleGatewayKeysQuery['gatewayKeys'][number];
export type CreatedGatewayKey = ConsoleCreateGatewayKeyMutation['createGatewayKey'];
export type TenantUsageReport = ConsoleTenantUsageQuery['traffic'];
export type PayloadCaptureSummary = ConsolePayloadCapturesQuery['payloadCaptures'][number];
export type PayloadPurgeReceipt = ConsolePurgePayloadCapturesMutation['purgePayloadCaptures'];

export const TENANTS = ConsoleTenantsDocument;
export const TENANT = ConsoleTenantDocument;
export const GATEWAY_KEYS = ConsoleGatewayKeysDocument;
export const ALIAS_NAMES = ConsoleAliasNamesDocument;
export const CREATE_TENANT = ConsoleCreateTenantDocument;
export const UPDATE_TENANT = ConsoleUpdateTenantDocument;
export const CREATE_GATEWAY_KEY = ConsoleCreateGatewayKeyDocument;
export const REVOKE_GATEWAY_KEY = ConsoleRevokeGatewayKeyDocument;
export const TENANT_USAGE = ConsoleTenantUsageDocument;
export const PAYLOAD_CAPTURES = ConsolePayloadCapturesDocument;
export const PURGE_PAYLOAD_CAPTURES = ConsolePurgePayloadCapturesDocument;
