import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { CliIo } from '../src/context';

export interface CapturedIo extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

export function captureIo(env: Record<string, string | undefined> = {}): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    env,
    out: () => out,
    err: () => err,
  };
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface CannedReply {
  readonly status: number;
  readonly contentType?: string;
  readonly body: string | Buffer;
  /** Echo the caller's x-request-id, as every LunaNexa server does (default true). */
  readonly echoRequestId?: boolean;
  /** Never answer: for timeout tests. */
  readonly hang?: boolean;
  /** Answer after this many milliseconds: a call that waits for a workflow. */
  readonly delayMs?: number;
}

export type Route = (request: RecordedRequest) => CannedReply;

/**
 * A real HTTP server on an ephemeral port answering with canned LunaNexa
 * responses, so the tests exercise the CLI's real HTTP client and parsing.
 */
export async function cannedApi(routes: Readonly<Record<string, Route>>): Promise<{
  url: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const route = routes[`${request.method} ${request.path}`];
      const reply: CannedReply =
        route === undefined
          ? { status: 404, contentType: 'text/plain', body: 'no such canned route' }
          : route(request);
      if (reply.hang === true) return;
      const headers: Record<string, string> = { 'content-type': reply.contentType ?? 'application/json' };
      const requestId = req.headers['x-request-id'];
      if (reply.echoRequestId !== false && typeof requestId === 'string') headers['x-request-id'] = requestId;
      const send = (): void => {
        res.writeHead(reply.status, headers).end(reply.body);
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, contentType = 'application/json'): CannedReply {
  return { status, contentType, body: JSON.stringify(body) };
}

/** A port with no listener, for "API unreachable". */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const HEALTHY = {
  data: {
    health: {
      status: 'ok',
      version: '0.1.0',
      commit: '4f2a9c1',
      checks: [
        { name: 'postgresql', status: 'ok', detail: null, latencyMs: 1.4 },
        { name: 'temporal', status: 'ok', detail: null, latencyMs: 3.2 },
      ],
    },
  },
};

export const DEGRADED = {
  data: {
    health: {
      status: 'degraded',
      version: '0.1.0',
      commit: '4f2a9c1',
      checks: [
        { name: 'postgresql', status: 'ok', detail: null, latencyMs: 1.1 },
        { name: 'temporal', status: 'failing', detail: 'no answer within 3000 ms', latencyMs: null },
      ],
    },
  },
};

/** The 503 problem body the API's /ready sends when a dependency fails. */
export function notReadyProblem(requestId: string): unknown {
  return {
    type: 'urn:lunanexa:error:dependency-unavailable',
    title: 'Dependency unavailable',
    status: 503,
    code: 'DEPENDENCY_UNAVAILABLE',
    detail: 'not ready: temporal failing',
    instance: '/ready',
    requestId,
    correlationId: requestId,
    checks: DEGRADED.data.health.checks,
  };
}

/** A GraphQL answer as the API sends it: data, or errors with `extensions.code`. */
export type GraphQLReply =
  { readonly data: unknown } | { readonly code: string; readonly message: string } | CannedReply;

/**
 * Answers POST /graphql by operation name (`query Nodes`, `mutation
 * DrainNode`, …), handing each handler the variables the CLI sent.
 */
export function graphqlRoute(
  handlers: Readonly<Record<string, (variables: Record<string, unknown>) => GraphQLReply>>,
): Route {
  return (request) => {
    const body = JSON.parse(request.body) as { query: string; variables?: Record<string, unknown> };
    const name = /^(?:query|mutation)\s+(\w+)/.exec(body.query)?.[1] ?? '';
    const handler = handlers[name];
    if (handler === undefined) {
      return json(200, {
        errors: [{ message: `no canned operation ${name}`, extensions: { code: 'INTERNAL' } }],
      });
    }
    const reply = handler(body.variables ?? {});
    if ('status' in reply) return reply;
    if ('code' in reply) {
      return json(200, {
        data: null,
        errors: [{ message: reply.message, extensions: { code: reply.code } }],
      });
    }
    return json(200, { data: reply.data });
  };
}

export type CannedApi = Awaited<ReturnType<typeof cannedApi>>;
export type GraphQLHandlers = Readonly<Record<string, (variables: Record<string, unknown>) => GraphQLReply>>;

/**
 * For one describe block: `serve(handlers)` starts a canned GraphQL API,
 * `serveRoutes(routes)` one with routes of its own; every API a test started
 * is closed after it.
 */
export function cannedApis(): {
  readonly serve: (handlers: GraphQLHandlers) => Promise<CannedApi>;
  readonly serveRoutes: (routes: Readonly<Record<string, Route>>) => Promise<CannedApi>;
} {
  let open: CannedApi[] = [];
  afterEach(async () => {
    await Promise.all(open.map((api) => api.close()));
    open = [];
  });
  const serveRoutes = async (routes: Readonly<Record<string, Route>>): Promise<CannedApi> => {
    const api = await cannedApi(routes);
    open.push(api);
    return api;
  };
  return { serve: (handlers) => serveRoutes({ 'POST /graphql': graphqlRoute(handlers) }), serveRoutes };
}

/** The variables of every GraphQL call recorded, with their operation names. */
export function sentOperations(requests: readonly RecordedRequest[]): { name: string; variables: unknown }[] {
  return requests
    .filter((request) => request.path.endsWith('/graphql'))
    .map((request) => {
      const body = JSON.parse(request.body) as { query: string; variables?: unknown };
      return { name: /^(?:query|mutation)\s+(\w+)/.exec(body.query)?.[1] ?? '', variables: body.variables };
    });
}
