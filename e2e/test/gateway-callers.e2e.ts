import { expect } from 'chai';
import OpenAI, { AuthenticationError, PermissionDeniedError, RateLimitError } from 'openai';
import { FleetHarness, waitUntil } from '../src';

/**
 * The gateway as a tenant's application meets it, on the real stack (api,
 * worker, gateway and an agent as processes, Temporal, PostgreSQL): the
 * official `openai` client with a tenant gateway key, typed 401/403/429,
 * revocation, a client that walks away mid-stream, and ten times a
 * deployment's capacity at once.
 */

const ALIAS = 'assistant';
/** Small admission bounds, so "ten times the capacity" is a handful of clients. */
const REPLICA_CONCURRENCY = 4;
const QUEUE_PER_REPLICA = 4;

interface Sample {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly oldSpaceBytes: number;
  readonly majorCollections: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly runtimeRunning: number;
}

function metric(text: string, name: string, labels = ''): number {
  const escaped = `${name}${labels}`.replace(/[{}"=.]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return match === null ? 0 : Number(match[1]);
}

/** The samples taken right after the gateway ran a full (mark-compact) collection: each reads its live set. */
function afterFullCollections(samples: readonly Sample[]): Sample[] {
  return samples.filter(
    (sample, i) => i > 0 && sample.majorCollections > (samples[i - 1]?.majorCollections ?? 0),
  );
}

/** Readings of the live set the overload runs for (past its 20 s, up to 60 s): growth needs a first and a last. */
const MIN_FULL_COLLECTIONS = 3;

function sum(text: string, name: string): number {
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm')))
    total += Number(match[1]);
  return total;
}

describe('gateway callers on the real stack: tenant keys, quotas, cancellation and overload', function () {
  this.timeout(600_000);
  let h: FleetHarness;
  let acmeKey = '';
  let acmeKeyId = '';
  let runtimeMetricsUrl = '';

  async function createTenant(id: string, quota: Record<string, number | null> = {}): Promise<void> {
    await h.graphql(`mutation($input: CreateTenantInput!) { createTenant(input: $input) { id } }`, {
      input: { id, ...quota },
    });
  }

  async function createKey(tenantId: string, aliases: string[]): Promise<{ id: string; secret: string }> {
    const data = await h.graphql<{ createGatewayKey: { key: { id: string }; secret: string } }>(
      `mutation($input: CreateGatewayKeyInput!) { createGatewayKey(input: $input) { key { id } secret } }`,
      { input: { tenantId, name: `${tenantId}-app`, aliases } },
    );
    return { id: data.createGatewayKey.key.id, secret: data.createGatewayKey.secret };
  }

  const client = (apiKey: string) =>
    new OpenAI({ apiKey, baseURL: `${h.gatewayUrl}/v1`, maxRetries: 0, timeout: 30_000 });

  before(async () => {
    h = await FleetHarness.start('gateway-callers', {
      leaseSeconds: 60,
      // Every collection a full one: the overload test reads the live set after each, however slowly the machine
      // lets the load run (V8 alone chose none in 60 s on a loaded 2-core CI machine).
      gatewayNodeArgs: ['--gc-global'],
      extraEnv: {
        LUNANEXA_GATEWAY_REPLICA_CONCURRENCY: String(REPLICA_CONCURRENCY),
        LUNANEXA_GATEWAY_QUEUE_PER_REPLICA: String(QUEUE_PER_REPLICA),
        LUNANEXA_GATEWAY_MAX_QUEUE_WAIT_MS: '5000',
      },
    });
    await h.startReadyAgent('node-a');
    // A fake version that streams 20 tokens in about 400 ms: a slot is held long enough to fill the queue.
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'assistant', version: '1', ttftMs: 50, tokensPerSecond: 50 } },
    );
    // Evaluation and approval are the registry's business (deploy-refusals.e2e.ts runs that path); here the
    // version only needs to be servable behind an alias.
    await h.sql(
      `UPDATE model_versions SET state = 'Approved',
              evaluation = jsonb_build_object('runId', 'seeded', 'suite', 'smoke', 'passed', true,
                'scores', jsonb_build_object('passRate', 1), 'evaluatedAt', to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
        WHERE ref = 'assistant@1'`,
    );
    await h.graphql(`mutation { createAlias(input: { name: "${ALIAS}", dataClass: "internal" }) { id } }`);
    const started = await h.graphql<{ startRollout: { rollout: { id: string } } }>(
      `mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id } } }`,
      { input: { alias: ALIAS, modelVersion: 'assistant@1' } },
    );
    await waitUntil(
      'the first rollout to promote',
      async () => {
        const data = await h.graphql<{ rollout: { state: string } }>(
          `query($id: ID!) { rollout(id: $id) { state } }`,
          { id: started.startRollout.rollout.id },
        );
        if (['RolledBack', 'Aborted', 'Refused', 'Failed'].includes(data.rollout.state))
          throw new Error(`rollout ended ${data.rollout.state}`);
        return data.rollout.state === 'Promoted';
      },
      180_000,
      500,
    );
    const [replica] = await h.sql<{ endpoint_port: number }>(
      `SELECT a.endpoint_port FROM assignments a JOIN aliases al ON true
         JOIN alias_revisions r ON r.alias_id = al.id AND r.revision = al.current_revision
        WHERE al.name = $1 AND a.deployment_id = r.deployment_id AND a.intent = 'Run'`,
      [ALIAS],
    );
    runtimeMetricsUrl = `http://127.0.0.1:${replica.endpoint_port}/metrics`;
    await createTenant('acme');
    await createTenant('globex');
    const key = await createKey('acme', [ALIAS]);
    acmeKey = key.secret;
    acmeKeyId = key.id;
    await waitUntil('the gateway to route the alias for the key', async () => {
      const response = await fetch(`${h.gatewayUrl}/v1/models`, {
        headers: { authorization: `Bearer ${acmeKey}` },
      });
      if (response.status !== 200) return false;
      return ((await response.json()) as { data: { id: string }[] }).data.some((m) => m.id === ALIAS);
    });
  });

  after(async () => {
    await h?.stop();
  });

  it('the official openai client with a tenant key calls the alias, plain and streamed, and lists only its aliases', async () => {
    const openai = client(acmeKey);
    const plain = await openai.chat.completions.create({
      model: ALIAS,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 8,
    });
    expect(plain.model).to.equal('assistant@1');
    expect(plain.choices[0]?.message.content).to.be.a('string').and.not.equal('');
    expect(plain.usage?.completion_tokens).to.equal(8);
    let streamed = '';
    const stream = await openai.chat.completions.create({
      model: ALIAS,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 8,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: number | undefined;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage?.completion_tokens ?? usage;
    }
    expect(streamed).to.equal(plain.choices[0]?.message.content, 'the fake runtime is deterministic');
    expect(usage).to.equal(8);
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).to.deep.equal([ALIAS]);
  });

  it('typed errors through the openai client: 401 AuthenticationError, 403 PermissionDeniedError', async () => {
    const message = { model: ALIAS, messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 2 };
    const unknownKey = `lnxk_${'x'.repeat(43)}`;
    const refused = async (apiKey: string, body: typeof message) =>
      client(apiKey)
        .chat.completions.create(body)
        .then(
          () => null,
          (error: unknown) => error,
        );
    const unauthenticated = await refused(unknownKey, message);
    expect(unauthenticated).to.be.instanceOf(AuthenticationError);
    expect((unauthenticated as AuthenticationError).status).to.equal(401);
    expect((unauthenticated as AuthenticationError).code).to.equal('unauthenticated');
    const pinned = await refused(acmeKey, { ...message, model: 'assistant@1' });
    expect(pinned).to.be.instanceOf(PermissionDeniedError);
    expect((pinned as PermissionDeniedError).code).to.equal('forbidden');
    const otherTenant = await createKey('globex', [ALIAS]);
    const foreign = await client(otherTenant.secret)
      .chat.completions.create(message, { headers: { 'x-lunanexa-tenant-id': 'acme' } })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(foreign).to.be.instanceOf(PermissionDeniedError);
    // Operators reach the pinned version with their own token.
    const operator = await client(h.operatorToken).chat.completions.create({
      ...message,
      model: 'assistant@1',
    });
    expect(operator.model).to.equal('assistant@1');
    // Records name the tenant and the caller: acme's two served requests under its key, the operator's by token.
    await waitUntil('the request records to be written', async () => {
      const rows = await h.sql<{ tenant_id: string; caller: string; outcome: string }>(
        `SELECT tenant_id, caller, outcome FROM request_records WHERE outcome = 'Completed' ORDER BY id`,
      );
      return rows.length === 3 ? rows : null;
    }).then((rows) => {
      expect(rows.map((row) => row.tenant_id)).to.deep.equal(['acme', 'acme', 'default']);
      expect(rows[0].caller).to.match(/^lnxk_[A-Za-z0-9_-]{8}$/);
      expect(rows[2].caller).to.match(/^token:lnx_/);
    });
  });

  it('a tenant over its requests per minute gets 429 RateLimitError with Retry-After; its key is recorded as used', async () => {
    await createTenant('initech', { requestsPerMinute: 3 });
    const { secret } = await createKey('initech', [ALIAS]);
    const openai = client(secret);
    const message = { model: ALIAS, messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 2 };
    for (let i = 0; i < 3; i += 1) await openai.chat.completions.create(message);
    const limited = await openai.chat.completions.create(message).then(
      () => null,
      (error: unknown) => error,
    );
    expect(limited).to.be.instanceOf(RateLimitError);
    expect((limited as RateLimitError).status).to.equal(429);
    expect((limited as RateLimitError).code).to.equal('quota_exceeded');
    const retryAfter = Number((limited as RateLimitError).headers?.get('retry-after'));
    expect(retryAfter).to.be.within(15, 20, 'one request per 20 s refills');
    const metrics = await (await fetch(`${h.gatewayUrl}/metrics`)).text();
    expect(metric(metrics, 'lunanexa_gateway_quota_refusals_total', '{limit="requestsPerMinute"}')).to.equal(
      1,
    );
  });

  it('a revoked key is refused on the next call (NOTIFY reloads the gateway at once)', async () => {
    const { id, secret } = await createKey('acme', [ALIAS]);
    const openai = client(secret);
    const message = { model: ALIAS, messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 1 };
    await openai.chat.completions.create(message);
    await h.graphql(`mutation($id: ID!) { revokeGatewayKey(id: $id) { state } }`, { id });
    const revokedAt = Date.now();
    await waitUntil(
      'the revoked key to be refused',
      async () => {
        const outcome = await openai.chat.completions.create(message).then(
          () => null,
          (error: unknown) => error,
        );
        return outcome instanceof AuthenticationError;
      },
      5_000,
      50,
    );
    // The credential refresh interval is 30 s: only the notification explains a refusal this soon.
    expect(Date.now() - revokedAt).to.be.below(3_000);
    expect(acmeKeyId).to.not.equal(id);
  });

  it('a client that closes mid-stream cancels the request at the runtime and frees the slot', async () => {
    const controller = new AbortController();
    const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acmeKey}` },
      body: JSON.stringify({
        model: ALIAS,
        messages: [{ role: 'user', content: 'long' }],
        max_tokens: 500,
        stream: true,
      }),
      signal: controller.signal,
    });
    expect(response.status).to.equal(200);
    const reader = response.body!.getReader();
    await reader.read();
    await waitUntil('the runtime to run the request', async () => {
      const running = metric(await (await fetch(runtimeMetricsUrl)).text(), 'vllm:num_requests_running');
      return running === 1;
    });
    controller.abort();
    await waitUntil(
      'the runtime and the gateway to let go of it',
      async () => {
        const runtime = metric(await (await fetch(runtimeMetricsUrl)).text(), 'vllm:num_requests_running');
        const gateway = sum(
          await (await fetch(`${h.gatewayUrl}/metrics`)).text(),
          'lunanexa_gateway_in_flight',
        );
        return runtime === 0 && gateway === 0;
      },
      5_000,
      50,
    );
    await waitUntil('the cancelled request to be recorded', async () => {
      const [record] = await h.sql<{ outcome: string }>(
        `SELECT outcome FROM request_records WHERE requested_model = $1 ORDER BY id DESC LIMIT 1`,
        [ALIAS],
      );
      return record?.outcome === 'Cancelled';
    });
  });

  it('at ten times the capacity: the queue stays bounded, every accepted request completes, every refusal is typed, memory stays flat', async () => {
    const capacity = REPLICA_CONCURRENCY;
    const clients = 10 * capacity;
    const startedAt = Date.now();
    const atLeastUntil = startedAt + 20_000;
    const atMostUntil = startedAt + 60_000;
    const outcomes = { completed: 0, refused: 0, other: [] as string[] };
    const retryAfters = new Set<string>();
    const samples: Sample[] = [];
    const loadEnds = () =>
      Date.now() >= atMostUntil ||
      (Date.now() >= atLeastUntil && afterFullCollections(samples).length >= MIN_FULL_COLLECTIONS);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [gateway, runtime] = await Promise.all([
          fetch(`${h.gatewayUrl}/metrics`).then((r) => r.text()),
          fetch(runtimeMetricsUrl).then((r) => r.text()),
        ]);
        samples.push({
          rssBytes: metric(gateway, 'lunanexa_process_resident_memory_bytes'),
          heapUsedBytes: metric(gateway, 'lunanexa_nodejs_heap_size_used_bytes'),
          oldSpaceBytes: metric(gateway, 'lunanexa_nodejs_heap_space_size_used_bytes', '{space="old"}'),
          majorCollections: metric(gateway, 'lunanexa_nodejs_gc_duration_seconds_count', '{kind="major"}'),
          queued: sum(gateway, 'lunanexa_gateway_queue_depth'),
          inFlight: sum(gateway, 'lunanexa_gateway_in_flight'),
          runtimeRunning: metric(runtime, 'vllm:num_requests_running'),
        });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const one = async (): Promise<void> => {
      const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${acmeKey}` },
        body: JSON.stringify({
          model: ALIAS,
          messages: [{ role: 'user', content: 'load' }],
          max_tokens: 20,
          stream: true,
        }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status === 200) {
        const events = text.split('\n\n').filter((block) => block.startsWith('data: '));
        const tokens = events.filter((block) => block.includes('"content"')).length;
        if (events.at(-1) === 'data: [DONE]' && tokens === 20) outcomes.completed += 1;
        else outcomes.other.push(`incomplete stream (${tokens} tokens, last ${events.at(-1) ?? 'none'})`);
        return;
      }
      const problem = JSON.parse(text) as { code?: string };
      const retryAfter = response.headers.get('retry-after');
      if (response.status === 503 && problem.code === 'NO_CAPACITY' && retryAfter !== null) {
        outcomes.refused += 1;
        retryAfters.add(retryAfter);
      } else outcomes.other.push(`${response.status} ${problem.code ?? text.slice(0, 80)}`);
    };
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (!loadEnds()) {
          await one().catch((error: unknown) => outcomes.other.push(`network: ${String(error)}`));
          // A refused client comes straight back: the pressure stays at ten times the capacity.
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }),
    );
    sampling = false;
    await sampler;

    expect(outcomes.other, outcomes.other.slice(0, 5).join('; ')).to.deep.equal([]);
    expect(outcomes.completed, 'accepted requests completed').to.be.above(100);
    expect(outcomes.refused, 'requests beyond capacity were refused').to.be.above(outcomes.completed);
    for (const value of retryAfters) expect(Number(value)).to.be.within(1, 60);
    // Every 250 ms when the machine keeps up; a loaded CI machine answers /metrics slower under this
    // pressure, and the bounds below need samples across the run, not a given rate.
    expect(samples.length, 'metrics samples over the run').to.be.at.least(15);
    const worst = (pick: (s: Sample) => number) => Math.max(...samples.map(pick));
    expect(
      worst((s) => s.queued),
      'queue depth',
    ).to.be.at.most(QUEUE_PER_REPLICA);
    expect(
      worst((s) => s.inFlight),
      'gateway in flight',
    ).to.be.at.most(capacity);
    expect(
      worst((s) => s.runtimeRunning),
      'runtime in flight',
    ).to.be.at.most(capacity);
    // Flat: what survives garbage collection does not grow. Right after a full (mark-compact)
    // collection the old generation holds only what is still referenced, so each sample that follows
    // one reads the live set; the last such reading must not sit above the first by more than a few
    // MiB: tens of thousands of refusals retaining even 400 bytes each would pass 8 MiB. The gateway runs
    // with --gc-global here, so every collection is full and there are readings however slow the machine.
    // RSS is reported, not judged: V8 grows and keeps its heap pages lazily.
    const liveSets = afterFullCollections(samples).map((s) => s.oldSpaceBytes);
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    console.log(
      `      ${outcomes.completed} completed, ${outcomes.refused} refused (503 NO_CAPACITY) in ${((Date.now() - startedAt) / 1000).toFixed(0)} s, ` +
        `queue max ${worst((s) => s.queued)}/${QUEUE_PER_REPLICA}, in flight max ${worst((s) => s.inFlight)}/${capacity}, ` +
        `old generation after each full collection ${liveSets.map(mib).join(' → ')} MiB, RSS max ${mib(worst((s) => s.rssBytes))} MiB`,
    );
    expect(liveSets.length, 'full collections seen under load').to.be.at.least(MIN_FULL_COLLECTIONS);
    const [firstLive = 0] = liveSets;
    const lastLive = liveSets.at(-1) ?? 0;
    expect(lastLive - firstLive, 'old generation growth that survives collection').to.be.below(8 * 2 ** 20);
    // Everything let go afterwards.
    await waitUntil('the gateway to be idle', async () => {
      const text = await (await fetch(`${h.gatewayUrl}/metrics`)).text();
      return sum(text, 'lunanexa_gateway_in_flight') === 0 && sum(text, 'lunanexa_gateway_queue_depth') === 0;
    });
  });
});
