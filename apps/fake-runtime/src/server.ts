import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  OPENAI_CHAT_ID_PREFIX,
  OPENAI_COMPLETION_ID_PREFIX,
  OPENAI_MODEL_OWNER,
  OpenAiChatRequestSchema,
  OpenAiCompletionRequestSchema,
  type OpenAiChatChunk,
  type OpenAiChatResponse,
  type OpenAiCompletionChunk,
  type OpenAiCompletionResponse,
  type OpenAiError,
  type OpenAiModelList,
  type OpenAiUsage,
  TRACEPARENT_HEADER,
} from '@lunanexa/contracts';
import {
  UNMATCHED_ROUTE,
  createServiceMetrics,
  resolveRequestIds,
  responseIdHeaders,
  type BuildInfo,
  type Logger,
  type RequestIds,
} from '@lunanexa/observability';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { z } from 'zod';
import { FAKE_RUNTIME_SERVICE, type FakeRuntimeConfig } from './config';
import { failureSchedule, ratePpm } from './faults';
import { generate, type FakePrompt, type Generation } from './generator';
import { PrefixCache, promptPrefixes } from './prefix-cache';
import { RunQueue } from './run-queue';

/** Bodies above this are refused with 413; a chat request is a few KiB. */
export const MAX_BODY_BYTES = 1_048_576;

const CHAT_PATH = '/v1/chat/completions';
/** The `traceparent` headers the last inference requests arrived with (oldest first), for tracing tests. */
export const RECEIVED_TRACEPARENTS_PATH = '/debug/traceparents';
const MAX_RECEIVED_TRACEPARENTS = 64;
const COMPLETION_PATH = '/v1/completions';

/** How an inference request ended, as counted in `lunanexa_fake_runtime_requests_total`. */
export type RequestOutcome =
  'ok' | 'injected_error' | 'invalid' | 'model_not_found' | 'cancelled' | 'loading';

export interface FakeRuntimeMetrics {
  readonly registry: Registry;
  readonly requests: Counter<'route' | 'outcome'>;
  readonly generatedTokens: Counter;
  readonly prefixCacheHitTokens: Counter;
  readonly requestsRunning: Gauge<'model_name'>;
  readonly requestsWaiting: Gauge<'model_name'>;
  readonly kvCacheUsage: Gauge<'model_name'>;
}

export interface FakeRuntimeServerOptions {
  readonly config: FakeRuntimeConfig;
  readonly logger: Logger;
  readonly build: BuildInfo;
  /** Called once the `crashAfterRequests`-th inference request has been answered. */
  readonly onCrash: (requestNumber: number) => void;
}

export interface FakeRuntimeServer {
  readonly metrics: FakeRuntimeMetrics;
  listen(): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

/** An OpenAI-style failure: status plus the `error` member OpenAI SDKs read. */
class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: OpenAiError,
    readonly outcome: RequestOutcome,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message);
  }
}

function invalid(message: string, param: string | null = null): HttpFailure {
  return new HttpFailure(
    400,
    { message, type: 'invalid_request_error', code: 'validation_failed', param },
    'invalid',
  );
}

type Inference = (
  | { readonly kind: 'chat'; readonly request: z.infer<typeof OpenAiChatRequestSchema> }
  | { readonly kind: 'completion'; readonly request: z.infer<typeof OpenAiCompletionRequestSchema> }
) & { readonly ignoreEos: boolean };

/** What one request will produce, decided before the first byte. */
interface Plan {
  readonly kind: 'chat' | 'completion';
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly prompt: FakePrompt;
  readonly generation: Generation;
}

