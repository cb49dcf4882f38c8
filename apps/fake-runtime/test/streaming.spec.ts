import { expect } from 'chai';
import { OpenAiChatChunkSchema, OpenAiCompletionResponseSchema, parseRuntimeLoad } from '@lunanexa/contracts';
import { generate } from '../src/generator';
import {
  CHAT_PATH,
  COMPLETION_PATH,
  counterValue,
  delay,
  httpCall,
  parseJson,
  postJson,
  startFakeRuntime,
  streamCall,
  type RunningFakeRuntime,
  type TimedEvent,
} from './support';

const TTFT_MS = 300;
const TOKENS_PER_SECOND = 10;
const INTERVAL_MS = 1000 / TOKENS_PER_SECOND;
const MODEL = 'fake-model';

function contentEvents(events: readonly TimedEvent[]): TimedEvent[] {
  return events.filter((event) => {
    if (event.data === '[DONE]') return false;
    const chunk = OpenAiChatChunkSchema.parse(parseJson(event.data));
    return chunk.choices[0]?.delta.content !== undefined;
  });
}

describe('fake runtime timing', function () {
  this.timeout(20_000);
  let runtime: RunningFakeRuntime;

  before(async () => {
    runtime = await startFakeRuntime([
      '--ttft-ms',
      String(TTFT_MS),
      '--tokens-per-second',
      String(TOKENS_PER_SECOND),
    ]);
  });

  after(async () => {
    await runtime.stop();
  });

  /** `vllm:num_requests_running` summed over its label sets (the agent reads it the same way from vLLM). */
  async function requestsRunning(): Promise<number> {
    const { text } = await httpCall(runtime.url, 'GET', '/metrics');
    const values = [...text.matchAll(/^vllm:num_requests_running(?:\{[^}]*\})? ([0-9.e+-]+)$/gm)];
    expect(values, 'the gauge is exported').to.have.length.greaterThan(0);
    return values.reduce((sum, match) => sum + Number(match[1]), 0);
  }

  it('exports the requests being answered as vLLM does (vllm:num_requests_running), back to 0 when done', async () => {
    expect(await requestsRunning()).to.equal(0);
    const streams = [0, 1].map((i) =>
      streamCall(runtime.url, CHAT_PATH, {
        model: MODEL,
        messages: [{ role: 'user', content: `in flight ${i}` }],
        stream: true,
        max_tokens: 6,
      }),
    );
    // Both are inside their time to first token for TTFT_MS.
    await delay(TTFT_MS / 3);
    expect(await requestsRunning()).to.equal(2);
    await Promise.all(streams);
    expect(await requestsRunning()).to.equal(0);
    const { text } = await httpCall(runtime.url, 'GET', '/metrics');
    expect(text).to.contain(`vllm:num_requests_running{model_name="${MODEL}"} 0`);
  });

  it('flushes tokens one by one: the first arrives long before the last', async () => {
    const tokens = 8;
    const result = await streamCall(runtime.url, CHAT_PATH, {
      model: MODEL,
      messages: [{ role: 'user', content: 'stream slowly' }],
      stream: true,
      max_tokens: tokens,
    });
    const content = contentEvents(result.events);
    expect(content).to.have.length(tokens);
    const first = content[0].atMs;
    const last = content.at(-1)!.atMs;
    // Buffered output would arrive all at once; the schedule spreads it over (tokens − 1) intervals.
    expect(last - first).to.be.at.least(0.8 * (tokens - 1) * INTERVAL_MS);
    for (let i = 1; i < content.length; i += 1) expect(content[i].atMs).to.be.at.least(content[i - 1].atMs);
    // Most tokens arrived in their own TCP read, at distinct times.
    expect(new Set(content.map((event) => Math.round(event.atMs))).size).to.be.at.least(tokens - 2);
  });

  it('respects the time to first token, streamed and not', async () => {
    const streamed = await streamCall(runtime.url, CHAT_PATH, {
      model: MODEL,
      messages: [{ role: 'user', content: 'first token please' }],
      stream: true,
      max_tokens: 2,
    });
    const firstToken = contentEvents(streamed.events)[0].atMs;
    expect(firstToken).to.be.at.least(TTFT_MS);
    expect(firstToken).to.be.below(TTFT_MS + 2000);

    const startedAt = performance.now();
    const whole = OpenAiCompletionResponseSchema.parse(
      parseJson(
        (await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt: 'x', max_tokens: 3 })).text,
      ),
    );
    expect(whole.usage.completion_tokens).to.equal(3);
    // The answer comes when its last token would have been generated.
    expect(performance.now() - startedAt).to.be.at.least(TTFT_MS + 2 * INTERVAL_MS);
  });

  it('stops generating when the client goes away', async () => {
    // A prompt whose natural completion is long, so a running generation would keep producing.
    const prompt = Array.from({ length: 200 }, (_, i) => `long answer ${i}`).find(
      (text) =>
        generate({
          model: MODEL,
          prompt: { kind: 'completion', prompt: text },
          seed: 0,
          maxTokens: 1000,
          stop: [],
        }).pieces.length >= 40,
    )!;
    const tokensBefore = await counterValue(runtime.url, 'lunanexa_fake_runtime_generated_tokens_total');
    const cancelledBefore = await counterValue(runtime.url, 'lunanexa_fake_runtime_requests_total', {
      outcome: 'cancelled',
    });
    await streamCall(
      runtime.url,
      COMPLETION_PATH,
      { model: MODEL, prompt, stream: true, max_tokens: 1000 },
      { abortAfterEvents: 2 },
    );
    await delay(3 * INTERVAL_MS);
    const tokensAfterAbort = await counterValue(runtime.url, 'lunanexa_fake_runtime_generated_tokens_total');
    await delay(5 * INTERVAL_MS);
    const tokensLater = await counterValue(runtime.url, 'lunanexa_fake_runtime_generated_tokens_total');
    expect(tokensLater).to.equal(tokensAfterAbort);
    expect(tokensAfterAbort - tokensBefore).to.be.within(2, 4);
    expect(
      await counterValue(runtime.url, 'lunanexa_fake_runtime_requests_total', { outcome: 'cancelled' }),
    ).to.equal(cancelledBefore + 1);
  });
});

