import { ErrorCode } from '@lunanexa/contracts';
import { z } from 'zod';
import { CliError, CliErrorCode } from './errors';

/**
 * Server-sent events as the gateway writes them, read incrementally: bytes
 * arrive in arbitrary pieces (an event, a line, even a CRLF pair can be split
 * across reads), so the parser keeps the unfinished tail between pushes.
 * Follows the WHATWG event-stream rules the CLI needs: CR, LF and CRLF line
 * ends; several `data:` lines joined with "\n"; comments and other fields
 * ignored; an event is dispatched at its blank line and an unterminated one
 * at end of stream is dropped.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];

  /** Feeds decoded text; returns the data of every event this text completed. */
  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
      if (end < 0) break;
      // A CR at the very end may be the first half of a CRLF: wait for the next piece.
      if (end === cr && cr === this.buffer.length - 1) break;
      const line = this.buffer.slice(start, end);
      start = end === cr && this.buffer[cr + 1] === '\n' ? cr + 2 : end + 1;
      const event = this.line(line);
      if (event !== undefined) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /**
   * End of stream. Only a CR held back as a possible half of CRLF can still
   * complete an event; anything else unfinished is dropped.
   */
  end(): string[] {
    const held = this.buffer;
    this.buffer = '';
    if (!held.endsWith('\r')) return [];
    const event = this.line(held.slice(0, -1));
    return event === undefined ? [] : [event];
  }

  private line(line: string): string | undefined {
    if (line === '') {
      if (this.data.length === 0) return undefined;
      const event = this.data.join('\n');
      this.data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return undefined;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    this.data.push(value.startsWith(' ') ? value.slice(1) : value);
    return undefined;
  }
}

/** Token counts, named as in the generic contract whichever dialect sent them. */
export interface StreamUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** One decoded `data:` payload. */
export type StreamEvent =
  | {
      readonly kind: 'chunk';
      /** Text of choice 0 in this chunk (often one token; may be empty). */
      readonly text: string;
      readonly model: string | null;
      readonly finishReason: string | null;
      readonly usage: StreamUsage | null;
      /** The chunk that ends a successful stream (generic dialect: the one carrying usage). */
      readonly final: boolean;
      readonly sequence: number | null;
    }
  /** OpenAI's `[DONE]` sentinel. */
  | { readonly kind: 'done' };

export type StreamDialect = 'openai' | 'generic';

/*
 * Chunk shapes, read tolerantly: members a newer gateway adds are ignored,
 * only what the CLI prints is required.
 */
const OpenAiChunkSchema = z.object({
  model: z.string().optional(),
  choices: z.array(
    z.object({
      index: z.number(),
      delta: z.object({ content: z.string().nullable().optional() }).optional(),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
  usage: z
    .object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
    .nullable()
    .optional(),
});
const OpenAiErrorChunkSchema = z.object({
  error: z.object({ message: z.string(), code: z.string().nullable().optional() }),
});
const GenericDeltaSchema = z.object({
  type: z.literal('delta'),
  sequence: z.number(),
  servedBy: z.object({ model: z.string() }),
  choices: z.array(z.object({ index: z.number(), delta: z.string(), finishReason: z.string().nullable() })),
  usage: z
    .object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() })
    .nullable(),
});
const GenericErrorSchema = z.object({
  type: z.literal('error'),
  error: z.object({ code: z.string(), message: z.string() }),
});

function badChunk(data: string, why: string, requestId: string): CliError {
  const shown = data.length > 120 ? `${data.slice(0, 120)}…` : data;
  return new CliError(
    { code: CliErrorCode.BAD_RESPONSE, message: `stream chunk ${why}: ${shown}` },
    requestId,
  );
}

/**
 * OpenAI error chunks carry the LunaNexa code lower-cased (the OpenAI
 * convention); the CLI prints and maps the contract's upper-case code.
 */
function errorCodeOf(code: string | null | undefined): string {
  const upper = (code ?? '').toUpperCase();
  return upper === '' ? ErrorCode.UPSTREAM_FAILED : upper;
}

/**
 * Decodes one payload. An error chunk (the gateway's way to fail after the
 * status line has gone) throws a CliError with the code it carries.
 */
export function decodeStreamData(dialect: StreamDialect, data: string, requestId: string): StreamEvent {
  if (dialect === 'openai' && data === '[DONE]') return { kind: 'done' };
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    throw badChunk(data, 'is not JSON', requestId);
  }
  if (dialect === 'openai') {
    const failure = OpenAiErrorChunkSchema.safeParse(body);
    if (failure.success) {
      throw new CliError(
        { code: errorCodeOf(failure.data.error.code), message: failure.data.error.message },
        requestId,
      );
    }
    const chunk = OpenAiChunkSchema.safeParse(body);
    if (!chunk.success) throw badChunk(data, 'is not a chat completion chunk', requestId);
    const choice = chunk.data.choices.find((candidate) => candidate.index === 0);
    const usage = chunk.data.usage ?? null;
    return {
      kind: 'chunk',
      text: choice?.delta?.content ?? '',
      model: chunk.data.model ?? null,
      finishReason: choice?.finish_reason ?? null,
      usage:
        usage === null
          ? null
          : {
              promptTokens: usage.prompt_tokens,
              completionTokens: usage.completion_tokens,
              totalTokens: usage.total_tokens,
            },
      final: false,
      sequence: null,
    };
  }
  const failure = GenericErrorSchema.safeParse(body);
  if (failure.success) {
    throw new CliError({ code: failure.data.error.code, message: failure.data.error.message }, requestId);
  }
  const chunk = GenericDeltaSchema.safeParse(body);
  if (!chunk.success) throw badChunk(data, 'is not a workload stream chunk', requestId);
  const choice = chunk.data.choices.find((candidate) => candidate.index === 0);
  return {
    kind: 'chunk',
    text: choice?.delta ?? '',
    model: chunk.data.servedBy.model,
    finishReason: choice?.finishReason ?? null,
    usage: chunk.data.usage,
    final: chunk.data.usage !== null,
    sequence: chunk.data.sequence,
  };
}