export function createFakeRuntimeServer(options: FakeRuntimeServerOptions): FakeRuntimeServer {
  const { config, logger } = options;
  const service = createServiceMetrics(FAKE_RUNTIME_SERVICE, options.build);
  const inFlight = new Set<ServerResponse>();
  const runQueue = new RunQueue(config.maxNumSeqs);
  const prefixCache = new PrefixCache(config.prefixCacheTokens);
  /** Tokens each running request holds in the simulated KV cache: its prompt plus what it generated so far. */
  const cachedTokens = new Map<ServerResponse, number>();
  const metrics: FakeRuntimeMetrics = {
    registry: service.registry,
    requests: new Counter({
      name: 'lunanexa_fake_runtime_requests_total',
      help: 'Inference requests answered, by route and outcome.',
      labelNames: ['route', 'outcome'] as const,
      registers: [service.registry],
    }),
    prefixCacheHitTokens: new Counter({
      name: 'lunanexa_fake_runtime_prefix_cache_hit_tokens_total',
      help: 'Prompt tokens found in the prefix cache, so not prefilled again.',
      registers: [service.registry],
    }),
    generatedTokens: new Counter({
      name: 'lunanexa_fake_runtime_generated_tokens_total',
      help: 'Completion tokens actually sent to clients.',
      registers: [service.registry],
    }),
    // vLLM's own gauge names and label, so the agent reads load the same way from either runtime.
    requestsRunning: new Gauge({
      name: 'vllm:num_requests_running',
      help: 'Inference requests being answered right now (vLLM-compatible name).',
      labelNames: ['model_name'] as const,
      registers: [service.registry],
      collect() {
        this.set({ model_name: config.model }, runQueue.runningCount);
      },
    }),
    requestsWaiting: new Gauge({
      name: 'vllm:num_requests_waiting',
      help: 'Inference requests queued behind --max-num-seqs running ones (vLLM-compatible name).',
      labelNames: ['model_name'] as const,
      registers: [service.registry],
      collect() {
        this.set({ model_name: config.model }, runQueue.waitingCount);
      },
    }),
    kvCacheUsage: new Gauge({
      name: 'vllm:kv_cache_usage_perc',
      help: "Running requests' prompt and generated tokens over --kv-cache-tokens; 1 means full (vLLM-compatible name).",
      labelNames: ['model_name'] as const,
      registers: [service.registry],
      collect() {
        let tokens = 0;
        for (const held of cachedTokens.values()) tokens += held;
        this.set({ model_name: config.model }, Math.min(1, tokens / config.kvCacheTokens));
      },
    }),
  };
  const injectedFailure = failureSchedule(ratePpm(config.errorRate), config.seed);
  const startedAtSeconds = Math.floor(Date.now() / 1000);
  const idle: (() => void)[] = [];
  let readyAt = Number.POSITIVE_INFINITY;
  let requestCounter = 0;

  const untrack = (res: ServerResponse): void => {
    inFlight.delete(res);
    if (inFlight.size === 0) for (const wake of idle.splice(0)) wake();
  };

  const loading = (): boolean => performance.now() < readyAt;

  const receivedTraceparents: string[] = [];
  const routes: ReadonlyMap<string, { methods: readonly string[]; handle: Handler }> = new Map<
    string,
    { methods: readonly string[]; handle: Handler }
  >([
    ['/health', { methods: ['GET', 'HEAD'], handle: (_req, res) => health(res) }],
    ['/v1/models', { methods: ['GET', 'HEAD'], handle: (_req, res) => models(res) }],
    ['/metrics', { methods: ['GET', 'HEAD'], handle: (_req, res) => scrape(res) }],
    [
      RECEIVED_TRACEPARENTS_PATH,
      { methods: ['GET'], handle: (_req, res) => sendJson(res, 200, { traceparents: receivedTraceparents }) },
    ],
    [CHAT_PATH, { methods: ['POST'], handle: (req, res, ids) => infer(req, res, ids, CHAT_PATH) }],
    [
      COMPLETION_PATH,
      { methods: ['POST'], handle: (req, res, ids) => infer(req, res, ids, COMPLETION_PATH) },
    ],
  ]);

  function health(res: ServerResponse): void {
    if (loading()) sendJson(res, 503, { status: 'loading' });
    else sendJson(res, 200, { status: 'ok' });
  }

  function models(res: ServerResponse): void {
    if (loading()) {
      sendError(res, loadingFailure());
      return;
    }
    const body: OpenAiModelList = {
      object: 'list',
      data: [{ id: config.model, object: 'model', created: startedAtSeconds, owned_by: OPENAI_MODEL_OWNER }],
    };
    sendJson(res, 200, body);
  }

  async function scrape(res: ServerResponse): Promise<void> {
    const text = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType });
    res.end(text);
  }

  async function infer(req: IncomingMessage, res: ServerResponse, ids: RequestIds, route: string) {
    const startedAt = performance.now();
    // What the caller (the gateway) sent, as received: tests check it was propagated, not echoed.
    const received = req.headers[TRACEPARENT_HEADER];
    const traceparent = typeof received === 'string' ? received : null;
    if (traceparent !== null) {
      receivedTraceparents.push(traceparent);
      if (receivedTraceparents.length > MAX_RECEIVED_TRACEPARENTS) receivedTraceparents.shift();
    }
    let outcome: RequestOutcome = 'ok';
    let generation: Generation | null = null;
    let stream = false;
    let sentTokens = 0;
    /** The simulated prefill's own figures, logged so a benchmark can tell cache effects from machine noise. */
    let prefill: { cachedPromptTokens: number; prefillMs: number } | null = null;
    if (loading()) {
      metrics.requests.inc({ route, outcome: 'loading' });
      sendError(res, loadingFailure());
      return;
    }
    requestCounter += 1;
    const requestNumber = requestCounter;
    inFlight.add(res);
    let ticket: ReturnType<RunQueue['enter']> | null = null;
    let ended = false;
    const onEnd = (): void => {
      if (ended) return;
      ended = true;
      ticket?.leave();
      cachedTokens.delete(res);
      untrack(res);
      if (!res.writableFinished && outcome === 'ok') outcome = 'cancelled';
      metrics.requests.inc({ route, outcome });
      // Counts and timings only: prompts and completions are never logged.
      logger.info(
        {
          request_id: ids.requestId,
          correlation_id: ids.correlationId,
          trace_id: ids.traceId,
          traceparent,
          request: requestNumber,
          route,
          status: res.statusCode,
          outcome,
          stream,
          promptTokens: generation?.promptTokens ?? null,
          completionTokens: generation === null ? null : sentTokens,
          ...(prefill !== null && prefill),
          durationMs: Math.round(performance.now() - startedAt),
        },
        'inference request finished',
      );
      if (config.crashAfterRequests === requestNumber) options.onCrash(requestNumber);
    };
    res.once('finish', onEnd);
    res.once('close', onEnd);

    try {
      if (injectedFailure(requestNumber)) {
        // Answered before the body is read, as a runtime that fell over would.
        req.resume();
        throw new HttpFailure(
          500,
          {
            message: `injected failure on request ${requestNumber} (error rate ${config.errorRate})`,
            type: 'server_error',
            code: 'injected_failure',
            param: null,
          },
          'injected_error',
        );
      }
      const plan = planOf(parseInference(route, await readJson(req)), requestNumber);
      generation = plan.generation;
      stream = plan.stream;
      // Waits for a batch slot, as a request behind --max-num-seqs others does; the time to first token starts after.
      if (ended) return;
      ticket = runQueue.enter();
      await ticket.admitted;
      if (ended) return;
      const promptTokens = plan.generation.promptTokens;
      cachedTokens.set(res, promptTokens);
      const onTokens = (count: number): void => {
        sentTokens += count;
        metrics.generatedTokens.inc(count);
        if (!ended) cachedTokens.set(res, promptTokens + sentTokens);
      };
      prefill = prefillOf(plan);
      const prefillMs = prefill?.prefillMs ?? 0;
      if (plan.stream) await streamPlan(plan, req, res, onTokens, prefillMs);
      else await respondPlan(plan, res, onTokens, prefillMs);
    } catch (error: unknown) {
      if (error instanceof HttpFailure) {
        outcome = error.outcome;
        sendError(res, error);
        return;
      }
      throw error;
    }
  }

  function planOf(inference: Inference, requestNumber: number): Plan {
    const { request } = inference;
    if (request.model !== config.model) {
      throw new HttpFailure(
        404,
        {
          message: `The model \`${request.model}\` does not exist; this runtime serves \`${config.model}\`.`,
          type: 'not_found_error',
          code: 'model_not_found',
          param: 'model',
        },
        'model_not_found',
      );
    }
    let maxTokens = request.max_tokens ?? null;
    let prompt: FakePrompt;
    if (inference.kind === 'chat') {
      const newer = inference.request.max_completion_tokens ?? null;
      if (newer !== null && maxTokens !== null && newer !== maxTokens) {
        throw invalid('max_tokens and max_completion_tokens disagree', 'max_completion_tokens');
      }
      maxTokens = newer ?? maxTokens;
      prompt = {
        kind: 'chat',
        messages: inference.request.messages.map((message) => ({
          role: message.role,
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part) => part.text).join('\n'),
          name: message.name,
        })),
      };
    } else {
      const text = inference.request.prompt;
      prompt = { kind: 'completion', prompt: typeof text === 'string' ? text : (text[0] ?? '') };
    }
    const stop = request.stop ?? [];
    const generation = generate({
      model: config.model,
      prompt,
      seed: request.seed ?? config.seed,
      maxTokens: maxTokens ?? config.maxTokens,
      stop: typeof stop === 'string' ? [stop] : stop,
      ignoreEos: inference.ignoreEos,
    });
    return {
      kind: inference.kind,
      id: `${inference.kind === 'chat' ? OPENAI_CHAT_ID_PREFIX : OPENAI_COMPLETION_ID_PREFIX}fake-${requestNumber}`,
      created: Math.floor(Date.now() / 1000),
      model: config.model,
      stream: request.stream === true,
      includeUsage: request.stream_options?.include_usage === true,
      prompt,
      generation,
    };
  }

  /**
   * Extra time to first token for prefilling the prompt's tokens the prefix
   * cache does not hold; 0 when prefill is modelled as free (the default).
   */
  function prefillOf(plan: Plan): { cachedPromptTokens: number; prefillMs: number } | null {
    if (config.prefillTokensPerSecond === 0) return null;
    const cached = prefixCache.serve(promptPrefixes(plan.prompt));
    metrics.prefixCacheHitTokens.inc(cached);
    const uncached = Math.max(0, plan.generation.promptTokens - cached);
    return { cachedPromptTokens: cached, prefillMs: (uncached * 1000) / config.prefillTokensPerSecond };
  }

  /** When token i (0-based) is due, in performance.now() milliseconds. */
  function schedule(startedAt: number, prefillMs: number): (index: number) => number {
    const interval = 1000 / config.tokensPerSecond;
    return (index) => startedAt + config.ttftMs + prefillMs + index * interval;
  }

  /** Non-streamed: the whole answer once the last token would have been generated. */
  function respondPlan(
    plan: Plan,
    res: ServerResponse,
    onTokens: (count: number) => void,
    prefillMs: number,
  ): Promise<void> {
    const dueAt = schedule(performance.now(), prefillMs)(Math.max(plan.generation.pieces.length - 1, 0));
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          res.off('close', onClose);
          onTokens(plan.generation.completionTokens);
          sendJson(res, 200, plan.kind === 'chat' ? chatResponse(plan) : completionResponse(plan));
          resolve();
        },
        Math.max(0, dueAt - performance.now()),
      );
      const onClose = (): void => {
        clearTimeout(timer);
        resolve();
      };
      res.once('close', onClose);
    });
  }

  /**
   * Streamed: headers at once, then one SSE event per token at its due time
   * (time to first token, then 1/tokensPerSecond apart), each written as its
   * own chunk. A client that goes away stops the generation at the next token.
   */
  function streamPlan(
    plan: Plan,
    req: IncomingMessage,
    res: ServerResponse,
    onTokens: (count: number) => void,
    prefillMs: number,
  ): Promise<void> {
    const dueAt = schedule(performance.now(), prefillMs);
    const pieces = plan.generation.pieces;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const event = (chunk: OpenAiChatChunk | OpenAiCompletionChunk): boolean =>
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);

    return new Promise((resolve) => {
      let next = 0;
      let timer: NodeJS.Timeout | undefined;
      let stopped = false;
      const onClose = (): void => {
        stopped = true;
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      res.once('close', onClose);

      const finish = (): void => {
        event(closingChunk(plan));
        if (plan.includeUsage) event(usageChunk(plan));
        res.end('data: [DONE]\n\n', () => resolve());
      };
      const step = (): void => {
        timer = undefined;
        if (stopped) return;
        // An empty completion still announces the assistant role, as OpenAI does.
        const piece = pieces[next] ?? '';
        const ok = event(contentChunk(plan, piece, next === 0));
        if (next < pieces.length) onTokens(1);
        next += 1;
        if (next >= pieces.length) {
          finish();
          return;
        }
        const arm = (): void => {
          if (!stopped) timer = setTimeout(step, Math.max(0, dueAt(next) - performance.now()));
        };
        // Respect backpressure: a slow reader delays tokens instead of growing our buffer.
        if (ok) arm();
        else res.once('drain', arm);
      };
      timer = setTimeout(step, Math.max(0, dueAt(0) - performance.now()));
    });
  }

  const server: Server = createServer({ noDelay: true }, (req, res) => {
    const startedAt = process.hrtime.bigint();
    const ids = resolveRequestIds(req.headers);
    for (const [name, value] of Object.entries(responseIdHeaders(ids))) res.setHeader(name, value);
    // The base only lets URL parse a path; the Host header is never used.
    const path = new URL(req.url ?? '/', 'http://fake-runtime.invalid').pathname;
    const route = routes.get(path);
    const method = req.method ?? 'UNKNOWN';
    res.once('finish', () => {
      const labels = {
        service: FAKE_RUNTIME_SERVICE,
        route: route === undefined ? UNMATCHED_ROUTE : path,
        method,
      };
      service.httpRequests.inc({ ...labels, status: String(res.statusCode) });
      service.httpDuration.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
    });
    if (route === undefined) {
      req.resume();
      sendError(
        res,
        new HttpFailure(
          404,
          { message: `no route for ${path}`, type: 'not_found_error', code: 'not_found', param: null },
          'invalid',
        ),
      );
      return;
    }
    if (!route.methods.includes(method)) {
      req.resume();
      sendError(
        res,
        new HttpFailure(
          405,
          {
            message: `${path} accepts ${route.methods.join(', ')}`,
            type: 'invalid_request_error',
            code: 'method_not_allowed',
            param: null,
          },
          'invalid',
          { allow: route.methods.join(', ') },
        ),
      );
      return;
    }
    Promise.resolve()
      .then(() => route.handle(req, res, ids))
      .catch((error: unknown) => {
        logger.error({ err: error, request_id: ids.requestId, route: path }, 'fake runtime handler failed');
        if (!res.headersSent) {
          sendError(
            res,
            new HttpFailure(
              500,
              { message: 'internal error', type: 'server_error', code: 'internal', param: null },
              'invalid',
            ),
          );
        } else {
          res.destroy();
        }
      });
  });

  return {
    metrics,
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          readyAt = performance.now() + config.startupDelayMs;
          resolve(server.address() as AddressInfo);
        });
      });
    },
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse, ids: RequestIds) => void | Promise<void>;

