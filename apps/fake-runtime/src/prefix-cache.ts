import { createHash } from 'node:crypto';
import { countTokens, type FakePrompt } from './generator';

/**
 * The fake runtime's prefix cache, modelled on vLLM's automatic prefix
 * caching at message granularity: the KV blocks of a prompt's leading
 * messages stay cached after a request, so a later prompt that starts with
 * the same messages only prefills the rest. Bounded in tokens, least
 * recently used evicted first, so a replica that sees more distinct prefixes
 * than it can hold gets few hits — which is what prefix-affinity routing is
 * measured against.
 */

/** One cumulative prefix of a prompt: the first k messages (or the whole completion prompt). */
export interface PromptPrefix {
  readonly key: string;
  /** Tokens of this prefix alone, beyond the previous (shorter) one. */
  readonly ownTokens: number;
}

/** Tokens of chat framing per message, as promptTokensOf counts them. */
const CHAT_TOKENS_PER_MESSAGE = 4;

/** The prompt's cumulative prefixes, shortest first; chained digests, so each key names everything before it. */
export function promptPrefixes(prompt: FakePrompt): PromptPrefix[] {
  if (prompt.kind === 'completion') {
    const key = createHash('sha256').update('completion\0').update(prompt.prompt).digest('hex');
    return [{ key, ownTokens: countTokens(prompt.prompt) }];
  }
  const prefixes: PromptPrefix[] = [];
  let chain = '';
  for (const message of prompt.messages) {
    chain = createHash('sha256')
      .update(chain)
      .update('\0')
      .update(message.role)
      .update('\0')
      .update(message.content)
      .digest('hex');
    prefixes.push({ key: chain, ownTokens: CHAT_TOKENS_PER_MESSAGE + countTokens(message.content) });
  }
  return prefixes;
}

export class PrefixCache {
  /** Map order is recency: the first entry is evicted first. */
  private readonly entries = new Map<string, number>();
  private held = 0;

  constructor(private readonly capacityTokens: number) {}

  /** Tokens currently cached. */
  get tokens(): number {
    return this.held;
  }

  /**
   * Tokens of `prefixes` (shortest first) already cached: the longest run of
   * leading prefixes that are all present. Touches what it found, then caches
   * the whole prompt, evicting the least recently used beyond the capacity.
   */
  serve(prefixes: readonly PromptPrefix[]): number {
    let cached = 0;
    for (const prefix of prefixes) {
      if (!this.entries.has(prefix.key)) break;
      cached += prefix.ownTokens;
    }
    for (const prefix of prefixes) {
      const had = this.entries.get(prefix.key);
      if (had !== undefined) this.entries.delete(prefix.key);
      else this.held += prefix.ownTokens;
      this.entries.set(prefix.key, prefix.ownTokens);
    }
    for (const [key, tokens] of this.entries) {
      if (this.held <= this.capacityTokens) break;
      this.entries.delete(key);
      this.held -= tokens;
    }
    return cached;
  }
}
