import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  type DataClass,
  DataClassSchema,
  DEFAULT_ROUTING_POLICY,
  ErrorCode,
  type FieldViolation,
  LUNANEXA_HEADERS,
  LunaNexaError,
  MAX_DEADLINE_MS,
  OpenAiChatChunkSchema,
  OpenAiChatRequestSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionChunkSchema,
  OpenAiCompletionRequestSchema,
  OpenAiCompletionResponseSchema,
  type OpenAiRequestContext,
  type ServedBy,
  type WorkloadDeltaChunk,
  type WorkloadErrorChunk,
  type WorkloadRequest,
  WorkloadPrioritySchema,
  type WorkloadResponse,
  WorkloadRequestSchema,
  type WorkloadState,
  API_VERSION,
  isOpaqueId,
  openAiChatChunkToWorkload,
  openAiChatRequestToWorkload,
  openAiChatResponseToWorkload,
  openAiCompletionChunkToWorkload,
  openAiCompletionRequestToWorkload,
  openAiCompletionResponseToWorkload,
  openAiErrorFromProblem,
  unixSeconds,
  workloadChunkToOpenAiChat,
  workloadChunkToOpenAiCompletion,
  workloadResponseToOpenAiChat,
  workloadResponseToOpenAiCompletion,
  workloadToOpenAiChatRequest,
  workloadToOpenAiCompletionRequest,
} from '@lunanexa/contracts';
import {
  chatPrefixHash,
  completionPrefixHash,
  isTerminal,
  policyHashesPrefix,
  priorityRank,
  transition,
  type WorkloadEvent,
  workloadLifecycle,
} from '@lunanexa/domain';
import type { RequestIds } from '@lunanexa/observability';
import type { AdmissionController, Slot } from './admission';
import {
  OpenAiStreamWriter,
  openAiCompletionJson,
  readUpstreamChunk,
  readUpstreamCompletion,
} from './openai-stream';
import { sendJson, sendJsonText, validate } from './http';
import type { GatewayMetrics } from './metrics';
import type { Route, RouteEndpoint, RouteTable } from './route-table';
import { RetryLaterError } from './tenant-quotas';
import {
  MAX_UPSTREAM_BODY_BYTES,
  SseParser,
  type UpstreamClient,
  type UpstreamResponse,
  readUpstreamText,
} from './upstream';

/** Which wire format the client spoke; responses and errors answer in the same one. */
export type Dialect = 'generic' | 'openai';

export interface PreparedWorkload {
  readonly request: WorkloadRequest;
  readonly dialect: Dialect;
  /** OpenAI `stream_options.include_usage`; generic streams always end with usage. */
  readonly includeUsage: boolean;
}

/**
 * A workload's progress through the contract lifecycle. Every step goes
 * through the domain state machine, so the gateway cannot, say, retry after
 * the first byte without the transition table refusing it.
 */
export class WorkloadTracker {
  state: WorkloadState = 'Received';
  /** What the request record keeps (metadata only), filled in as the workload progresses. */
  modelRef: string | null = null;
  deploymentId: string | null = null;
  firstByteAt: bigint | null = null;
  promptTokens: number | null = null;
  completionTokens: number | null = null;
  /** The code a stream ended with after its first byte (earlier failures are thrown). */
  errorCode: string | null = null;
  /** The route's routing policy, the replica it chose (base URL) and why; null until a replica was chosen. */
  routingPolicy: string | null = null;
  routedTo: string | null = null;
  routingReason: string | null = null;
  /** Milliseconds between admission and a slot: 0 when granted at once; null when it never got one. */
  queueWaitMs: number | null = null;
  /**
   * The generated text, collected only when the tenant's data policy keeps
   * this request's payload (see payload-capture.ts); null means "do not
   * collect", which is every request under the default policy.
   */
  completionText: string[] | null = null;

  apply(event: WorkloadEvent): void {
    this.state = transition(workloadLifecycle, this.state, event);
  }

  get finished(): boolean {
    return isTerminal(workloadLifecycle, this.state);
  }
}

