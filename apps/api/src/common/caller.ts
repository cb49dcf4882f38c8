import type { RequestIds } from '@lunanexa/observability';
import type { GraphQLContext } from './graphql-context';

/** Who is calling a service method: the actor recorded in audit events, and the ids of the request. */
export interface Caller {
  readonly actor: string;
  readonly ids: RequestIds;
}

export function callerOf(ctx: GraphQLContext): Caller {
  return { actor: ctx.actor, ids: ctx.ids };
}
