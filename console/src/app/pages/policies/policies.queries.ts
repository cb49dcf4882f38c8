import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

export type DataPolicy = Pick<
  Schema.DataPolicy,
  | 'tenantId'
  | 'dataClass'
  | 'retentionMode'
  | 'retentionDays'
  | 'evaluationCaptureConsent'
  | 'configured'
  | 'updatedBy'
  | 'updatedAt'
>;

export type AllowlistRuntime = Pick<
  Schema.Runtime,
  'id' | 'name' | 'version' | 'kind' | 'allowed' | 'createdBy' | 'updatedAt'
> & { readonly packaging: Pick<Schema.RuntimePackaging, 'type' | 'image' | 'digest'> };

const POLICY_FIELDS = `
  tenantId
  dataClass
  retentionMode
  retentionDays
  evaluationCaptureConsent
  configured
  updatedBy
  updatedAt
`;

const RUNTIME_FIELDS = `
  id
  name
  version
  kind
  allowed
  createdBy
  updatedAt
  packaging { type image digest }
`;

export const POLICIES = graphqlOperation<{
  readonly dataPolicies: readonly DataPolicy[];
  readonly runtimes: readonly AllowlistRuntime[];
}>(`
  query ConsolePolicies {
    dataPolicies { ${POLICY_FIELDS} }
    runtimes { ${RUNTIME_FIELDS} }
  }
`);

export const SET_DATA_POLICY = graphqlOperation<
  { readonly setDataPolicy: DataPolicy },
  Readonly<Schema.MutationSetDataPolicyArgs>
>(`
  mutation ConsoleSetDataPolicy($input: SetDataPolicyInput!) {
    setDataPolicy(input: $input) { ${POLICY_FIELDS} }
  }
`);

export const SET_RUNTIME_ALLOWED = graphqlOperation<
  { readonly setRuntimeAllowed: AllowlistRuntime },
  Readonly<Schema.MutationSetRuntimeAllowedArgs>
>(`
  mutation ConsoleSetRuntimeAllowed($id: ID!, $allowed: Boolean!) {
    setRuntimeAllowed(id: $id, allowed: $allowed) { ${RUNTIME_FIELDS} }
  }
`);