export function prepareGenericWorkload(body: unknown): PreparedWorkload {
  return {
    request: validate(WorkloadRequestSchema, body, 'workload request'),
    dialect: 'generic',
    includeUsage: true,
  };
}

export function prepareOpenAiChat(
  body: unknown,
  headers: IncomingHttpHeaders,
  defaultDataClass: DataClass,
): PreparedWorkload {
  const parsed = validate(OpenAiChatRequestSchema, body, 'chat completion request');
  return {
    request: openAiChatRequestToWorkload(parsed, contextFromHeaders(headers, defaultDataClass)),
    dialect: 'openai',
    includeUsage: parsed.stream_options?.include_usage ?? false,
  };
}

export function prepareOpenAiCompletion(
  body: unknown,
  headers: IncomingHttpHeaders,
  defaultDataClass: DataClass,
): PreparedWorkload {
  const parsed = validate(OpenAiCompletionRequestSchema, body, 'completion request');
  return {
    request: openAiCompletionRequestToWorkload(parsed, contextFromHeaders(headers, defaultDataClass)),
    dialect: 'openai',
    includeUsage: parsed.stream_options?.include_usage ?? false,
  };
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** LunaNexa parameters of an OpenAI-dialect request, from LUNANEXA_HEADERS; bad values are violations, not ignored. */
export function contextFromHeaders(
  headers: IncomingHttpHeaders,
  defaultDataClass: DataClass,
): OpenAiRequestContext {
  const violations: FieldViolation[] = [];
  const rawClass = headerValue(headers, LUNANEXA_HEADERS.dataClass);
  const dataClass = rawClass === undefined ? defaultDataClass : DataClassSchema.safeParse(rawClass).data;
  if (dataClass === undefined)
    violations.push({
      path: LUNANEXA_HEADERS.dataClass,
      message: 'must be one of public, internal, confidential, restricted',
    });
  const rawPriority = headerValue(headers, LUNANEXA_HEADERS.priority);
  const priority = rawPriority === undefined ? undefined : WorkloadPrioritySchema.safeParse(rawPriority).data;
  if (rawPriority !== undefined && priority === undefined)
    violations.push({ path: LUNANEXA_HEADERS.priority, message: 'must be low, normal or high' });
  const rawDeadline = headerValue(headers, LUNANEXA_HEADERS.deadlineMs);
  const deadlineMs =
    rawDeadline !== undefined && /^\d{1,7}$/.test(rawDeadline) ? Number(rawDeadline) : undefined;
  if (rawDeadline !== undefined && deadlineMs === undefined)
    violations.push({
      path: LUNANEXA_HEADERS.deadlineMs,
      message: 'must be an integer number of milliseconds',
    });
  const correlation: { tenantId?: string; workloadId?: string } = {};
  for (const key of ['tenantId', 'workloadId'] as const) {
    const raw = headerValue(headers, LUNANEXA_HEADERS[key]);
    if (raw === undefined) continue;
    if (isOpaqueId(raw)) correlation[key] = raw;
    else
      violations.push({
        path: LUNANEXA_HEADERS[key],
        message: 'must be an opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}',
      });
  }
  if (violations.length > 0 || dataClass === undefined) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'LunaNexa request headers are invalid', violations);
  }
  return {
    dataClass,
    ...(priority !== undefined ? { priority } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    correlation,
  };
}

export interface WorkloadDeps {
  readonly routes: RouteTable;
  readonly upstream: UpstreamClient;
  readonly clock: () => Date;
  readonly metrics: GatewayMetrics;
  readonly admission: AdmissionController;
}

interface Exchange {
  readonly deps: WorkloadDeps;
  readonly prepared: PreparedWorkload;
  readonly ids: RequestIds;
  readonly res: ServerResponse;
  readonly track: WorkloadTracker;
  readonly route: Route;
  readonly servedBy: ServedBy;
  readonly createdAt: string;
  readonly receivedAt: bigint;
  readonly signal: AbortSignal;
}

type Attempt =
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly error: LunaNexaError; readonly retryable: boolean };

const DONE: Attempt = { kind: 'done' };

function failed(error: LunaNexaError, retryable: boolean): Attempt {
  return { kind: 'failed', error, retryable };
}

