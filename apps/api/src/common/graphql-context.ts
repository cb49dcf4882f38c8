import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIds } from '@lunanexa/observability';
import type { Principal } from '../auth/principal';
import { requestIdsOf } from './request-ids';

export interface GraphQLContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ids: RequestIds;
  /**
   * Who receipts and workflows name: `operator:<username>` for a session,
   * `token:<prefix>` for an API token. The roles guard sets it (and
   * `principal`) once it has authenticated the request; until then, and for
   * public fields, it reads `anonymous`.
   */
  actor: string;
  principal: Principal | null;
}

export function buildGraphQLContext({
  req,
  res,
}: {
  req: IncomingMessage;
  res: ServerResponse;
}): GraphQLContext {
  return { req, res, ids: requestIdsOf(req), actor: 'anonymous', principal: null };
}
