import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FleetHarness,
  OTLP_SPAN_KIND,
  OtlpSink,
  fakeRuntimeProcesses,
  waitUntil,
  type ReceivedSpan,
} from '../src';

/**
 * OpenTelemetry tracing on the real stack (api, worker, gateway, an agent and
 * its runtime as processes; Temporal; PostgreSQL), exporting OTLP/HTTP JSON to
 * a receiver this test runs. One GraphQL mutation that starts a workflow
 * which pushes to the agent must be one trace across api → workflow →
 * activity → agent; one chat completion with the caller's traceparent must be
 * one trace across gateway → runtime, the runtime receiving the gateway's
 * client span as parent (propagated, not the caller's header echoed). Log
 * lines of every process carry the trace id.
 */

const MODEL = 'traced@v1';
const AGENT_SERVICE = 'lunanexa-agent';

function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** A synchronous probe for waitUntil (the sink and log files are read in place). */
function settled<T>(probe: () => T): () => Promise<T> {
  return () => Promise.resolve(probe());
}

function describeSpans(spans: readonly ReceivedSpan[]): string {
  return spans.map((s) => `${s.service} ${s.name} ${s.spanId}<-${s.parentSpanId ?? '-'}`).join('\n');
}

/** createDeployment starts the deployment workflow and asks it in one call (update-with-start). */
const API_START_SPAN = 'UpdateWithStartWorkflow:deploymentRecorded';