function loadingFailure(): HttpFailure {
  return new HttpFailure(
    503,
    { message: 'the model is still loading', type: 'server_error', code: 'model_loading', param: null },
    'loading',
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function sendError(res: ServerResponse, failure: HttpFailure): void {
  if (res.headersSent || res.destroyed) return;
  sendJson(res, failure.status, { error: failure.error }, failure.headers);
}

/**
 * Reads the body with a size limit. Past the limit the rest is drained and
 * dropped (not destroyed), so the 413 still reaches a client that is sending.
 */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    let tooBig = Number.isFinite(declared) && declared > MAX_BODY_BYTES;
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_BODY_BYTES) tooBig = true;
      if (!tooBig) chunks.push(chunk);
    });
    req.once('error', () => reject(cancelledBody()));
    req.once('close', () => {
      if (!req.complete) reject(cancelledBody());
    });
    req.once('end', () => {
      if (tooBig) {
        reject(tooLarge());
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(chunks, received).toString('utf8')) as unknown);
      } catch {
        // The parser's message quotes the body; say what is wrong, not what was sent.
        reject(invalid('request body is not valid JSON'));
      }
    });
  });
}

function cancelledBody(): HttpFailure {
  return new HttpFailure(
    400,
    {
      message: 'the client aborted the request body',
      type: 'invalid_request_error',
      code: 'cancelled',
      param: null,
    },
    'cancelled',
  );
}

