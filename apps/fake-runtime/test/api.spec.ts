import { expect } from 'chai';
import {
  OpenAiChatChunkSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionChunkSchema,
  OpenAiCompletionResponseSchema,
  OpenAiErrorSchema,
  OpenAiModelListSchema,
  openAiChatChunkToWorkload,
  openAiChatResponseToWorkload,
  openAiCompletionChunkToWorkload,
  openAiCompletionResponseToWorkload,
  type OpenAiChatChunk,
  type OpenAiCompletionChunk,
  type ServedBy,
} from '@lunanexa/contracts';
import { z } from 'zod';
import {
  CHAT_PATH,
  COMPLETION_PATH,
  httpCall,
  parseJson,
  postJson,
  startFakeRuntime,
  streamCall,
  type RunningFakeRuntime,
} from './support';

const MODEL = 'llama-3-1-8b-instruct@2024-07-23';
const CHAT = {
  model: MODEL,
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: [{ type: 'text', text: 'How is node spark-01?' }] },
  ],
};
const COMPLETION = { model: MODEL, prompt: 'The fleet is' };

/** What the gateway puts around an upstream chunk; the mapping functions check totals and finish reasons. */
const SERVED_BY: ServedBy = { model: MODEL, alias: null, deploymentId: 'dep-1' };
const UPSTREAM = { id: 'wl-1', servedBy: SERVED_BY, correlation: {} };

const OpenAiErrorBodySchema = z.object({ error: OpenAiErrorSchema }).strict();

function dataEvents(events: readonly { data: string }[]): { chunks: unknown[]; last: string | undefined } {
  return {
    chunks: events.filter((event) => event.data !== '[DONE]').map((event) => parseJson(event.data)),
    last: events.at(-1)?.data,
  };
}

