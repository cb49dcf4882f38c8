/**
 * The shapes the console's operations select, built from the types generated
 * from the API's committed schema (libs/sdk/src/generated/graphql.ts, `npm run
 * sdk:generate`). An operation that selects only some fields of a type gets
 * a `Pick` of it here, so its result type never claims a field the query did
 * not ask for.
 */

import type { Role as ContractsRole } from '@lunanexa/contracts/roles';

import type * as Schema from '@lunanexa/sdk/generated/graphql';

export type {
  DateTimeString,
  DependencyCheck,
  Health,
  LiveEvent,
  LoginInput,
  PingRecord,
} from '@lunanexa/sdk/generated/graphql';

/** What sign-in selects of the account (`operator { id username role }`). */
export type Operator = Pick<Schema.Operator, 'id' | 'username' | 'role'>;

export interface LoginResult extends Omit<Schema.LoginResult, 'operator'> {
  readonly operator: Operator;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/**
 * The console filters its navigation with the contracts role table, so the
 * schema's `Role` enum must name exactly those roles; the build fails here when they drift.
 */
export type RoleEnumMatchesContracts = Holds<Same<Schema.Role, ContractsRole>>;