function tooLarge(): HttpFailure {
  return new HttpFailure(
    413,
    {
      message: `request body exceeds ${MAX_BODY_BYTES} bytes`,
      type: 'invalid_request_error',
      code: 'payload_too_large',
      param: null,
    },
    'invalid',
  );
}

/**
 * `ignore_eos` is the serving runtimes' extension (vLLM, SGLang, llama.cpp)
 * benchmarks use to get long answers; it is not OpenAI's, so it is taken off
 * before the OpenAI schema judges the rest.
 */
function parseInference(route: string, body: unknown): Inference {
  let ignoreEos = false;
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'ignore_eos' in body) {
    const { ignore_eos: flag, ...rest } = body as Record<string, unknown>;
    if (typeof flag !== 'boolean' && flag !== null)
      throw invalid('ignore_eos must be a boolean', 'ignore_eos');
    ignoreEos = flag === true;
    body = rest;
  }
  if (route === CHAT_PATH) {
    const result = OpenAiChatRequestSchema.safeParse(body);
    if (result.success) return { kind: 'chat', request: result.data, ignoreEos };
    throw invalidFrom(result.error);
  }
  const result = OpenAiCompletionRequestSchema.safeParse(body);
  if (result.success) return { kind: 'completion', request: result.data, ignoreEos };
  throw invalidFrom(result.error);
}