function upstreamPath(request: WorkloadRequest): string {
  return request.kind === 'chat' ? '/v1/chat/completions' : '/v1/completions';
}

function upstreamBody(request: WorkloadRequest, endpoint: RouteEndpoint): unknown {
  return request.kind === 'chat'
    ? workloadToOpenAiChatRequest(request, endpoint.servedModel)
    : workloadToOpenAiCompletionRequest(request, endpoint.servedModel);
}

/** A name with no ready replica: replacements turn Ready in seconds, and routes refresh every second. */
const NO_READY_REPLICA_RETRY_SECONDS = 2;

/**
 * Resolves, admits and dispatches one workload, answering the client in its
 * dialect. Failures before the first byte throw (the caller turns them into
 * a problem response) after trying the next ready replica where that is
 * safe; failures after the first byte end the stream with an error event,
 * because the status line has already gone.
 */
export async function runWorkload(
  deps: WorkloadDeps,
  prepared: PreparedWorkload,
  ids: RequestIds,
  res: ServerResponse,
  track: WorkloadTracker,
  receivedAt: bigint,
  tenantDataClass?: DataClass,
): Promise<void> {
  const { request } = prepared;
  const name = 'alias' in request.target ? request.target.alias : request.target.model;
  const route = deps.routes.lookup(name);
  if (route === undefined) {
    track.apply('reject');
    // Without a current snapshot a missing name proves nothing (a gateway process that just started, or lost
    // PostgreSQL): 404 would tell the client the model does not exist; 503 tells it to try again.
    if (!deps.routes.ready()) {
      throw new LunaNexaError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        `The route table is not loaded yet, so whether "${name}" exists is not known; retry.`,
      );
    }
    if (deps.routes.unavailable(name)) {
      throw new RetryLaterError(
        ErrorCode.NO_CAPACITY,
        `"${name}" has no replica ready to take a request right now; retry after ${NO_READY_REPLICA_RETRY_SECONDS} s.`,
        NO_READY_REPLICA_RETRY_SECONDS,
        'no-ready-replica',
      );
    }
    throw new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `No model or alias named "${name}".`);
  }
  if (!route.allowedDataClasses.includes(request.dataClass)) {
    track.apply('reject');
    throw new LunaNexaError(
      ErrorCode.DATA_CLASS_NOT_ALLOWED,
      `The license of ${route.modelVersion} does not allow ${request.dataClass} data.`,
    );
  }
  // The tenant's data policy names the class of everything it sends, whatever a request declares.
  if (tenantDataClass !== undefined && !route.allowedDataClasses.includes(tenantDataClass)) {
    track.apply('reject');
    throw new LunaNexaError(
      ErrorCode.DATA_CLASS_NOT_ALLOWED,
      `The license of ${route.modelVersion} does not allow ${tenantDataClass} data, the data class of this tenant.`,
    );
  }
  if (route.endpoints.length === 0) {
    track.apply('reject');
    throw new LunaNexaError(ErrorCode.NO_CAPACITY, `${route.modelVersion} has no ready replica.`);
  }

  const deadlineMs = request.deadlineMs ?? MAX_DEADLINE_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(
      new LunaNexaError(ErrorCode.DEADLINE_EXCEEDED, `Deadline of ${deadlineMs} ms exceeded.`),
    );
  }, deadlineMs);
  const onClose = (): void => {
    if (!res.writableFinished)
      controller.abort(new LunaNexaError(ErrorCode.CANCELLED, 'The client closed the connection.'));
  };
  res.on('close', onClose);
  let slot: Slot | undefined;
  try {
    let admission;
    try {
      admission = deps.admission.admit(
        route,
        {
          rank: priorityRank(request.priority),
          tenant: request.correlation.tenantId ?? '',
          // Hashed only for a prefix-affinity route: every other policy pays nothing for it.
          ...(policyHashesPrefix(route.routingPolicy ?? DEFAULT_ROUTING_POLICY) && {
            prefixHash: prefixHashOf(request),
          }),
        },
        controller.signal,
      );
    } catch (error: unknown) {
      track.apply('reject');
      throw error;
    }
    track.apply('admit');
    track.modelRef = route.modelVersion;
    track.deploymentId = route.deploymentId;
    if (admission.kind === 'granted') {
      slot = admission.slot;
      track.queueWaitMs = 0;
    } else {
      track.apply('enqueue');
      const queuedAt = process.hrtime.bigint();
      try {
        slot = await admission.slot;
        track.queueWaitMs = Number(process.hrtime.bigint() - queuedAt) / 1e6;
      } catch (error: unknown) {
        // Shed for a more urgent request, or no room within the longest wait: still before any byte.
        if (!controller.signal.aborted) track.apply('shed');
        throw error;
      }
    }
    const exchange: Exchange = {
      deps,
      prepared,
      ids,
      res,
      track,
      route,
      servedBy: { model: route.modelVersion, alias: route.alias, deploymentId: route.deploymentId },
      createdAt: deps.clock().toISOString(),
      receivedAt,
      signal: controller.signal,
    };
    const tried = new Set<RouteEndpoint>();
    // Created only when an attempt fails: an Error's stack trace costs more than a whole relayed request.
    let lastError: LunaNexaError | undefined;
    for (let attempt = 0; slot !== undefined; attempt += 1) {
      const { endpoint } = slot;
      if (attempt > 0) track.apply('retry');
      track.apply('dispatch');
      tried.add(endpoint);
      track.routingPolicy = route.routingPolicy ?? DEFAULT_ROUTING_POLICY;
      track.routedTo = endpoint.baseUrl;
      track.routingReason = slot.reason;
      track.deploymentId = endpoint.deploymentId ?? route.deploymentId;
      const outcome = await attemptEndpoint(
        endpoint.deploymentId === undefined
          ? exchange
          : { ...exchange, servedBy: { ...exchange.servedBy, deploymentId: endpoint.deploymentId } },
        endpoint,
      );
      if (outcome.kind === 'done') return;
      lastError = outcome.error;
      slot.release();
      // Failover only to a replica with room now: a retry never jumps a queue.
      slot = outcome.retryable
        ? deps.admission.tryAnother(route, tried, request.correlation.tenantId ?? '')
        : undefined;
    }
    track.apply('fail');
    throw lastError ?? new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'No replica answered.');
  } catch (error: unknown) {
    if (controller.signal.aborted && !track.finished) {
      const reason = controller.signal.reason as LunaNexaError;
      track.apply(reason.code === ErrorCode.DEADLINE_EXCEEDED ? 'timeout' : 'cancel');
      throw reason;
    }
    throw error;
  } finally {
    slot?.release();
    clearTimeout(timer);
    res.off('close', onClose);
  }
}

