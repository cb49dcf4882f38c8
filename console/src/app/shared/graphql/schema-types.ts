/**
 * TypeScript shapes of the northbound v1 GraphQL types the console reads.
 *
 * Hand-written mirror of the API's generated schema (apps/api/schema.gql)
 * until a generator produces these from it; when a field changes there,
 * change it here in the same commit. `DateTime` values arrive as ISO-8601
 * UTC strings.
 */

import type { Role } from '@lunanexa/contracts/roles';

export type DateTimeString = string;

export interface DependencyCheck {
  readonly name: string;
  readonly status: string;
  readonly detail: string | null;
  readonly latencyMs: number | null;
}

export interface Health {
  readonly status: string;
  readonly version: string;
  readonly commit: string;
  readonly checks: readonly DependencyCheck[];
}

export interface PingRecord {
  readonly id: string;
  readonly workflowId: string;
  readonly message: string;
  readonly actor: string;
  readonly correlationId: string;
  readonly createdAt: DateTimeString;
  readonly temporalUiUrl: string;
}

export interface Operator {
  readonly id: string;
  readonly username: string;
  /** The schema's `Role` enum carries the names of the contracts role table. */
  readonly role: Role;
}

export interface LoginResult {
  /** Session token (JWT); sent as `Authorization: Bearer <accessToken>`. */
  readonly accessToken: string;
  readonly expiresAt: DateTimeString;
  readonly operator: Operator;
}