/** The first problem, named by its field path; the value itself is never echoed. */
function invalidFrom(error: z.ZodError): HttpFailure {
  const issue = error.issues[0];
  if (issue === undefined) return invalid('request does not match the OpenAI schema');
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return invalid(`${[...path, key].join('.')} is not a supported field`, [...path, key].join('.'));
  }
  const param = path.join('.');
  return invalid(param === '' ? issue.message : `${param}: ${issue.message}`, param === '' ? null : param);
}

function usageOf(generation: Generation): OpenAiUsage {
  return {
    prompt_tokens: generation.promptTokens,
    completion_tokens: generation.completionTokens,
    total_tokens: generation.promptTokens + generation.completionTokens,
  };
}

function chatResponse(plan: Plan): OpenAiChatResponse {
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: plan.generation.text },
        finish_reason: plan.generation.finishReason,
        logprobs: null,
      },
    ],
    usage: usageOf(plan.generation),
  };
}

function completionResponse(plan: Plan): OpenAiCompletionResponse {
  return {
    id: plan.id,
    object: 'text_completion',
    created: plan.created,
    model: plan.model,
    choices: [
      { index: 0, text: plan.generation.text, finish_reason: plan.generation.finishReason, logprobs: null },
    ],
    usage: usageOf(plan.generation),
  };
}

