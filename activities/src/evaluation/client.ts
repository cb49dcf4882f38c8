import { performance } from 'node:perf_hooks';
import Ajv from 'ajv';
import { ErrorCode } from '@lunanexa/contracts';
import type { EvaluationMessage } from '@lunanexa/contracts';
import type { JsonSchemaCheck, RequestSample } from '@lunanexa/domain';

/**
 * The evaluation's HTTP client: OpenAI-compatible chat calls straight to a
 * replica (not through the gateway, so the figures are the runtime's own and
 * a candidate needs no alias), non-streamed for graded cases and streamed
 * for the benchmark, where time to first token is the moment the first
 * content chunk arrives.
 */

export interface ChatCall {
  /** Replica base URL, `http://address:port`. */
  readonly baseUrl: string;
  /** The deployment's served model name (its model ref). */
  readonly model: string;
  readonly messages: readonly EvaluationMessage[];
  readonly maxTokens: number;
  readonly seed: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** When given, each content chunk's arrival (ms from the request's start) is appended: the inter-token gaps. */
  readonly tokenTimesMs?: number[];
  /**
   * Sends `ignore_eos` (vLLM, SGLang and llama.cpp take it) so the answer runs to max_tokens: a long-stream
   * benchmark needs long answers whatever the model would say. OpenAI's own API does not know it.
   */
  readonly ignoreEos?: boolean;
}

export type ChatAnswer =
  | { readonly ok: true; readonly text: string; readonly latencyMs: number }
  | { readonly ok: false; readonly code: string; readonly reason: string; readonly latencyMs: number };

function body(call: ChatCall, stream: boolean): string {
  return JSON.stringify({
    model: call.model,
    messages: call.messages,
    max_tokens: call.maxTokens,
    // Greedy and seeded: the same version answers the same case the same way, run after run.
    temperature: 0,
    seed: call.seed,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    ...(call.ignoreEos === true ? { ignore_eos: true } : {}),
  });
}

function failureOf(error: unknown, call: ChatCall, timeout: AbortSignal): { code: string; reason: string } {
  if (call.signal.aborted) return { code: ErrorCode.CANCELLED, reason: 'the evaluation was cancelled' };
  if (timeout.aborted)
    return { code: ErrorCode.DEADLINE_EXCEEDED, reason: `no answer within ${call.timeoutMs} ms` };
  const message = error instanceof Error ? `${error.message}${causeText(error)}` : String(error);
  return {
    code: ErrorCode.DEPENDENCY_UNAVAILABLE,
    reason: `replica not reachable: ${message}`.slice(0, 1024),
  };
}

function causeText(error: Error): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ? ` (${cause.code})` : '';
}

async function httpFailure(response: Response): Promise<{ code: string; reason: string }> {
  const text = (await response.text().catch(() => '')).slice(0, 300);
  return { code: ErrorCode.UPSTREAM_FAILED, reason: `replica answered HTTP ${response.status}: ${text}` };
}

/** One non-streamed chat completion; failures are answers, never throws (except on programming errors). */
export async function chatOnce(call: ChatCall): Promise<ChatAnswer> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  try {
    const response = await fetch(`${call.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(call, false),
      signal: AbortSignal.any([call.signal, timeout]),
    });
    if (!response.ok) return { ok: false, ...(await httpFailure(response)), latencyMs: elapsed() };
    const json = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
    const content = json.choices?.[0]?.message?.content;
    if (typeof content !== 'string' && content !== null && content !== undefined) {
      return {
        ok: false,
        code: ErrorCode.UPSTREAM_FAILED,
        reason: 'answer has no text content',
        latencyMs: elapsed(),
      };
    }
    return { ok: true, text: typeof content === 'string' ? content : '', latencyMs: elapsed() };
  } catch (error) {
    return { ok: false, ...failureOf(error, call, timeout), latencyMs: elapsed() };
  }
}

interface StreamChunk {
  choices?: { delta?: { content?: unknown } }[];
  usage?: { completion_tokens?: unknown } | null;
  error?: unknown;
}

/**
 * One streamed chat completion, measured: TTFT is the first chunk carrying
 * content, completion tokens come from the usage chunk (counted content
 * chunks when the runtime sends none). A stream that ends without `[DONE]`,
 * carries an error event, or a non-2xx answer is an error sample.
 */
export async function chatStreamSample(call: ChatCall): Promise<RequestSample & { code: string | null }> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const started = performance.now();
  let ttftMs: number | null = null;
  let contentChunks = 0;
  let usageTokens: number | null = null;
  const sample = (ok: boolean, code: string | null) => ({
    ok,
    code,
    ttftMs,
    latencyMs: performance.now() - started,
    completionTokens: usageTokens ?? contentChunks,
  });
  try {
    const response = await fetch(`${call.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: body(call, true),
      signal: AbortSignal.any([call.signal, timeout]),
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      return sample(false, ErrorCode.UPSTREAM_FAILED);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(bytes, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data === '') continue;
        if (data === '[DONE]') return sample(true, null);
        let chunk: StreamChunk;
        try {
          chunk = JSON.parse(data) as StreamChunk;
        } catch {
          return sample(false, ErrorCode.UPSTREAM_FAILED);
        }
        if (chunk.error !== undefined) return sample(false, ErrorCode.UPSTREAM_FAILED);
        const content = chunk.choices?.[0]?.delta?.content;
        if (typeof content === 'string' && content.length > 0) {
          const at = performance.now() - started;
          ttftMs ??= at;
          contentChunks += 1;
          call.tokenTimesMs?.push(at);
        }
        const tokens = chunk.usage?.completion_tokens;
        if (typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0) usageTokens = tokens;
      }
    }
    return sample(false, ErrorCode.UPSTREAM_FAILED);
  } catch (error) {
    return sample(false, failureOf(error, call, timeout).code);
  }
}

/**
 * JSON Schema as the API accepted it at suite creation: draft-07 keywords,
 * ajv's default strict mode (an unknown keyword or format is refused, not ignored).
 */
export function jsonSchemaCheck(schema: Record<string, unknown>): JsonSchemaCheck {
  const ajv = new Ajv({ allErrors: false });
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return null;
    const first = validate.errors?.[0];
    return first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is invalid';
  };
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) {
      results[i] = await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
