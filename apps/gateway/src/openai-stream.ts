import {
  OPENAI_CHAT_ID_PREFIX,
  OPENAI_COMPLETION_ID_PREFIX,
  type FinishReason,
  type WorkloadKind,
} from '@lunanexa/contracts';

/**
 * The relay of an OpenAI-compatible runtime's stream to an OpenAI-dialect
 * client, without building the generic chunk and two OpenAI chunk objects
 * per token: an upstream event is parsed once, checked by hand for the
 * members the gateway relies on, and written with a precomputed prefix.
 * The output is byte for byte what JSON.stringify of
 * workloadChunkToOpenAi{Chat,Completion}(openAi…ChunkToWorkload(…)) gives —
 * the spec checks this on every shape — and anything this does not
 * recognise (a finish reason v1 does not support, a malformed member) is
 * left to that reference path, which refuses it the same way as before.
 */

/** One choice of an upstream chunk, as the relay needs it. */
export interface RelayedChoice {
  readonly index: number;
  readonly delta: string;
  readonly finishReason: FinishReason | null;
}

export interface RelayedChunk {
  readonly choices: readonly RelayedChoice[];
  readonly usage: {
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly totalTokens: number;
  } | null;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

function finishReasonOf(value: unknown): FinishReason | null | undefined {
  if (value === null || value === 'stop' || value === 'length') return value;
  return undefined;
}

/** The members every OpenAI chunk and response carries, checked by hand; null when one is off. */
function openAiObject(body: unknown, object: string): Record<string, unknown> | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = body as Record<string, unknown>;
  const plain =
    typeof value['id'] === 'string' &&
    value['id'] !== '' &&
    value['object'] === object &&
    isCount(value['created']) &&
    typeof value['model'] === 'string' &&
    value['model'] !== '';
  return plain ? value : null;
}

type Usage = { promptTokens: number; completionTokens: number; totalTokens: number };

/** A usage member with consistent totals; undefined otherwise (the reference path refuses inconsistent totals). */
function usageOf(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const prompt = usage['prompt_tokens'];
  const completion = usage['completion_tokens'];
  const total = usage['total_tokens'];
  if (!isCount(prompt) || !isCount(completion) || !isCount(total) || total !== prompt + completion)
    return undefined;
  return { promptTokens: prompt, completionTokens: completion, totalTokens: total };
}

/** The chunk's choices and usage, or undefined when it is not the plain shape (left to the reference path). */
export function readUpstreamChunk(kind: WorkloadKind, body: unknown): RelayedChunk | undefined {
  const chunk = openAiObject(body, kind === 'chat' ? 'chat.completion.chunk' : 'text_completion');
  if (chunk === null) return undefined;
  const rawChoices = chunk['choices'];
  if (!Array.isArray(rawChoices)) return undefined;
  const choices: RelayedChoice[] = [];
  for (const raw of rawChoices as unknown[]) {
    if (typeof raw !== 'object' || raw === null) return undefined;
    const choice = raw as Record<string, unknown>;
    if (!isCount(choice['index'])) return undefined;
    if (choice['logprobs'] !== undefined && choice['logprobs'] !== null) return undefined;
    const finishReason = finishReasonOf(choice['finish_reason']);
    if (finishReason === undefined) return undefined;
    let delta: string;
    if (kind === 'chat') {
      const message = choice['delta'];
      if (typeof message !== 'object' || message === null) return undefined;
      const { role, content } = message as Record<string, unknown>;
      if (role !== undefined && role !== 'assistant') return undefined;
      if (content !== undefined && content !== null && typeof content !== 'string') return undefined;
      delta = typeof content === 'string' ? content : '';
    } else {
      const text = choice['text'];
      if (typeof text !== 'string') return undefined;
      delta = text;
    }
    choices.push({ index: choice['index'], delta, finishReason });
  }
  const rawUsage = chunk['usage'];
  if (rawUsage === undefined || rawUsage === null) return { choices, usage: null };
  const usage = usageOf(rawUsage);
  return usage === undefined ? undefined : { choices, usage };
}

/** Writes one relayed stream's events; one per request, holding the parts every event shares. */
export class OpenAiStreamWriter {
  private readonly head: string;
  private readonly usageHead: string;
  private readonly tail: string;

  constructor(
    private readonly kind: WorkloadKind,
    requestId: string,
    created: number,
    model: string,
    private readonly includeUsage: boolean,
  ) {
    const id = `${kind === 'chat' ? OPENAI_CHAT_ID_PREFIX : OPENAI_COMPLETION_ID_PREFIX}${requestId}`;
    const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    const base = `{"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)}`;
    this.head = `data: ${base},"choices":[`;
    this.usageHead = `data: ${base},"choices":[],"usage":`;
    this.tail = includeUsage ? '],"usage":null}\n\n' : ']}\n\n';
  }

