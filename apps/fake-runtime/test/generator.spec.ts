import { expect } from 'chai';
import { NATURAL_LENGTH, countTokens, generate, type GenerationRequest } from '../src/generator';

const BASE: GenerationRequest = {
  model: 'fake-model',
  prompt: { kind: 'chat', messages: [{ role: 'user', content: 'Summarise the fleet status.' }] },
  seed: 42,
  maxTokens: 1000,
  stop: [],
};

describe('fake runtime generator', () => {
  it('is a pure function of model, prompt and seed', () => {
    const first = generate(BASE);
    // An equal request built separately: nothing but the values may matter.
    const second = generate(JSON.parse(JSON.stringify(BASE)) as GenerationRequest);
    expect(second.pieces).to.deep.equal(first.pieces);
    expect(first.pieces.length).to.be.within(NATURAL_LENGTH.min, NATURAL_LENGTH.max);
  });

  it('changes with the model, the prompt, a message role and the seed', () => {
    const text = generate(BASE).text;
    expect(generate({ ...BASE, model: 'other-model' }).text).to.not.equal(text);
    expect(generate({ ...BASE, seed: 43 }).text).to.not.equal(text);
    expect(
      generate({
        ...BASE,
        prompt: { kind: 'chat', messages: [{ role: 'user', content: 'Summarise the fleet status!' }] },
      }).text,
    ).to.not.equal(text);
    expect(
      generate({
        ...BASE,
        prompt: { kind: 'chat', messages: [{ role: 'system', content: 'Summarise the fleet status.' }] },
      }).text,
    ).to.not.equal(text);
    expect(
      generate({ ...BASE, prompt: { kind: 'completion', prompt: 'Summarise the fleet status.' } }).text,
    ).to.not.equal(text);
  });

  it('cuts the same sequence at max_tokens: a longer limit extends a shorter one', () => {
    const full = generate(BASE);
    const short = generate({ ...BASE, maxTokens: 5 });
    expect(short.pieces).to.deep.equal(full.pieces.slice(0, 5));
    expect(short.finishReason).to.equal('length');
    expect(full.finishReason).to.equal('stop');
    expect(generate({ ...BASE, maxTokens: full.pieces.length }).finishReason).to.equal('stop');
    expect(generate({ ...BASE, maxTokens: full.pieces.length - 1 }).finishReason).to.equal('length');
  });

  it('writes on to max_tokens with ignoreEos, extending the natural text', () => {
    const natural = generate(BASE);
    const long = generate({ ...BASE, maxTokens: 3000, ignoreEos: true });
    expect(long.pieces).to.have.length(3000);
    expect(long.completionTokens).to.equal(3000);
    expect(long.pieces.slice(0, natural.pieces.length - 1)).to.deep.equal(natural.pieces.slice(0, -1));
    expect(generate({ ...BASE, maxTokens: 5, ignoreEos: true }).pieces).to.deep.equal(
      natural.pieces.slice(0, 5),
    );
  });

  it('stops before the first stop sequence and leaves it out', () => {
    const full = generate(BASE);
    const word = full.pieces[3].trim();
    const stopped = generate({ ...BASE, stop: ['zzz-never', word] });
    expect(stopped.finishReason).to.equal('stop');
    expect(stopped.text).to.equal(full.text.slice(0, full.text.indexOf(word)));
    expect(stopped.text).to.not.include(word);
    expect(stopped.completionTokens).to.equal(stopped.pieces.length);
    expect(full.text.startsWith(stopped.text)).to.equal(true);
  });

  it('ends a natural completion with a full stop and reports usage from its pieces', () => {
    const generation = generate(BASE);
    expect(generation.text.endsWith('.')).to.equal(true);
    expect(generation.pieces.join('')).to.equal(generation.text);
    expect(generation.completionTokens).to.equal(generation.pieces.length);
    // 4 framing tokens per message + "Summarise the fleet status." (5) + 2 for the reply.
    expect(generation.promptTokens).to.equal(11);
    expect(countTokens('café, naïve!')).to.equal(4);
  });

  it('yields an empty completion when the output starts with a stop sequence', () => {
    const full = generate(BASE);
    const empty = generate({ ...BASE, stop: [full.pieces[0]] });
    expect(empty.pieces).to.deep.equal([]);
    expect(empty.text).to.equal('');
    expect(empty.finishReason).to.equal('stop');
  });
});
