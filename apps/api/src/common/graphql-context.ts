import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIds } from '@lunanexa/observability';
import { requestIdsOf } from './request-ids';

export interface GraphQLContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ids: RequestIds;
  /** Until operator identity exists every caller is anonymous; receipts say so. */
  readonly actor: string;
}

export function buildGraphQLContext({
  req,
  res,
}: {
  req: IncomingMessage;
  res: ServerResponse;
}): GraphQLContext {
  return { req, res, ids: requestIdsOf(req), actor: 'anonymous' };
}
