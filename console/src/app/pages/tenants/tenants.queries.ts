import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

export type TenantQuota = Pick<
  Schema.TenantQuota,
  'requestsPerMinute' | 'tokensPerMinute' | 'maxConcurrentRequests'
>;

export type TenantSummary = Pick<
  Schema.Tenant,
  'id' | 'displayName' | 'keyCount' | 'activeKeyCount' | 'createdBy' | 'createdAt' | 'updatedBy' | 'updatedAt'
> & { readonly quota: TenantQuota };

export type GatewayKeySummary = Pick<
  Schema.GatewayKey,
  | 'id'
  | 'tenantId'
  | 'name'
  | 'prefix'
  | 'aliases'
  | 'state'
  | 'createdBy'
  | 'createdAt'
  | 'expiresAt'
  | 'revokedAt'
  | 'revokedBy'
  | 'lastUsedAt'
>;

export type CreatedGatewayKey = Pick<Schema.CreateGatewayKeyResult, 'secret'> & {
  readonly key: GatewayKeySummary;
};

const TENANT_FIELDS = `
  id
  displayName
  quota { requestsPerMinute tokensPerMinute maxConcurrentRequests }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
`;

const KEY_FIELDS = `
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
`;

export const TENANTS = graphqlOperation<{ readonly tenants: readonly TenantSummary[] }>(`
  query ConsoleTenants {
    tenants { ${TENANT_FIELDS} }
  }
`);

export const TENANT = graphqlOperation<
  { readonly tenant: TenantSummary | null },
  Readonly<Schema.QueryTenantArgs>
>(`
  query ConsoleTenant($id: String!) {
    tenant(id: $id) { ${TENANT_FIELDS} }
  }
`);

/** Revoked keys included: the detail shows a tenant's whole key history. */
export const GATEWAY_KEYS = graphqlOperation<
  { readonly gatewayKeys: readonly GatewayKeySummary[] },
  { readonly tenantId: string }
>(`
  query ConsoleGatewayKeys($tenantId: String!) {
    gatewayKeys(tenantId: $tenantId, includeRevoked: true) { ${KEY_FIELDS} }
  }
`);

/** The alias names a key may be granted. */
export const ALIAS_NAMES = graphqlOperation<{ readonly aliases: readonly { readonly name: string }[] }>(`
  query ConsoleAliasNames {
    aliases { name }
  }
`);

export const CREATE_TENANT = graphqlOperation<
  { readonly createTenant: TenantSummary },
  Readonly<Schema.MutationCreateTenantArgs>
>(`
  mutation ConsoleCreateTenant($input: CreateTenantInput!) {
    createTenant(input: $input) { ${TENANT_FIELDS} }
  }
`);

export const UPDATE_TENANT = graphqlOperation<
  { readonly updateTenant: TenantSummary },
  Readonly<Schema.MutationUpdateTenantArgs>
>(`
  mutation ConsoleUpdateTenant($input: UpdateTenantInput!) {
    updateTenant(input: $input) { ${TENANT_FIELDS} }
  }
`);

export const CREATE_GATEWAY_KEY = graphqlOperation<
  { readonly createGatewayKey: CreatedGatewayKey },
  Readonly<Schema.MutationCreateGatewayKeyArgs>
>(`
  mutation ConsoleCreateGatewayKey($input: CreateGatewayKeyInput!) {
    createGatewayKey(input: $input) { secret key { ${KEY_FIELDS} } }
  }
`);

export const REVOKE_GATEWAY_KEY = graphqlOperation<
  { readonly revokeGatewayKey: GatewayKeySummary },
  Readonly<Schema.MutationRevokeGatewayKeyArgs>
>(`
  mutation ConsoleRevokeGatewayKey($id: ID!) {
    revokeGatewayKey(id: $id) { ${KEY_FIELDS} }
  }
`);