describe('tracing: one trace id from the api through Temporal to the agent, and from the gateway to the runtime', function () {
  this.timeout(600_000);
  let h: FleetHarness;
  let sink: OtlpSink;
  /** The trace of the createDeployment call (the first test), which the deployment's run belongs to. */
  let deploymentTraceId = '';

  const logLinesWith = (processName: string, traceId: string): Record<string, unknown>[] =>
    readFileSync(join(h.logDir, `${processName}.log`), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['trace_id'] === traceId);

  before(async () => {
    sink = await OtlpSink.start();
    h = await FleetHarness.start('tracing', {
      extraEnv: {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '200',
        // The gateway logs successful requests too, so its access log line can be found by trace id.
        LUNANEXA_GATEWAY_ACCESS_LOG: 'all',
      },
    });
    await h.startReadyAgent('traced-node');
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'traced', version: 'v1', ttftMs: 20, tokensPerSecond: 200 } },
    );
  });

  after(async () => {
    await h?.stop();
    for (const pid of fakeRuntimeProcesses(MODEL)) process.kill(pid, 'SIGKILL');
    await sink?.close();
  });

  it('createDeployment: api, workflow, activity and agent spans share the caller’s trace id, and so do their log lines', async () => {
    const caller = newTraceparent();
    deploymentTraceId = caller.traceId;
    const response = await fetch(`${h.apiUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.adminToken}`,
        traceparent: caller.traceparent,
      },
      body: JSON.stringify({
        query: `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
        variables: {
          input: { name: 'traced', model: MODEL, node: 'traced-node', replicas: 1, purpose: 'Candidate' },
        },
      }),
    });
    const answer = (await response.json()) as { data?: unknown; errors?: unknown };
    expect(answer.errors, JSON.stringify(answer)).to.equal(undefined);
    // The echoed traceparent names the api's server span, in the caller's trace.
    expect(response.headers.get('traceparent')).to.match(
      new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`),
    );

    const trace = await waitUntil(
      'api, worker and agent spans of the deployment in the caller’s trace',
      settled(() => {
        const spans = sink.inTrace(caller.traceId);
        const has = (service: string, prefix: string) =>
          spans.some((s) => s.service === service && s.name.startsWith(prefix));
        // The run's own span ends with the run (a deployment's workflow outlives the test); the
        // activities it schedules (StartActivity, recorded inside the workflow sandbox) are its children.
        return has('api', API_START_SPAN) &&
          has('worker', 'StartActivity:pushDeploymentAssignments') &&
          has('worker', 'RunActivity:pushDeploymentAssignments') &&
          has(AGENT_SERVICE, 'agent assignment.put')
          ? spans
          : null;
      }),
      120_000,
      250,
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\nspans in the trace:\n${describeSpans(sink.inTrace(caller.traceId))}`,
      );
    });
    expect(sink.rejected, 'exports the receiver could not decode').to.equal(0);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const one = (service: string, name: string): ReceivedSpan => {
      const span = trace.find((s) => s.service === service && s.name.startsWith(name));
      expect(span, `${service} ${name}\n${describeSpans(trace)}`).to.not.equal(undefined);
      return span!;
    };
    // The api's server span is the caller's child; the GraphQL span, the workflow start (update-with-start) below it.
    const server = one('api', 'POST /graphql');
    expect(server.kind).to.equal(OTLP_SPAN_KIND.server);
    expect(server.parentSpanId).to.equal(caller.spanId);
    const operation = one('api', 'graphql.mutation createDeployment');
    expect(operation.parentSpanId).to.equal(server.spanId);
    expect(one('api', API_START_SPAN).parentSpanId).to.equal(operation.spanId);
    // The agent's span is the child of the southbound client span the worker's activity opened.
    const agent = one(AGENT_SERVICE, 'agent assignment.put');
    const southbound = byId.get(agent.parentSpanId ?? '');
    expect(southbound?.service, describeSpans(trace)).to.equal('worker');
    expect(southbound?.name).to.equal('southbound assignment.put');
    const activity = byId.get(southbound?.parentSpanId ?? '');
    expect(activity?.name).to.equal('RunActivity:pushDeploymentAssignments');
    const scheduled = byId.get(activity?.parentSpanId ?? '');
    expect(scheduled?.name).to.equal('StartActivity:pushDeploymentAssignments');
    // Every activity the run scheduled has the same parent: the run's span (its workflow execution).
    const runSpanIds = new Set(
      trace.filter((s) => s.name.startsWith('StartActivity:')).map((s) => s.parentSpanId),
    );
    expect([...runSpanIds]).to.deep.equal([scheduled?.parentSpanId]);

    await waitUntil(
      'log lines with the trace id in api, worker and agent logs',
      settled(() =>
        ['api', 'worker', 'agent-traced-node'].every((name) => logLinesWith(name, caller.traceId).length > 0),
      ),
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\n${['api', 'worker', 'agent-traced-node']
          .map((name) => `${name}: ${logLinesWith(name, caller.traceId).length}`)
          .join(', ')}`,
      );
    });
    const accepted = logLinesWith('agent-traced-node', caller.traceId).find(
      (line) => line['event'] === 'assignment_accepted',
    );
    expect(accepted?.['span_id']).to.equal(agent.spanId);
    expect(
      logLinesWith('worker', caller.traceId).some((line) => line['event'] === 'southbound_request'),
    ).to.equal(true);
  });

  it('a chat completion: gateway and runtime share the caller’s trace id; the runtime’s parent is the gateway’s client span', async () => {
    await waitUntil(
      'deployment traced Ready and routed',
      async () => {
        const models = (await (await fetch(`${h.gatewayUrl}/v1/models`, h.asOperator())).json()) as {
          data: { id: string }[];
        };
        return models.data.some((m) => m.id === MODEL);
      },
      120_000,
    );
    const caller = newTraceparent();
    const response = await fetch(
      `${h.gatewayUrl}/v1/chat/completions`,
      h.asOperator({
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
        body: JSON.stringify({ model: MODEL, max_tokens: 4, messages: [{ role: 'user', content: 'hello' }] }),
      }),
    );
    expect(response.status, await response.clone().text()).to.equal(200);
    await response.arrayBuffer();

    const [gatewayServer, gatewayClient] = await waitUntil(
      'the gateway’s server and client spans in the caller’s trace',
      settled(() => {
        const spans = sink.inTrace(caller.traceId).filter((s) => s.service === 'gateway');
        const server = spans.find((s) => s.kind === OTLP_SPAN_KIND.server);
        const client = spans.find((s) => s.kind === OTLP_SPAN_KIND.client);
        return server && client ? ([server, client] as const) : null;
      }),
      30_000,
      200,
    );
    expect(gatewayServer.name).to.equal('POST /v1/chat/completions');
    expect(gatewayServer.parentSpanId).to.equal(caller.spanId);
    expect(gatewayClient.parentSpanId).to.equal(gatewayServer.spanId);
    expect(response.headers.get('traceparent')).to.equal(`00-${caller.traceId}-${gatewayServer.spanId}-01`);

    // What the runtime received: the gateway's client span, in the caller's trace — not the caller's header.
    const [replica] = await h.sql<{ endpoint_port: number }>(
      `SELECT a.endpoint_port FROM assignments a JOIN deployments d ON d.id = a.deployment_id
        WHERE d.name = 'traced' AND a.intent = 'Run'`,
    );
    const received = (await (
      await fetch(`http://127.0.0.1:${replica?.endpoint_port ?? 0}/debug/traceparents`)
    ).json()) as { traceparents: string[] };
    const inTrace = received.traceparents.filter((tp) => tp.includes(caller.traceId));
    expect(inTrace).to.deep.equal([`00-${caller.traceId}-${gatewayClient.spanId}-01`]);
    expect(inTrace).to.not.include(caller.traceparent);

    const access = logLinesWith('gateway', caller.traceId);
    expect(
      access.some((line) => line['msg'] === 'request' && line['route'] === '/v1/chat/completions'),
    ).to.equal(true);
  });

  it('stopping the deployment ends its run: the run’s span is the child of the api’s update-with-start span', async () => {
    expect(deploymentTraceId).to.not.equal('');
    await h.graphql(`mutation { stopDeployment(deployment: "traced") { deploymentId } }`);
    const run = await waitUntil(
      'the deployment run’s span',
      settled(() =>
        sink
          .inTrace(deploymentTraceId)
          .find((s) => s.service === 'worker' && s.name === 'RunWorkflow:deploymentWorkflow'),
      ),
      120_000,
      250,
    );
    const started = sink
      .inTrace(deploymentTraceId)
      .find((s) => s.service === 'api' && s.name === API_START_SPAN);
    expect(run.parentSpanId).to.equal(started?.spanId);
    const scheduled = sink.inTrace(deploymentTraceId).filter((s) => s.name.startsWith('StartActivity:'));
    expect(scheduled.length).to.be.greaterThan(0);
    for (const span of scheduled) expect(span.parentSpanId).to.equal(run.spanId);
  });
});
