import { expect } from 'chai';
import {
  OpenAiChatChunkSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionResponseSchema,
  OpenAiErrorSchema,
} from '@lunanexa/contracts';
import { EXIT_CONFIG } from '@lunanexa/observability';
import { z } from 'zod';
import { EXIT_CRASH, EXIT_USAGE } from '../src/config';
import { isInjectedFailure, ratePpm } from '../src/faults';
import {
  CHAT_PATH,
  COMPLETION_PATH,
  counterValue,
  delay,
  httpCall,
  parseJson,
  postJson,
  runToExit,
  startFakeRuntime,
  streamCall,
  type RunningFakeRuntime,
} from './support';

const FAST = ['--ttft-ms', '0', '--tokens-per-second', '100000'];
const MODEL = 'fake-model';
const OpenAiErrorBodySchema = z.object({ error: OpenAiErrorSchema }).strict();

/** Everything a client can observe of the generated tokens, for three kinds of request. */
async function observedTokens(runtime: RunningFakeRuntime): Promise<unknown> {
  const chat = { model: MODEL, messages: [{ role: 'user', content: 'Which nodes are cordoned?' }] };
  const streamed = await streamCall(runtime.url, CHAT_PATH, { ...chat, stream: true });
  const deltas = streamed.events
    .filter((event) => event.data !== '[DONE]')
    .map((event) => OpenAiChatChunkSchema.parse(parseJson(event.data)).choices[0]?.delta.content ?? null);
  const whole = OpenAiChatResponseSchema.parse(
    parseJson((await postJson(runtime.url, CHAT_PATH, chat)).text),
  );
  const seeded = OpenAiCompletionResponseSchema.parse(
    parseJson(
      (await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt: 'Status:', seed: 99 })).text,
    ),
  );
  return {
    deltas,
    chat: whole.choices[0]?.message.content,
    chatUsage: whole.usage,
    seeded: seeded.choices[0]?.text,
    seededUsage: seeded.usage,
  };
}

