/**
 * Schema types the console shares between views, from the types generated
 * from the API's committed schema (libs/sdk/src/generated/graphql.ts, `npm run
 * sdk:generate`). What an operation selects is typed by its generated
 * document (libs/sdk/src/generated/operations.ts), never by hand.
 */

import type { Role as ContractsRole } from '@lunanexa/contracts/roles';

import type * as Schema from '@lunanexa/sdk/generated/graphql';
import type { ConsoleLoginMutation } from '@lunanexa/sdk/generated/operations';

export type {
  DateTimeString,
  DependencyCheck,
  Health,
  LiveEvent,
  LoginInput,
  PingRecord,
} from '@lunanexa/sdk/generated/graphql';

/** What sign-in answers (libs/sdk/graphql/console/session.graphql). */
export type LoginResult = ConsoleLoginMutation['login'];
/** What sign-in selects of the account (`operator { id username role }`). */
export type Operator = LoginResult['operator'];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/**
 * The console filters its navigation with the contracts role table, so the
 * schema's `Role` enum must name exactly those roles; the build fails here when they drift.
 */
export type RoleEnumMatchesContracts = Holds<Same<Schema.Role, ContractsRole>>;