  /** The SSE text for chunk number `sequence` (the first one names the assistant role). */
  events(chunk: RelayedChunk, sequence: number): string {
    let out = '';
    if (chunk.choices.length > 0) {
      out += this.head;
      let first = true;
      for (const choice of chunk.choices) {
        if (!first) out += ',';
        first = false;
        out += `{"index":${choice.index},`;
        if (this.kind === 'chat') {
          const opening = sequence === 0;
          const role = opening ? '"role":"assistant"' : '';
          const content = choice.delta !== '' || opening ? `"content":${JSON.stringify(choice.delta)}` : '';
          out += `"delta":{${role}${role !== '' && content !== '' ? ',' : ''}${content}},`;
        } else {
          out += `"text":${JSON.stringify(choice.delta)},`;
        }
        out += `"finish_reason":${choice.finishReason === null ? 'null' : `"${choice.finishReason}"`},"logprobs":null}`;
      }
      out += this.tail;
    }
    if (chunk.usage !== null && this.includeUsage) {
      const { promptTokens, completionTokens, totalTokens } = chunk.usage;
      out += `${this.usageHead}{"prompt_tokens":${promptTokens},"completion_tokens":${completionTokens},"total_tokens":${totalTokens}}}\n\n`;
    }
    return out;
  }
}

/** A whole (non-streamed) completion's choices and usage, as the relay needs them. */
export interface RelayedCompletion {
  readonly choices: readonly {
    readonly index: number;
    readonly text: string;
    readonly finishReason: FinishReason;
  }[];
  readonly usage: {
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly totalTokens: number;
  };
}

/**
 * A non-streamed upstream completion checked by hand, like readUpstreamChunk:
 * undefined when it is not the plain shape, which is then left to the
 * reference path (schema, mapping to the generic response and back), so a
 * malformed answer is refused exactly as before.
 */
export function readUpstreamCompletion(kind: WorkloadKind, body: unknown): RelayedCompletion | undefined {
  const response = openAiObject(body, kind === 'chat' ? 'chat.completion' : 'text_completion');
  if (response === null) return undefined;
  const rawChoices = response['choices'];
  if (!Array.isArray(rawChoices) || rawChoices.length === 0) return undefined;
  const choices: RelayedCompletion['choices'][number][] = [];
  for (const raw of rawChoices as unknown[]) {
    if (typeof raw !== 'object' || raw === null) return undefined;
    const choice = raw as Record<string, unknown>;
    if (!isCount(choice['index'])) return undefined;
    if (choice['logprobs'] !== undefined && choice['logprobs'] !== null) return undefined;
    const finishReason = finishReasonOf(choice['finish_reason']);
    if (finishReason === undefined || finishReason === null) return undefined;
    let text: string;
    if (kind === 'chat') {
      const message = choice['message'];
      if (typeof message !== 'object' || message === null) return undefined;
      const { role, content } = message as Record<string, unknown>;
      if (role !== 'assistant') return undefined;
      if (content !== null && typeof content !== 'string') return undefined;
      text = content ?? '';
    } else {
      if (typeof choice['text'] !== 'string') return undefined;
      text = choice['text'];
    }
    choices.push({ index: choice['index'], text, finishReason });
  }
  const usage = usageOf(response['usage']);
  return usage === undefined ? undefined : { choices, usage };
}

/**
 * The OpenAI body for a relayed completion: byte for byte JSON.stringify of
 * workloadResponseToOpenAi{Chat,Completion} of the reference path's response.
 */
export function openAiCompletionJson(
  kind: WorkloadKind,
  requestId: string,
  created: number,
  model: string,
  completion: RelayedCompletion,
): string {
  const id = `${kind === 'chat' ? OPENAI_CHAT_ID_PREFIX : OPENAI_COMPLETION_ID_PREFIX}${requestId}`;
  let out = `{"id":${JSON.stringify(id)},"object":"${kind === 'chat' ? 'chat.completion' : 'text_completion'}","created":${created},"model":${JSON.stringify(model)},"choices":[`;
  let first = true;
  for (const choice of completion.choices) {
    if (!first) out += ',';
    first = false;
    out +=
      kind === 'chat'
        ? `{"index":${choice.index},"message":{"role":"assistant","content":${JSON.stringify(choice.text)}},`
        : `{"index":${choice.index},"text":${JSON.stringify(choice.text)},`;
    out += `"finish_reason":"${choice.finishReason}","logprobs":null}`;
  }
  const { promptTokens, completionTokens, totalTokens } = completion.usage;
  return `${out}],"usage":{"prompt_tokens":${promptTokens},"completion_tokens":${completionTokens},"total_tokens":${totalTokens}}}`;
}