describe('fake runtime OpenAI API', function () {
  this.timeout(15_000);
  let runtime: RunningFakeRuntime;

  before(async () => {
    runtime = await startFakeRuntime(['--model', MODEL, '--ttft-ms', '0', '--tokens-per-second', '100000']);
  });

  after(async () => {
    await runtime.stop();
  });

  it('answers /health and lists its one model on /v1/models', async () => {
    const health = await httpCall(runtime.url, 'GET', '/health');
    expect(health.status).to.equal(200);
    expect(parseJson(health.text)).to.deep.equal({ status: 'ok' });
    const models = OpenAiModelListSchema.parse(
      parseJson((await httpCall(runtime.url, 'GET', '/v1/models')).text),
    );
    expect(models.data.map((model) => model.id)).to.deep.equal([MODEL]);
  });

  it('answers a chat completion in the OpenAI shape the gateway maps', async () => {
    const res = await postJson(runtime.url, CHAT_PATH, CHAT);
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    const body = OpenAiChatResponseSchema.parse(parseJson(res.text));
    expect(body.model).to.equal(MODEL);
    expect(body.choices).to.have.length(1);
    expect(body.choices[0]?.message.content).to.be.a('string').and.not.equal('');
    expect(body.usage.total_tokens).to.equal(body.usage.prompt_tokens + body.usage.completion_tokens);
    const workload = openAiChatResponseToWorkload(body, UPSTREAM);
    expect(workload.usage.completionTokens).to.be.greaterThan(0);
  });

  it('answers a text completion in the OpenAI shape the gateway maps', async () => {
    const res = await postJson(runtime.url, COMPLETION_PATH, { ...COMPLETION, max_tokens: 3 });
    const body = OpenAiCompletionResponseSchema.parse(parseJson(res.text));
    expect(body.choices[0]?.finish_reason).to.equal('length');
    expect(body.usage.completion_tokens).to.equal(3);
    expect(openAiCompletionResponseToWorkload(body, UPSTREAM).choices[0]?.finishReason).to.equal('length');
  });

  it('streams chat chunks: role first, one token each, finish, usage, [DONE]', async () => {
    const whole = OpenAiChatResponseSchema.parse(
      parseJson((await postJson(runtime.url, CHAT_PATH, CHAT)).text),
    );
    const result = await streamCall(runtime.url, CHAT_PATH, {
      ...CHAT,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(result.status).to.equal(200);
    expect(result.contentType).to.match(/^text\/event-stream/);
    const { chunks, last } = dataEvents(result.events);
    expect(last).to.equal('[DONE]');
    const parsed: OpenAiChatChunk[] = chunks.map((chunk) => OpenAiChatChunkSchema.parse(chunk));
    expect(parsed[0]?.choices[0]?.delta.role).to.equal('assistant');
    expect(parsed.slice(1).every((chunk) => chunk.choices[0]?.delta.role === undefined)).to.equal(true);
    const usage = parsed.at(-1);
    expect(usage?.choices).to.deep.equal([]);
    expect(usage?.usage).to.deep.equal(whole.usage);
    const closing = parsed.at(-2);
    expect(closing?.choices[0]?.finish_reason).to.equal(whole.choices[0]?.finish_reason);
    const text = parsed.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).to.equal(whole.choices[0]?.message.content);
    // One content chunk per completion token.
    expect(parsed.length - 2).to.equal(whole.usage.completion_tokens);
    parsed.forEach((chunk, sequence) =>
      openAiChatChunkToWorkload(chunk, { id: 'wl-1', sequence, servedBy: SERVED_BY }),
    );
  });

  it('streams completion chunks and omits usage unless asked', async () => {
    const result = await streamCall(runtime.url, COMPLETION_PATH, {
      ...COMPLETION,
      stream: true,
      max_tokens: 4,
    });
    const { chunks, last } = dataEvents(result.events);
    expect(last).to.equal('[DONE]');
    const parsed: OpenAiCompletionChunk[] = chunks.map((chunk) => OpenAiCompletionChunkSchema.parse(chunk));
    expect(parsed).to.have.length(5);
    expect(parsed.every((chunk) => chunk.usage === undefined)).to.equal(true);
    expect(parsed.at(-1)?.choices[0]).to.deep.include({ text: '', finish_reason: 'length' });
    parsed.forEach((chunk, sequence) =>
      openAiCompletionChunkToWorkload(chunk, { id: 'wl-1', sequence, servedBy: SERVED_BY }),
    );
  });

  it('gives the same tokens for the same seed and different ones for another seed', async () => {
    const text = async (seed: number) =>
      OpenAiCompletionResponseSchema.parse(
        parseJson((await postJson(runtime.url, COMPLETION_PATH, { ...COMPLETION, seed })).text),
      ).choices[0]?.text;
    const first = await text(11);
    expect(await text(11)).to.equal(first);
    expect(await text(12)).to.not.equal(first);
  });

  it('honours stop sequences', async () => {
    const full = OpenAiCompletionResponseSchema.parse(
      parseJson((await postJson(runtime.url, COMPLETION_PATH, COMPLETION)).text),
    ).choices[0].text;
    const word = full.split(' ')[2];
    const stopped = OpenAiCompletionResponseSchema.parse(
      parseJson((await postJson(runtime.url, COMPLETION_PATH, { ...COMPLETION, stop: [word] })).text),
    ).choices[0];
    expect(stopped.finish_reason).to.equal('stop');
    expect(stopped.text).to.equal(full.slice(0, full.indexOf(word)));
  });

  it("takes the runtimes' ignore_eos extension: writes to max_tokens; refuses a non-boolean", async () => {
    const long = OpenAiCompletionResponseSchema.parse(
      parseJson(
        (await postJson(runtime.url, COMPLETION_PATH, { ...COMPLETION, max_tokens: 400, ignore_eos: true }))
          .text,
      ),
    );
    expect(long.usage?.completion_tokens).to.equal(400);
    expect(long.choices[0].finish_reason).to.equal('length');
    const bad = await postJson(runtime.url, CHAT_PATH, { ...CHAT, ignore_eos: 'yes' });
    expect(bad.status).to.equal(400);
    expect(OpenAiErrorBodySchema.parse(parseJson(bad.text)).error).to.include({ param: 'ignore_eos' });
  });

  it('refuses another model with 404 model_not_found', async () => {
    const res = await postJson(runtime.url, CHAT_PATH, { ...CHAT, model: 'other-model' });
    expect(res.status).to.equal(404);
    const body = OpenAiErrorBodySchema.parse(parseJson(res.text));
    expect(body.error).to.include({ code: 'model_not_found', param: 'model', type: 'not_found_error' });
  });

  it('refuses invalid requests with 400 naming the field, never echoing it', async () => {
    const secret = 'do-not-echo-this-value';
    const res = await postJson(runtime.url, CHAT_PATH, {
      ...CHAT,
      messages: [{ role: secret, content: 'x' }],
    });
    expect(res.status).to.equal(400);
    const body = OpenAiErrorBodySchema.parse(parseJson(res.text));
    expect(body.error).to.include({ code: 'validation_failed', param: 'messages.0.role' });
    expect(res.text).to.not.include(secret);
    const unknown = await postJson(runtime.url, CHAT_PATH, { ...CHAT, tools: [] });
    expect(OpenAiErrorBodySchema.parse(parseJson(unknown.text)).error.param).to.equal('tools');
    const notJson = await httpCall(runtime.url, 'POST', CHAT_PATH, undefined);
    expect(notJson.status).to.equal(400);
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const res = await postJson(runtime.url, CHAT_PATH, {
      ...CHAT,
      messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }],
    });
    expect(res.status).to.equal(413);
    expect(OpenAiErrorBodySchema.parse(parseJson(res.text)).error.code).to.equal('payload_too_large');
    // The connection's next request is still served.
    expect((await httpCall(runtime.url, 'GET', '/health')).status).to.equal(200);
  });

  it('answers unknown paths with 404 and wrong methods with 405 and Allow', async () => {
    const missing = await httpCall(runtime.url, 'GET', '/v1/embeddings');
    expect(missing.status).to.equal(404);
    OpenAiErrorBodySchema.parse(parseJson(missing.text));
    const wrong = await httpCall(runtime.url, 'GET', CHAT_PATH);
    expect(wrong.status).to.equal(405);
    expect(wrong.headers['allow']).to.equal('POST');
  });
});
