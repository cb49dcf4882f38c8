import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ErrorCode, FIXTURES_DIR, LunaNexaError, openAiErrorFromProblem } from '@lunanexa/contracts';
import { expect } from 'chai';
import { CliError } from '../src/errors';
import { SseParser, decodeStreamData } from '../src/sse';

const CONTRACTS_ROOT = dirname(require.resolve('@lunanexa/contracts/package.json'));

/** A golden fixture as the gateway writes it on the wire: compact JSON. */
function fixture(name: string): string {
  return JSON.stringify(JSON.parse(readFileSync(join(CONTRACTS_ROOT, FIXTURES_DIR, name), 'utf8')));
}

/** Feeds `pieces` one push at a time and collects every event. */
function parseAll(pieces: readonly string[]): string[] {
  const parser = new SseParser();
  return pieces.flatMap((piece) => parser.push(piece));
}

function thrown(work: () => unknown): CliError {
  try {
    work();
  } catch (error: unknown) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected a CliError');
}

describe('SSE parser', () => {
  it('dispatches one event per blank line', () => {
    expect(parseAll(['data: {"a":1}\n\ndata: {"b":2}\n\n'])).to.deep.equal(['{"a":1}', '{"b":2}']);
  });

  it('reassembles events split across reads at any byte', () => {
    const wire = 'data: {"token":"Larger"}\n\ndata: {"token":" pools"}\n\ndata: [DONE]\n\n';
    const expected = ['{"token":"Larger"}', '{"token":" pools"}', '[DONE]'];
    for (let cut = 1; cut < wire.length; cut++) {
      expect(parseAll([wire.slice(0, cut), wire.slice(cut)]), `cut at ${cut}`).to.deep.equal(expected);
    }
    expect(parseAll([...wire])).to.deep.equal(expected);
  });

  it('holds nothing back until the event is complete', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"x"')).to.deep.equal([]);
    expect(parser.push(':1}\n')).to.deep.equal([]);
    expect(parser.push('\n')).to.deep.equal(['{"x":1}']);
  });

  it('joins multi-line data with newlines', () => {
    expect(parseAll(['data: first\ndata: second\ndata:third\n\n'])).to.deep.equal(['first\nsecond\nthird']);
  });

  it('accepts CRLF and CR line ends, including a CRLF split between reads', () => {
    expect(parseAll(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).to.deep.equal(['a', 'b', 'c']);
    expect(parseAll(['data: a\r', '\n\r', '\n'])).to.deep.equal(['a']);
  });

  it('completes an event whose last CR arrived with the end of the stream', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r\r')).to.deep.equal([]);
    expect(parser.end()).to.deep.equal(['a']);
  });

  it('ignores comments, other fields and empty events', () => {
    expect(parseAll([': keep-alive\n\nevent: chunk\nid: 7\nretry: 10\ndata: x\n\n\n\n'])).to.deep.equal([
      'x',
    ]);
  });

  it('drops an event the stream never finished', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"half":')).to.deep.equal([]);
    expect(parser.end()).to.deep.equal([]);
    const unterminated = new SseParser();
    expect(unterminated.push('data: {"whole":1}\n')).to.deep.equal([]);
    expect(unterminated.end()).to.deep.equal([]);
  });
});

describe('stream chunk decoding', () => {
  describe('OpenAI dialect', () => {
    it('reads the text and resolved model of a chunk (golden fixture)', () => {
      expect(decodeStreamData('openai', fixture('openai-chat-chunk.first.json'), 'req-1')).to.deep.equal({
        kind: 'chunk',
        text: 'Larger',
        model: 'llama-3-1-8b-instruct@2024-07-23',
        finishReason: null,
        usage: null,
        final: false,
        sequence: null,
      });
    });

    it('reads the usage chunk (golden fixture) in the generic field names', () => {
      const event = decodeStreamData('openai', fixture('openai-chat-chunk.usage.json'), 'req-1');
      expect(event).to.deep.include({
        kind: 'chunk',
        text: '',
        usage: { promptTokens: 31, completionTokens: 24, totalTokens: 55 },
      });
    });

    it('ends at [DONE]', () => {
      expect(decodeStreamData('openai', '[DONE]', 'req-1')).to.deep.equal({ kind: 'done' });
    });

    it('turns an error chunk into the LunaNexa code it carries', () => {
      const chunk = JSON.stringify({
        error: openAiErrorFromProblem(
          new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica ended its stream early.').toProblem(),
        ),
      });
      const error = thrown(() => decodeStreamData('openai', chunk, 'req-9'));
      expect(error.code).to.equal('UPSTREAM_FAILED');
      expect(error.message).to.equal('A replica ended its stream early.');
      expect(error.requestId).to.equal('req-9');
      expect(error.exitCode).to.equal(69);
    });
  });

  describe('generic dialect', () => {
    it('reads delta, served model and sequence (golden fixture)', () => {
      expect(decodeStreamData('generic', fixture('workload-stream-chunk.first.json'), 'r')).to.deep.equal({
        kind: 'chunk',
        text: 'Larger',
        model: 'llama-3-1-8b-instruct@2024-07-23',
        finishReason: null,
        usage: null,
        final: false,
        sequence: 0,
      });
    });

    it('treats the chunk with usage as the end of a successful stream (golden fixture)', () => {
      expect(decodeStreamData('generic', fixture('workload-stream-chunk.final.json'), 'r')).to.deep.include({
        final: true,
        finishReason: 'stop',
        sequence: 17,
        usage: { promptTokens: 31, completionTokens: 24, totalTokens: 55 },
      });
    });

    it('throws the code of an error chunk (golden fixture)', () => {
      const error = thrown(() =>
        decodeStreamData('generic', fixture('workload-stream-chunk.error.json'), 'r'),
      );
      expect(error.code).to.equal('UPSTREAM_FAILED');
      expect(error.message).to.equal('The runtime closed the stream after 5 chunks.');
    });
  });

  it('calls a payload that is not JSON, or not a chunk, a bad response', () => {
    expect(thrown(() => decodeStreamData('openai', '{"choices":', 'r')).code).to.equal('BAD_RESPONSE');
    expect(thrown(() => decodeStreamData('generic', '{"type":"delta"}', 'r')).code).to.equal('BAD_RESPONSE');
    expect(thrown(() => decodeStreamData('generic', '[DONE]', 'r')).code).to.equal('BAD_RESPONSE');
  });
});