function prefixHashOf(request: WorkloadRequest): number {
  return request.kind === 'chat' ? chatPrefixHash(request.messages) : completionPrefixHash(request.prompt);
}

async function attemptEndpoint(exchange: Exchange, endpoint: RouteEndpoint): Promise<Attempt> {
  const { deps, prepared, signal } = exchange;
  let upstream: UpstreamResponse;
  try {
    upstream = await deps.upstream.post(
      endpoint,
      upstreamPath(prepared.request),
      upstreamBody(prepared.request, endpoint),
      signal,
    );
  } catch {
    if (signal.aborted) throw signal.reason;
    return failed(new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica could not be reached.'), true);
  }
  const status = upstream.statusCode;
  if (status !== 200) {
    const text = await readUpstreamText(upstream.body, 65_536).catch(() => '');
    // A runtime's 4xx is about the request (too long for the context, bad parameter): another replica would say the same.
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      return failed(
        new LunaNexaError(
          ErrorCode.VALIDATION_FAILED,
          `The runtime refused the request: ${upstreamMessage(text)}`,
        ),
        false,
      );
    }
    return failed(new LunaNexaError(ErrorCode.UPSTREAM_FAILED, `A replica answered HTTP ${status}.`), true);
  }
  return prepared.request.stream ? pumpStream(exchange, upstream) : relayResponse(exchange, upstream);
}

