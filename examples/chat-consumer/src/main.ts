import { CONTRACT_VERSION, GatewayClient, LunaNexaError, OperatorClient, SDK_VERSION } from '@lunanexa/sdk';

/**
 * An application using a LunaNexa gateway through @lunanexa/sdk alone:
 * discovers what it may call (with context length, capabilities and live
 * health), asks plainly and streamed, reports usage, shows a typed refusal,
 * and cancels a long stream. Each step prints one
 * JSON line (`{"step": …}`) so a test or a person can read what happened.
 *
 *   LUNANEXA_GATEWAY_URL   gateway base URL
 *   LUNANEXA_API_KEY       a gateway key
 *   LUNANEXA_MODEL         the alias to call (default: the first model listed)
 *   LUNANEXA_API_URL, LUNANEXA_OPERATOR_TOKEN   optional: operator discovery too
 */

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const report = (step: string, details: Record<string, unknown>) =>
  console.log(JSON.stringify({ step, ...details }));

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof LunaNexaError) {
    return {
      code: error.code,
      status: error.status,
      requestId: error.requestId,
      correlationId: error.correlationId,
      retryAfterSeconds: error.retryAfterSeconds,
    };
  }
  throw error;
}

async function main(): Promise<void> {
  const baseUrl = env('LUNANEXA_GATEWAY_URL');
  const gateway = new GatewayClient({ baseUrl, apiKey: env('LUNANEXA_API_KEY') });

  // What a router needs to choose: limits, what the model accepts, and how it is doing right now.
  const models = await gateway.discoverModels();
  const model = process.env.LUNANEXA_MODEL ?? models[0]?.id;
  if (model === undefined) throw new Error('the key may call no model');
  report('models', {
    ids: models.map((m) => m.id),
    models: models.map(({ id, contextLength, streaming, capabilities, dataClasses, health }) => ({
      id,
      contextLength,
      streaming,
      capabilities,
      dataClasses,
      health,
    })),
    sdk: { version: SDK_VERSION, contract: CONTRACT_VERSION },
    requestId: models.requestId,
  });

  if (process.env.LUNANEXA_API_URL && process.env.LUNANEXA_OPERATOR_TOKEN) {
    const operator = new OperatorClient({
      apiUrl: process.env.LUNANEXA_API_URL,
      token: process.env.LUNANEXA_OPERATOR_TOKEN,
    });
    const [aliases, deployments] = await Promise.all([operator.aliases(), operator.deployments()]);
    report('discovery', {
      aliases: aliases.map((a) => ({ name: a.name, modelRef: a.current?.modelRef ?? null })),
      deployments: deployments.map((d) => ({ name: d.name, state: d.state, readyReplicas: d.readyReplicas })),
    });
  }

  const messages = [{ role: 'user' as const, content: 'Say hello.' }];
  const plain = await gateway.createChatCompletion({ model, messages, max_tokens: 8 });
  report('plain', {
    model: plain.model,
    content: plain.choices[0]?.message.content,
    usage: plain.usage,
    requestId: plain.requestId,
    correlationId: plain.correlationId,
  });

  const stream = await gateway.streamChatCompletion({ model, messages, max_tokens: 8 });
  let content = '';
  for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
  report('streamed', { content, usage: stream.usage, requestId: stream.requestId });

  // The two calls above now show in the model's live health.
  const after = (await gateway.discoverModels()).find((m) => m.id === model);
  report('health', { model, health: after?.health ?? null });

  // A key the gateway does not know: refused with a typed error naming the request.
  const stranger = new GatewayClient({ baseUrl, apiKey: `lnxk_${'0'.repeat(43)}` });
  report(
    'refused',
    await stranger.createChatCompletion({ model, messages, max_tokens: 1 }).then(() => ({}), describe),
  );

  // A long generation the application stops after the first chunk: the abort closes the HTTP request.
  const controller = new AbortController();
  const long = await gateway.streamChatCompletion(
    { model, messages: [{ role: 'user', content: 'Tell a long story.' }], max_tokens: 500 },
    { signal: controller.signal },
  );
  let received = 0;
  const cancelled = await (async () => {
    for await (const chunk of long) {
      received += chunk.choices.length;
      if (received === 1) {
        report('cancelling', { requestId: long.requestId });
        // Give the test a moment to see the runtime generating before the abort.
        await new Promise((resolve) =>
          setTimeout(resolve, Number(process.env.LUNANEXA_CANCEL_AFTER_MS ?? 0)),
        );
        controller.abort();
      }
    }
    return {};
  })().catch(describe);
  report('cancelled', { ...cancelled, received, requestId: long.requestId });
}

main().then(
  () => report('done', {}),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