describe('fake runtime load gauges', function () {
  this.timeout(20_000);
  let runtime: RunningFakeRuntime;

  before(async () => {
    runtime = await startFakeRuntime([
      '--ttft-ms',
      String(TTFT_MS),
      '--tokens-per-second',
      String(TOKENS_PER_SECOND),
      '--max-num-seqs',
      '1',
      '--kv-cache-tokens',
      '100',
    ]);
  });

  after(async () => {
    await runtime.stop();
  });

  async function load() {
    const { text } = await httpCall(runtime.url, 'GET', '/metrics');
    return parseRuntimeLoad(text, 'vllm', new Date());
  }

  it('queues requests beyond --max-num-seqs and fills the KV cache with the running one’s tokens', async () => {
    expect(await load()).to.include({ running: 0, waiting: 0, cachePressure: 0 });
    const streams = [0, 1].map((i) =>
      streamCall(runtime.url, CHAT_PATH, {
        model: MODEL,
        messages: [{ role: 'user', content: `queued ${i}` }],
        stream: true,
        max_tokens: 4,
      }),
    );
    await delay(TTFT_MS / 3);
    const busy = await load();
    expect(busy).to.include({ running: 1, waiting: 1 });
    // The running request's prompt is in the cache; the queued one holds nothing yet.
    expect(busy.cachePressure).to.be.greaterThan(0).and.at.most(1);
    const results = await Promise.all(streams);
    expect(results.map((result) => result.status)).to.deep.equal([200, 200]);
    expect(await load()).to.include({ running: 0, waiting: 0, cachePressure: 0 });
  });
});
