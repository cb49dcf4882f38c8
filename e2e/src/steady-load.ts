import type { FleetHarness } from './fleet-harness';

/**
 * Clients calling a model through the gateway one request after another, each
 * new (none streaming when something breaks), counting every answer that is
 * not a 200: what a scenario that moves or loses replicas must keep at zero.
 */
export interface SteadyLoad {
  /** Answers so far: 200s, and every other outcome as `<status> <body start>`. */
  readonly outcomes: { ok: number; readonly errors: string[] };
  /** Stops the callers and waits for the requests still out. */
  stop(): Promise<{ readonly ok: number; readonly errors: readonly string[] }>;
}

export function startSteadyLoad(
  h: FleetHarness,
  model: string,
  options: { readonly callers?: number; readonly pauseMs?: number; readonly maxTokens?: number } = {},
): SteadyLoad {
  const outcomes = { ok: 0, errors: [] as string[] };
  let calling = true;
  const caller = async (): Promise<void> => {
    while (calling) {
      const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.operatorToken}` },
        body: JSON.stringify({
          model,
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: options.maxTokens ?? 4,
        }),
      }).catch((error: unknown) => ({ status: 0, text: () => Promise.resolve(String(error)) }));
      const text = await response.text();
      if (response.status === 200) outcomes.ok += 1;
      else outcomes.errors.push(`${response.status} ${text.slice(0, 120)}`);
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 50));
    }
  };
  const callers = Array.from({ length: options.callers ?? 1 }, () => caller());
  return {
    outcomes,
    async stop() {
      calling = false;
      await Promise.all(callers);
      return outcomes;
    },
  };
}

/** Waits until the gateway answers `model` (Ready in the database comes before the gateway's route refresh). */
export async function untilRouted(h: FleetHarness, model: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.operatorToken}` },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
    }).catch(() => null);
    await response?.arrayBuffer();
    if (response?.status === 200) return;
    if (Date.now() >= deadline) throw new Error(`the gateway did not route ${model} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
