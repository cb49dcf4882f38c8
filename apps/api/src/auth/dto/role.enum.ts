import { registerEnumType } from '@nestjs/graphql';
import type { Role } from '@lunanexa/contracts';
import type { CredentialKind } from '../principal';

/** The GraphQL `Role` enum: the same lower-case values as ROLES in libs/contracts. */
export const RoleValues: { readonly [R in Role]: R } = {
  viewer: 'viewer',
  operator: 'operator',
  admin: 'admin',
};

registerEnumType(RoleValues, {
  name: 'Role',
  description: 'Operator roles, lowest first; each can do everything the roles below it can.',
  valuesMap: {
    viewer: { description: 'Read-only queries.' },
    operator: { description: 'Also every mutation that changes fleet or system state.' },
    admin: { description: 'Also operator accounts and API tokens.' },
  },
});

export const CredentialKindValues: { readonly [K in CredentialKind]: K } = {
  session: 'session',
  apiToken: 'apiToken',
};

registerEnumType(CredentialKindValues, {
  name: 'CredentialKind',
  description: 'How the caller authenticated.',
  valuesMap: {
    session: { description: 'A session token from `login` (15 minutes).' },
    apiToken: { description: 'An API token (`lnx_…`).' },
  },
});
