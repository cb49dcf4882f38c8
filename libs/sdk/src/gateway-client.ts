import { errorFromFailure, errorFromResponse, LunaNexaError } from './errors';
import type {
  OpenAiChatChunk,
  OpenAiChatRequest,
  OpenAiChatResponse,
  OpenAiModelList,
} from './generated/gateway';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  retryableFailure,
  retryableStatus,
  sleep,
  type RetryPolicy,
} from './retry';
import { sseData } from './sse';

export interface GatewayClientOptions {
  /** The gateway's base URL, e.g. `http://gateway:8080` (without `/v1`). */
  readonly baseUrl: string;
  /** A gateway key (`lnxk_…`) or an operator token. */
  readonly apiKey: string;
  readonly retry?: Partial<RetryPolicy>;
  /** Headers sent with every call (e.g. `x-lunanexa-data-class`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Replaces the global fetch (tests, proxies). */
  readonly fetch?: typeof fetch;
}

export interface CallOptions {
  /** Aborting closes the HTTP request; the gateway then cancels the request at the runtime. */
  readonly signal?: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as x-request-id (the gateway keeps a well-formed one). */
  readonly requestId?: string;
  /** Sent as x-correlation-id. */
  readonly correlationId?: string;
}

/** Ids the gateway answered a call under. */
export interface ResponseIds {
  readonly requestId: string | undefined;
  readonly correlationId: string | undefined;
}

export type ChatUsage = NonNullable<OpenAiChatResponse['usage']>;

/** A streamed chat completion: iterate the chunks; `usage` is set once the stream ended (when requested). */
export interface ChatCompletionStream extends AsyncIterable<OpenAiChatChunk>, ResponseIds {
  readonly usage: ChatUsage | undefined;
}

type ChatRequest = Omit<OpenAiChatRequest, 'stream'>;

/** What a LunaNexa gateway says about one model: limits, what it accepts, and live health. */
export type ModelDiscovery = NonNullable<OpenAiModelList['data'][number]['lunanexa']>;
export type ServingHealth = ModelDiscovery['health'];

/** One model the key may call, with what an application router needs to choose between models. */
export interface DiscoveredModel extends ModelDiscovery {
  /** The name to send as `model`: an alias, or `name@version` for operators. */
  readonly id: string;
}

/** The gateway's data plane: discovery and OpenAI-compatible chat completions. */
export class GatewayClient {
  private readonly retry: RetryPolicy;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: GatewayClientOptions) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.fetcher = options.fetch ?? fetch;
  }

  /** The models the key may name: a tenant's aliases, or for operators every alias and version. */
  async listModels(call: CallOptions = {}): Promise<OpenAiModelList & ResponseIds> {
    const response = await this.send('GET', '/v1/models', undefined, call, true);
    return { ...((await response.json()) as OpenAiModelList), ...ids(response) };
  }

  /**
   * Every model the key may call with its context length, streaming,
   * capabilities, accepted data classes and live health (Ready replicas,
   * recent error rate, queue) as this gateway sees it. A server that is not a
   * LunaNexa gateway (no `lunanexa` member) is refused with code `NOT_LUNANEXA`.
   */
  async discoverModels(call: CallOptions = {}): Promise<DiscoveredModel[] & ResponseIds> {
    const list = await this.listModels(call);
    const models = list.data.map((model): DiscoveredModel => {
      if (model.lunanexa === undefined)
        throw new LunaNexaError(
          `"${model.id}" has no discovery member: ${this.options.baseUrl} is not a LunaNexa gateway`,
          'NOT_LUNANEXA',
          200,
          list.requestId,
          list.correlationId,
          undefined,
        );
      return { id: model.id, ...model.lunanexa };
    });
    return Object.assign(models, { requestId: list.requestId, correlationId: list.correlationId });
  }

  /** A whole chat completion (`stream: false`). */
  async createChatCompletion(
    request: ChatRequest,
    call: CallOptions = {},
  ): Promise<OpenAiChatResponse & ResponseIds> {
    const response = await this.send(
      'POST',
      '/v1/chat/completions',
      { ...request, stream: false },
      call,
      false,
    );
    try {
      return { ...((await response.json()) as OpenAiChatResponse), ...ids(response) };
    } catch (error) {
      throw errorFromFailure(error, call.signal);
    }
  }

  /**
   * A streamed chat completion. Usage is requested (`stream_options.include_usage`)
   * unless the request says otherwise. Leaving the loop early, or aborting
   * `call.signal`, closes the request so the runtime stops generating.
   */
  async streamChatCompletion(request: ChatRequest, call: CallOptions = {}): Promise<ChatCompletionStream> {
    const body = { stream_options: { include_usage: true }, ...request, stream: true };
    const response = await this.send('POST', '/v1/chat/completions', body, call, false);
    const responseIds = ids(response);
    const signal = call.signal;
    let usage: ChatUsage | undefined;
    async function* chunks(): AsyncGenerator<OpenAiChatChunk> {
      try {
        for await (const data of sseData(response.body!)) {
          const parsed = JSON.parse(data) as OpenAiChatChunk | { error: { message: string; code: string } };
          if ('error' in parsed) {
            // A failure after the stream began arrives as an OpenAI error event (the code in lower case).
            throw new LunaNexaError(
              parsed.error.message,
              parsed.error.code.toUpperCase(),
              response.status,
              responseIds.requestId,
              responseIds.correlationId,
              undefined,
            );
          }
          if (parsed.usage) usage = parsed.usage;
          yield parsed;
        }
      } catch (error) {
        if (error instanceof LunaNexaError) throw error;
        throw errorFromFailure(error, signal);
      }
    }
    const iterator = chunks();
    return {
      ...responseIds,
      get usage() {
        return usage;
      },
      [Symbol.asyncIterator]: () => iterator,
    };
  }

  /** One call with the retry policy (see retry.ts for which failures are retried). */
  private async send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    call: CallOptions,
    idempotent: boolean,
  ): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      ...this.options.headers,
      ...call.headers,
      authorization: `Bearer ${this.options.apiKey}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (call.requestId) headers['x-request-id'] = call.requestId;
    if (call.correlationId) headers['x-correlation-id'] = call.correlationId;
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}${path}`;
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.fetcher(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: call.signal,
        });
      } catch (error) {
        if (
          call.signal?.aborted ||
          attempt >= this.retry.maxRetries ||
          !retryableFailure(error, idempotent)
        ) {
          throw errorFromFailure(error, call.signal);
        }
        await this.pause(attempt + 1, undefined, call.signal);
        continue;
      }
      if (response.ok) return response;
      const error = await errorFromResponse(response);
      const canRetry =
        attempt < this.retry.maxRetries &&
        retryableStatus(response.status, idempotent, error.retryAfterSeconds !== undefined);
      if (!canRetry) throw error;
      await this.pause(attempt + 1, error.retryAfterSeconds, call.signal);
    }
  }

  private async pause(
    attempt: number,
    retryAfterSeconds: number | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    try {
      await sleep(backoffMs(this.retry, attempt, retryAfterSeconds), signal);
    } catch (error) {
      throw errorFromFailure(error, signal);
    }
  }
}

function ids(response: Response): ResponseIds {
  return {
    requestId: response.headers.get('x-request-id') ?? undefined,
    correlationId: response.headers.get('x-correlation-id') ?? undefined,
  };
}