/** The message of an OpenAI-style or vLLM-style error body, bounded; never the whole body. */
function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
    const message = body.error?.message ?? body.message;
    if (typeof message === 'string' && message.length > 0) return message.slice(0, 512);
  } catch {
    // Not JSON: fall through to the generic wording.
  }
  return 'no reason given';
}

async function relayResponse(exchange: Exchange, upstream: UpstreamResponse): Promise<Attempt> {
  const { prepared, res, signal } = exchange;
  let text: string;
  try {
    text = await readUpstreamText(upstream.body, MAX_UPSTREAM_BODY_BYTES);
  } catch {
    if (signal.aborted) throw signal.reason;
    return failed(new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica broke off its response.'), true);
  }
  const invalid = () =>
    failed(
      new LunaNexaError(
        ErrorCode.UPSTREAM_FAILED,
        'A replica returned a response that is not a valid completion.',
      ),
      true,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalid();
  }
  const relayed =
    prepared.dialect === 'openai' ? readUpstreamCompletion(prepared.request.kind, body) : undefined;
  if (relayed !== undefined) {
    settleCompletion(exchange, relayed.choices, relayed.usage);
    sendJsonText(
      res,
      200,
      openAiCompletionJson(
        prepared.request.kind,
        exchange.ids.requestId,
        unixSeconds(exchange.createdAt),
        exchange.servedBy.model,
        relayed,
      ),
    );
    return DONE;
  }
  let response: WorkloadResponse;
  try {
    response = { ...mapUpstreamResponse(exchange, body), createdAt: exchange.createdAt };
  } catch {
    return invalid();
  }
  settleCompletion(exchange, response.choices, response.usage);
  if (prepared.dialect === 'generic') sendJson(res, 200, response);
  else if (prepared.request.kind === 'chat') sendJson(res, 200, workloadResponseToOpenAiChat(response));
  else sendJson(res, 200, workloadResponseToOpenAiCompletion(response));
  return DONE;
}

/** What the request record and the quota learn from a whole completion. */
function settleCompletion(
  exchange: Exchange,
  choices: readonly { readonly text: string }[],
  usage: { readonly promptTokens: number; readonly completionTokens: number },
): void {
  const { track, prepared } = exchange;
  track.apply('complete');
  if (track.completionText !== null) for (const choice of choices) track.completionText.push(choice.text);
  track.firstByteAt = process.hrtime.bigint();
  track.promptTokens = usage.promptTokens;
  track.completionTokens = usage.completionTokens;
  exchange.deps.metrics.timeToFirstByte.observe(
    { kind: prepared.request.kind },
    secondsSince(exchange.receivedAt),
  );
}

function mapUpstreamResponse(exchange: Exchange, body: unknown): WorkloadResponse {
  const context = {
    id: exchange.ids.requestId,
    servedBy: exchange.servedBy,
    correlation: exchange.prepared.request.correlation,
  };
  return exchange.prepared.request.kind === 'chat'
    ? openAiChatResponseToWorkload(OpenAiChatResponseSchema.parse(body), context)
    : openAiCompletionResponseToWorkload(OpenAiCompletionResponseSchema.parse(body), context);
}

function mapUpstreamChunk(exchange: Exchange, body: unknown, sequence: number): WorkloadDeltaChunk {
  const context = { id: exchange.ids.requestId, sequence, servedBy: exchange.servedBy };
  return exchange.prepared.request.kind === 'chat'
    ? openAiChatChunkToWorkload(OpenAiChatChunkSchema.parse(body), context)
    : openAiCompletionChunkToWorkload(OpenAiCompletionChunkSchema.parse(body), context);
}

function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function uncork(res: ServerResponse): void {
  res.uncork();
}

async function pumpStream(exchange: Exchange, upstream: UpstreamResponse): Promise<Attempt> {
  const { prepared, res, track, signal } = exchange;
  const parser = new SseParser();
  const created = unixSeconds(exchange.createdAt);
  let sequence = 0;
  let committed = false;
  let done = false;

  const writer =
    prepared.dialect === 'openai'
      ? new OpenAiStreamWriter(
          prepared.request.kind,
          exchange.ids.requestId,
          created,
          exchange.servedBy.model,
          prepared.includeUsage,
        )
      : undefined;

  const commit = (): void => {
    if (!committed) {
      committed = true;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        // Reverse proxies must not buffer a token stream.
        'x-accel-buffering': 'no',
      });
      track.apply('firstByte');
      track.firstByteAt = process.hrtime.bigint();
      exchange.deps.metrics.timeToFirstByte.observe(
        { kind: prepared.request.kind },
        secondsSince(exchange.receivedAt),
      );
    }
  };

  const write = (chunk: WorkloadDeltaChunk): void => {
    commit();
    if (prepared.dialect === 'generic') {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      return;
    }
    const options = { created, includeUsage: prepared.includeUsage };
    const chunks =
      prepared.request.kind === 'chat'
        ? workloadChunkToOpenAiChat(chunk, options)
        : workloadChunkToOpenAiCompletion(chunk, options);
    for (const openAiChunk of chunks) res.write(`data: ${JSON.stringify(openAiChunk)}\n\n`);
  };

  const endWithError = (error: LunaNexaError, event: WorkloadEvent): Attempt => {
    track.apply(event);
    track.errorCode = error.code;
    if (!res.destroyed) {
      if (prepared.dialect === 'generic') {
        const chunk: WorkloadErrorChunk = {
          apiVersion: API_VERSION,
          type: 'error',
          id: exchange.ids.requestId,
          sequence,
          error: { code: error.code, message: error.message },
        };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      } else {
        // OpenAI SDKs raise on a chunk carrying `error`; there is deliberately no [DONE] after it.
        res.write(`data: ${JSON.stringify({ error: openAiErrorFromProblem(error.toProblem()) })}\n\n`);
      }
      res.end();
    }
    return DONE;
  };

  try {
    for await (const bytes of upstream.body as AsyncIterable<Buffer>) {
      // Everything this read produced leaves in one write: a syscall per event would cost more than the event.
      res.cork();
      process.nextTick(uncork, res);
      for (const data of parser.push(bytes)) {
        // Keep reading to the end after [DONE] so the upstream connection can be reused.
        if (done) continue;
        if (data === '[DONE]') {
          done = true;
          continue;
        }
        const body = JSON.parse(data) as unknown;
        const relayed = writer === undefined ? undefined : readUpstreamChunk(prepared.request.kind, body);
        if (writer !== undefined && relayed !== undefined) {
          if (track.completionText !== null)
            for (const choice of relayed.choices) track.completionText.push(choice.delta);
          if (relayed.usage !== null) {
            track.promptTokens = relayed.usage.promptTokens;
            track.completionTokens = relayed.usage.completionTokens;
          }
          commit();
          const events = writer.events(relayed, sequence);
          sequence += 1;
          if (events !== '') res.write(events);
          continue;
        }
        const chunk = mapUpstreamChunk(exchange, body, sequence);
        sequence += 1;
        if (track.completionText !== null)
          for (const choice of chunk.choices) track.completionText.push(choice.delta);
        if (chunk.usage) {
          track.promptTokens = chunk.usage.promptTokens;
          track.completionTokens = chunk.usage.completionTokens;
        }
        write(chunk);
      }
    }
  } catch (error: unknown) {
    if (signal.aborted) {
      const reason = signal.reason as LunaNexaError;
      if (!committed) throw reason;
      return endWithError(reason, reason.code === ErrorCode.DEADLINE_EXCEEDED ? 'timeout' : 'cancel');
    }
    const problem =
      error instanceof LunaNexaError
        ? error
        : new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica sent an invalid stream.');
    if (!committed) return failed(problem, true);
    return endWithError(problem, 'fail');
  }
  if (!done) {
    const broken = new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica ended its stream early.');
    if (!committed) return failed(broken, true);
    return endWithError(broken, 'fail');
  }
  if (!committed)
    return failed(new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica sent an empty stream.'), true);
  if (prepared.dialect === 'openai') res.write('data: [DONE]\n\n');
  res.end();
  track.apply('complete');
  return DONE;
}
