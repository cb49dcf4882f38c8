import { createHash } from 'node:crypto';

/**
 * Deterministic text generation. The output is a pure function of (model,
 * prompt or messages, seed): the same input gives the same pieces, byte for
 * byte, in any process on any machine, because the only source of
 * "randomness" is SHA-256 of a canonical encoding of that input.
 * `maxTokens` and `stop` only cut the same sequence shorter, so a longer
 * limit always extends a shorter one.
 */

export interface FakeChatMessage {
  readonly role: string;
  readonly content: string;
  readonly name?: string | undefined;
}

export type FakePrompt =
  | { readonly kind: 'completion'; readonly prompt: string }
  | { readonly kind: 'chat'; readonly messages: readonly FakeChatMessage[] };

export interface GenerationRequest {
  readonly model: string;
  readonly prompt: FakePrompt;
  readonly seed: number;
  readonly maxTokens: number;
  readonly stop: readonly string[];
  /** vLLM's, SGLang's and llama.cpp's `ignore_eos`: write on to maxTokens instead of stopping naturally. */
  readonly ignoreEos?: boolean;
}

export interface Generation {
  /** One entry per generated token, in order; concatenated they are the completion text. */
  readonly pieces: readonly string[];
  readonly text: string;
  readonly finishReason: 'stop' | 'length';
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** Shortest and longest completion the model "wants" to write before max_tokens cuts in. */
export const NATURAL_LENGTH = { min: 8, max: 96 } as const;

/** Plain words, two of them with non-ASCII letters so clients exercise UTF-8 across chunks. */
const VOCABULARY: readonly string[] = [
  'the',
  'node',
  'fleet',
  'replica',
  'serves',
  'model',
  'quietly',
  'under',
  'steady',
  'load',
  'while',
  'tokens',
  'flow',
  'through',
  'a',
  'stable',
  'gateway',
  'and',
  'every',
  'request',
  'finds',
  'its',
  'answer',
  'soon',
  'memory',
  'holds',
  'weights',
  'for',
  'many',
  'hours',
  'café',
  'naïve',
  'schedulers',
  'balance',
  'work',
  'across',
  'racks',
  'of',
  'machines',
  'with',
  'care',
  'latency',
  'stays',
  'low',
  'when',
  'queues',
  'drain',
  'early',
];

/** Identifies this algorithm inside the hash input; change it and every output changes. */
const ALGORITHM = 'lunanexa-fake-runtime/generator/v1';

/** A stream of 32-bit numbers: SHA-256 of the key and a block counter, read four bytes at a time. */
class DigestStream {
  private block = Buffer.alloc(0);
  private offset = 0;
  private counter = 0;

  constructor(private readonly key: Buffer) {}

  next(): number {
    if (this.offset + 4 > this.block.length) {
      const counter = Buffer.alloc(4);
      counter.writeUInt32BE(this.counter);
      this.counter += 1;
      this.block = createHash('sha256').update(this.key).update(counter).digest();
      this.offset = 0;
    }
    const value = this.block.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  /** An integer in [0, n); the modulo bias is irrelevant for a fake. */
  below(n: number): number {
    return this.next() % n;
  }
}

function canonicalPrompt(prompt: FakePrompt): unknown {
  return prompt.kind === 'completion'
    ? ['completion', prompt.prompt]
    : ['chat', prompt.messages.map((message) => [message.role, message.content, message.name ?? null])];
}

export function generationKey(model: string, prompt: FakePrompt, seed: number): Buffer {
  return createHash('sha256')
    .update(JSON.stringify([ALGORITHM, model, canonicalPrompt(prompt), seed]))
    .digest();
}

/** The full sequence the model would write with no limit: whole sentences, first word capitalised. */
function naturalPieces(stream: DigestStream, atLeast = 0): string[] {
  // The natural length is drawn either way, so ignoring the end of sequence only extends the same text.
  const length = Math.max(
    atLeast,
    NATURAL_LENGTH.min + stream.below(NATURAL_LENGTH.max - NATURAL_LENGTH.min + 1),
  );
  const pieces: string[] = [];
  let sentenceLeft = 0;
  for (let i = 0; i < length; i += 1) {
    const startsSentence = sentenceLeft === 0;
    if (startsSentence) sentenceLeft = 4 + stream.below(9);
    let word = VOCABULARY[stream.below(VOCABULARY.length)] ?? 'the';
    if (startsSentence) word = word.charAt(0).toUpperCase() + word.slice(1);
    sentenceLeft -= 1;
    // The last word always closes its sentence, so a natural stop reads like one.
    if (sentenceLeft === 0 || i === length - 1) word += '.';
    pieces.push(i === 0 ? word : ` ${word}`);
  }
  return pieces;
}

/** Pieces of `pieces` up to (not including) character offset `end`; the last one may be cut. */
function cutAt(pieces: readonly string[], end: number): string[] {
  const kept: string[] = [];
  let offset = 0;
  for (const piece of pieces) {
    if (offset >= end) break;
    kept.push(piece.slice(0, end - offset));
    offset += piece.length;
  }
  return kept;
}

/** Word-ish tokens: runs of letters/digits, and every other non-space character on its own. */
export function countTokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}

/** Like OpenAI's chat accounting: a few tokens of framing per message and for the reply. */
const CHAT_TOKENS_PER_MESSAGE = 4;
const CHAT_TOKENS_PER_REPLY = 2;

export function promptTokensOf(prompt: FakePrompt): number {
  if (prompt.kind === 'completion') return countTokens(prompt.prompt);
  return (
    prompt.messages.reduce(
      (sum, message) => sum + CHAT_TOKENS_PER_MESSAGE + countTokens(message.content),
      0,
    ) + CHAT_TOKENS_PER_REPLY
  );
}

export function generate(request: GenerationRequest): Generation {
  const stream = new DigestStream(generationKey(request.model, request.prompt, request.seed));
  const natural = naturalPieces(stream, request.ignoreEos === true ? request.maxTokens : 0);
  let pieces = natural.slice(0, request.maxTokens);
  let finishReason: 'stop' | 'length' =
    natural.length > request.maxTokens || request.ignoreEos === true ? 'length' : 'stop';

  const text = pieces.join('');
  const stopAt = request.stop
    .map((sequence) => text.indexOf(sequence))
    .filter((index) => index >= 0)
    .reduce((earliest, index) => Math.min(earliest, index), Number.POSITIVE_INFINITY);
  if (Number.isFinite(stopAt)) {
    // As OpenAI does: the stop sequence itself is not part of the output.
    pieces = cutAt(pieces, stopAt).filter((piece) => piece.length > 0);
    finishReason = 'stop';
  }
  return {
    pieces,
    text: pieces.join(''),
    finishReason,
    promptTokens: promptTokensOf(request.prompt),
    completionTokens: pieces.length,
  };
}
