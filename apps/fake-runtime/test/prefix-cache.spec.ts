import { expect } from 'chai';
import { PrefixCache, promptPrefixes } from '../src/prefix-cache';
import type { FakePrompt } from '../src/generator';

const chat = (system: string, question: string): FakePrompt => ({
  kind: 'chat',
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: question },
  ],
});

describe('fake runtime prefix cache', () => {
  it('finds the leading messages a previous prompt shared, not the ones that differ', () => {
    const cache = new PrefixCache(10_000);
    const first = promptPrefixes(chat('one two three four', 'five'));
    expect(cache.serve(first)).to.equal(0);
    // System prompt: 4 tokens + 4 of framing.
    expect(cache.serve(promptPrefixes(chat('one two three four', 'six')))).to.equal(8);
    expect(cache.serve(promptPrefixes(chat('one two three four', 'five')))).to.equal(8 + 5);
    expect(cache.serve(promptPrefixes(chat('one two three', 'five')))).to.equal(0);
    const completion: FakePrompt = { kind: 'completion', prompt: 'a b c' };
    expect(cache.serve(promptPrefixes(completion))).to.equal(0);
    expect(cache.serve(promptPrefixes(completion))).to.equal(3);
  });

  it('stays within its size, evicting the least recently used prefix first', () => {
    const words = (tag: string) => Array.from({ length: 96 }, (_, i) => `${tag}${i}`).join(' ');
    const cache = new PrefixCache(250);
    cache.serve(promptPrefixes(chat(words('a'), 'q')));
    cache.serve(promptPrefixes(chat(words('b'), 'q')));
    expect(cache.tokens).to.be.at.most(250);
    // a was used longer ago than b: adding c evicts a and keeps b.
    cache.serve(promptPrefixes(chat(words('c'), 'q')));
    expect(cache.tokens).to.be.at.most(250);
    expect(cache.serve(promptPrefixes(chat(words('b'), 'r')))).to.equal(100);
    expect(cache.serve(promptPrefixes(chat(words('a'), 'r')))).to.equal(0);
  });
});
