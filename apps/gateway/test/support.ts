import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { hashBearerSecret } from '@lunanexa/credentials';
import type { GatewayCredentialSnapshot } from '@lunanexa/persistence';
import { createLogger } from '@lunanexa/observability';
import type { AdmissionLimits } from '../src/admission';
import { type CredentialTable, StaticCredentialTable } from '../src/credential-table';
import { createGatewayServer, type GatewayServer } from '../src/server';
import { EmptyRouteTable, type Route, type RouteTable } from '../src/route-table';
import type { RequestLog } from '../src/request-log';

/** Every log line the gateway wrote, parsed, plus the raw text for "never logged" assertions. */
export class CapturedLog extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  raw = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const text = chunk.toString('utf8');
    this.raw += text;
    for (const line of text.split('\n').filter((l) => l.length > 0))
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    callback();
  }
}

export interface StartedGateway {
  readonly gateway: GatewayServer;
  readonly url: string;
  readonly port: number;
  readonly log: CapturedLog;
  stop(): Promise<void>;
}

export const FIXED_NOW = new Date('2025-11-20T09:15:00.000Z');

/**
 * The operator credential tests call /v1 with unless they say otherwise: an
 * operator API token, which may name pinned `model@version` refs as well as aliases.
 */
export const TEST_OPERATOR_TOKEN = `lnx_${'o'.repeat(43)}`;
export const TEST_OPERATOR_ID = '5d1f8f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/** Admission bounds loose enough that only tests about admission meet them. */
export const TEST_ADMISSION: AdmissionLimits = {
  replicaConcurrency: 64,
  queuePerReplica: 64,
  maxQueueWaitMs: 5000,
};

/** Credentials holding the test operator, plus whatever a test adds (tenants, keys). */
export function testCredentials(
  extra: Partial<Pick<GatewayCredentialSnapshot, 'tenants' | 'gatewayKeys'>> = {},
): StaticCredentialTable {
  return new StaticCredentialTable({
    ...extra,
    operators: [
      { id: TEST_OPERATOR_ID, username: 'test-operator', role: 'operator', sessionEpoch: 0, disabled: false },
    ],
    operatorTokens: [
      {
        id: '6e2a9b8c-2b3c-4d5e-9f0a-1b2c3d4e5f60',
        tokenHash: hashBearerSecret(TEST_OPERATOR_TOKEN),
        prefix: TEST_OPERATOR_TOKEN.slice(0, 12),
        operatorId: TEST_OPERATOR_ID,
        role: 'operator',
        expiresAt: null,
      },
    ],
  });
}

export async function startGateway(
  options: {
    routes?: RouteTable;
    maxBodyBytes?: number;
    requestLog?: RequestLog;
    credentials?: CredentialTable;
    admission?: AdmissionLimits;
  } = {},
): Promise<StartedGateway> {
  const log = new CapturedLog();
  const gateway = createGatewayServer({
    routes: options.routes ?? new EmptyRouteTable(),
    credentials: options.credentials ?? testCredentials(),
    admission: options.admission ?? TEST_ADMISSION,
    logger: createLogger({ service: 'gateway', level: 'info', destination: log }),
    build: { version: '0.1.0-test', commit: 'test' },
    maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
    defaultDataClass: 'internal',
    clock: () => FIXED_NOW,
    ...(options.requestLog ? { requestLog: options.requestLog } : {}),
  });
  const address = await gateway.listen(0, '127.0.0.1');
  return {
    gateway,
    log,
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    stop: () => gateway.close(1000),
  };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * A raw HTTP call with node:http, so tests control exactly what goes on the
 * wire (content types, lengths, chunked bodies) — fetch would "fix" some of it.
 * Calls to /v1 carry the test operator's token unless the test sends its own
 * Authorization header or asks for an `anonymous` call.
 */
export function call(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunks?: readonly Buffer[];
    anonymous?: boolean;
  } = {},
): Promise<RawResponse> {
  const headers = { ...(options.headers ?? {}) };
  const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  if (path.startsWith('/v1') && !hasAuthorization && options.anonymous !== true)
    headers['authorization'] = `Bearer ${TEST_OPERATOR_TOKEN}`;
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: <T>() => JSON.parse(text) as T,
        });
      });
      res.on('error', reject);
    });
    // A 413 may arrive while we are still sending; the response is what the test looks at.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (options.chunks !== undefined) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

export function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return call(baseUrl, 'POST', path, {
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Splits an SSE body into its `data:` payloads. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

/** What the fake runtime saw: path and parsed body of each request. */
export interface UpstreamCall {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

export type UpstreamBehaviour = (call: UpstreamCall, res: ServerResponse, req: IncomingMessage) => void;

/**
 * A real openai-compatible HTTP server in-process, standing in for vLLM: tests
 * script its behaviour per request and read back what it received.
 */
export class FakeRuntime {
  readonly calls: UpstreamCall[] = [];
  private server: Server | undefined;
  baseUrl = '';

  constructor(private behaviour: UpstreamBehaviour) {}

  setBehaviour(behaviour: UpstreamBehaviour): void {
    this.behaviour = behaviour;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        const call: UpstreamCall = {
          path: req.url ?? '',
          body: JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>,
        };
        this.calls.push(call);
        this.behaviour(call, res, req);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (this.server === undefined) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** A port nothing listens on: bind, read the port, release it. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A base URL on 127.0.0.1 that refuses connections and stays refused for the
 * test: its port lies below the kernel's ephemeral range, which is where
 * every `listen(0)` of the test (runtimes, gateways) takes its port from, so
 * no server the test starts can land on it. A closed port from `unusedPort`
 * can be handed to the next runtime and answer.
 */
export async function refusingBaseUrl(): Promise<string> {
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
  for (let port = 1; port < Math.min(ephemeralLow, 1024); port += 1) {
    if (await refuses(port)) return `http://127.0.0.1:${port}`;
  }
  throw new Error('no port below the ephemeral range refuses connections on 127.0.0.1');
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

export function openAiChatCompletion(content: string, model = 'served-llama'): Record<string, unknown> {
  return {
    id: 'chatcmpl-upstream-1',
    object: 'chat.completion',
    created: 1763629000,
    model,
    system_fingerprint: 'fp_vendor',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

export function route(endpoints: Route['endpoints'], overrides: Partial<Route> = {}): Route {
  return {
    modelVersion: 'llama-3-1-8b-instruct@2024-07-23',
    alias: 'chat-default',
    deploymentId: 'dep-01JD5B9',
    allowedDataClasses: ['public', 'internal'],
    endpoints,
    ...overrides,
  };
}