describe('fake runtime process', function () {
  this.timeout(20_000);
  const started: RunningFakeRuntime[] = [];
  const start = async (args: readonly string[]): Promise<RunningFakeRuntime> => {
    const runtime = await startFakeRuntime(args);
    started.push(runtime);
    return runtime;
  };

  afterEach(async () => {
    await Promise.all(started.splice(0).map((runtime) => runtime.stop()));
  });

  it('produces the same tokens byte for byte in two separate processes', async () => {
    const [a, b, otherSeed] = await Promise.all([
      start([...FAST, '--seed', '5']),
      start([...FAST, '--seed', '5']),
      start([...FAST, '--seed', '6']),
    ]);
    const fromA = await observedTokens(a);
    const fromB = await observedTokens(b);
    expect(JSON.stringify(fromB)).to.equal(JSON.stringify(fromA));
    const fromOther = (await observedTokens(otherSeed)) as { chat: string; seeded: string };
    // The process seed applies to requests without one; a request's own seed wins.
    expect(fromOther.chat).to.not.equal((fromA as { chat: string }).chat);
    expect(fromOther.seeded).to.equal((fromA as { seeded: string }).seeded);
  });

  it('fails exactly the predicted requests at the configured error rate', async () => {
    const seed = 7;
    const runtime = await start([...FAST, '--error-rate', '0.25', '--seed', String(seed)]);
    const failedRequests: number[] = [];
    for (let n = 1; n <= 40; n += 1) {
      const res =
        n % 2 === 0
          ? await postJson(runtime.url, CHAT_PATH, {
              model: MODEL,
              messages: [{ role: 'user', content: `q${n}` }],
            })
          : await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt: `q${n}`, stream: true });
      if (res.status === 500) {
        failedRequests.push(n);
        expect(OpenAiErrorBodySchema.parse(parseJson(res.text)).error).to.include({
          type: 'server_error',
          code: 'injected_failure',
        });
      } else {
        expect(res.status).to.equal(200);
      }
    }
    const predicted = Array.from({ length: 40 }, (_, i) => i + 1).filter((n) =>
      isInjectedFailure(n, ratePpm(0.25), seed),
    );
    expect(failedRequests).to.deep.equal(predicted);
    expect(failedRequests).to.have.length(10);
    expect(
      await counterValue(runtime.url, 'lunanexa_fake_runtime_requests_total', { outcome: 'injected_error' }),
    ).to.equal(10);
    // Health probes are not inference requests: they neither fail nor count.
    expect((await httpCall(runtime.url, 'GET', '/health')).status).to.equal(200);
  });

  it('exits abruptly with a non-zero status after the configured number of requests', async () => {
    const runtime = await start([...FAST, '--crash-after-requests', '3']);
    for (let n = 1; n <= 3; n += 1) {
      const res = await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt: `request ${n}` });
      expect(res.status, `request ${n}`).to.equal(200);
    }
    const exit = await runtime.exited;
    expect(exit.code).to.equal(EXIT_CRASH);
    expect(exit.code).to.not.equal(0);
    let refused: unknown = null;
    await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt: 'too late' }).catch(
      (error: unknown) => {
        refused = error;
      },
    );
    expect((refused as NodeJS.ErrnoException | null)?.code).to.equal('ECONNREFUSED');
  });

  it('exits 78 naming every bad flag or variable, and 64 on an unknown flag', async () => {
    const bad = await runToExit(['--tokens-per-second', '0', '--error-rate', '2'], {
      LUNANEXA_FAKE_PORT: 'eighty',
      LUNANEXA_FAKE_CRASH_AFTER_REQUESTS: '-1',
    });
    expect(bad.code).to.equal(EXIT_CONFIG);
    for (const name of [
      '--tokens-per-second / LUNANEXA_FAKE_TOKENS_PER_SECOND',
      '--error-rate / LUNANEXA_FAKE_ERROR_RATE',
      '--port / LUNANEXA_FAKE_PORT',
      '--crash-after-requests / LUNANEXA_FAKE_CRASH_AFTER_REQUESTS',
    ]) {
      expect(bad.stderr).to.include(name);
    }
    const unknown = await runToExit(['--warp-speed', '9']);
    expect(unknown.code).to.equal(EXIT_USAGE);
    expect(unknown.stderr).to.include('--warp-speed');
  });

  it('finishes an in-flight stream on SIGTERM and exits 0', async () => {
    const runtime = await start(['--ttft-ms', '0', '--tokens-per-second', '20']);
    const stream = streamCall(runtime.url, CHAT_PATH, {
      model: MODEL,
      messages: [{ role: 'user', content: 'long' }],
      stream: true,
      max_tokens: 10,
    });
    await delay(150);
    runtime.child.kill('SIGTERM');
    const result = await stream;
    expect(result.events.at(-1)?.data).to.equal('[DONE]');
    expect((await runtime.exited).code).to.equal(0);
  });

  it('reports loading on /health until the startup delay has passed', async () => {
    const runtime = await start([...FAST, '--startup-delay-ms', '800']);
    const early = await httpCall(runtime.url, 'GET', '/health');
    expect(early.status).to.equal(503);
    expect(parseJson(early.text)).to.deep.equal({ status: 'loading' });
    expect((await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt: 'x' })).status).to.equal(
      503,
    );
    await delay(900);
    expect((await httpCall(runtime.url, 'GET', '/health')).status).to.equal(200);
  });

  it('never logs prompts or outputs, even at trace level', async () => {
    const runtime = await start([...FAST, '--log-level', 'trace']);
    const prompt = 'Confidential-prompt-marker 7f3a about the quarterly numbers';
    const chat = OpenAiChatResponseSchema.parse(
      parseJson(
        (
          await postJson(runtime.url, CHAT_PATH, {
            model: MODEL,
            messages: [{ role: 'user', content: prompt }],
          })
        ).text,
      ),
    );
    const completion = OpenAiCompletionResponseSchema.parse(
      parseJson((await postJson(runtime.url, COMPLETION_PATH, { model: MODEL, prompt })).text),
    );
    await runtime.stop();
    const output = runtime.output();
    const finished = output
      .split('\n')
      .filter((line) => line.includes('inference request finished'))
      .map((line) => parseJson(line) as { completionTokens: number });
    // The requests were logged (with counts), so the absence below is not an absence of logging.
    expect(finished.map((entry) => entry.completionTokens)).to.deep.equal([
      chat.usage.completion_tokens,
      completion.usage.completion_tokens,
    ]);
    expect(output).to.not.include('Confidential-prompt-marker');
    expect(output).to.not.include(chat.choices[0].message.content!);
    expect(output).to.not.include(completion.choices[0].text);
  });
});
