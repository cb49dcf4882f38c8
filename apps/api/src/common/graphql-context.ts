import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestIds } from '@lunanexa/observability';
import type { Principal } from '../auth';
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

/** What graphql-ws hands the context builder for a subscription (see graphql-ws `useServer`). */
interface WebSocketContext {
  readonly connectionParams?: Readonly<Record<string, unknown>>;
  readonly extra: { readonly request: IncomingMessage };
}

/**
 * HTTP requests carry their own headers. A graphql-ws subscription carries
 * its credential in `connectionParams.authorization` (browsers cannot set
 * headers on a WebSocket); it is presented to the same guard as a request
 * whose `Authorization` header it is, on top of the upgrade request.
 */
export function buildGraphQLContext(
  input: { req: IncomingMessage; res: ServerResponse } | WebSocketContext,
): GraphQLContext {
  if ('req' in input) {
    return {
      req: input.req,
      res: input.res,
      ids: requestIdsOf(input.req),
      actor: 'anonymous',
      principal: null,
    };
  }
  const upgrade = input.extra.request;
  const authorization =
    input.connectionParams?.['authorization'] ?? input.connectionParams?.['Authorization'];
  const headers = { ...upgrade.headers };
  if (typeof authorization === 'string') headers.authorization = authorization;
  else delete headers.authorization;
  const req = Object.create(upgrade, { headers: { value: headers } }) as IncomingMessage;
  return {
    req,
    res: undefined as unknown as ServerResponse,
    ids: requestIdsOf(req),
    actor: 'anonymous',
    principal: null,
  };
}
