import type { TypedDocument } from '@lunanexa/sdk/generated/operations';

/**
 * A GraphQL document that carries its result and variables types, generated
 * per operation from libs/sdk/graphql (`npm run sdk:generate`), so the
 * client's return type follows from the operation passed in.
 */
export type GraphqlOperation<TData, TVariables extends GraphqlVariables = NoVariables> = TypedDocument<
  TData,
  TVariables
>;

export type GraphqlVariables = Readonly<Record<string, unknown>>;
export type NoVariables = Readonly<Record<string, never>>;
