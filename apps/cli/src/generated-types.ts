import type { Graphql } from '@lunanexa/sdk';

/**
 * A generated GraphQL type (from apps/api/schema.gql, via @lunanexa/sdk)
 * narrowed to the fields a CLI query selects, recursing into nested
 * selections. `S` is the selection's shape (the zod response schema's output);
 * a selected field the schema does not have becomes `NotInSchema`, which no
 * value satisfies, so `Conforms` fails the build.
 */
export type Narrow<G, S> = G extends null
  ? null
  : G extends readonly (infer GItem)[]
    ? S extends readonly (infer SItem)[]
      ? readonly Narrow<GItem, SItem>[]
      : never
    : G extends object
      ? S extends object
        ? { readonly [K in keyof S]: K extends keyof G ? Narrow<G[K], NonNullable<S[K]>> : NotInSchema<K> }
        : never
      : G;

export interface NotInSchema<K> {
  readonly notInSchema: K;
}

/**
 * `true` only when every value the runtime validation accepts (`Validated`) is
 * a value of the generated type: a field the CLI treats as non-null but the
 * schema makes nullable is fine (stricter), the other way round fails.
 */
export type Conforms<Validated, Generated> = [Validated] extends [Generated] ? true : false;

export type { Graphql };