function chunkBase(plan: Plan) {
  return { id: plan.id, created: plan.created, model: plan.model };
}

/** With `include_usage`, OpenAI puts `usage: null` on every chunk before the usage chunk. */
function usageMember(plan: Plan): { usage?: null } {
  return plan.includeUsage ? { usage: null } : {};
}

function contentChunk(plan: Plan, piece: string, first: boolean): OpenAiChatChunk | OpenAiCompletionChunk {
  if (plan.kind === 'chat') {
    return {
      ...chunkBase(plan),
      object: 'chat.completion.chunk',
      choices: [
        {
          index: 0,
          delta: first ? { role: 'assistant', content: piece } : { content: piece },
          finish_reason: null,
          logprobs: null,
        },
      ],
      ...usageMember(plan),
    };
  }
  return {
    ...chunkBase(plan),
    object: 'text_completion',
    choices: [{ index: 0, text: piece, finish_reason: null, logprobs: null }],
    ...usageMember(plan),
  };
}

function closingChunk(plan: Plan): OpenAiChatChunk | OpenAiCompletionChunk {
  const finishReason = plan.generation.finishReason;
  if (plan.kind === 'chat') {
    return {
      ...chunkBase(plan),
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: {}, finish_reason: finishReason, logprobs: null }],
      ...usageMember(plan),
    };
  }
  return {
    ...chunkBase(plan),
    object: 'text_completion',
    choices: [{ index: 0, text: '', finish_reason: finishReason, logprobs: null }],
    ...usageMember(plan),
  };
}

function usageChunk(plan: Plan): OpenAiChatChunk | OpenAiCompletionChunk {
  const usage = usageOf(plan.generation);
  return plan.kind === 'chat'
    ? { ...chunkBase(plan), object: 'chat.completion.chunk', choices: [], usage }
    : { ...chunkBase(plan), object: 'text_completion', choices: [], usage };
}
