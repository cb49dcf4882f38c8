/**
 * A GraphQL document that carries its result and variables types, the same
 * idea as graphql-codegen's `TypedDocumentNode`, so the client's return type
 * follows from the operation passed in. The phantom `types` member exists only
 * in the type system.
 */
export interface GraphqlOperation<TData, TVariables extends GraphqlVariables = NoVariables> {
  readonly operationName: string;
  readonly document: string;
  readonly types?: { readonly data: TData; readonly variables: TVariables };
}

export type GraphqlVariables = Readonly<Record<string, unknown>>;
export type NoVariables = Readonly<Record<string, never>>;

/**
 * Declares an operation. The operation name is read from the document so the
 * API's logs and traces name the same operation the console sent.
 */
export function graphqlOperation<TData, TVariables extends GraphqlVariables = NoVariables>(
  document: string,
): GraphqlOperation<TData, TVariables> {
  const name = /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(document)?.[1];
  if (name === undefined) {
    throw new Error('A console GraphQL operation must be a named query, mutation or subscription.');
  }
  return { operationName: name, document };
}
