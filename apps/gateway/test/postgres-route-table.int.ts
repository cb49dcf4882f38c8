import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { expect } from 'chai';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import {
  DATA_CLASSES,
  OpenAiChatChunkSchema,
  ProblemDetailsSchema,
  WorkloadDeltaChunkSchema,
} from '@lunanexa/contracts';
import { FAKE_RUNTIME_MAIN, generate } from '@lunanexa/fake-runtime';
import { createLogger } from '@lunanexa/observability';
import {
  createScratchDatabase,
  listRuntimeLoads,
  queryableOf,
  recordAssignmentObservations,
  runMigrations,
  setDeploymentRoutingPolicy,
  testAdminUrl,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import { PostgresRouteTable, type PostgresRouteTableOptions } from '../src/postgres-route-table';
import {
  CapturedLog,
  TEST_OPERATOR_TOKEN,
  call,
  postJson,
  startGateway,
  unusedPort,
  type StartedGateway,
} from './support';

const REF = 'llama-3-1-8b-instruct@2024-07-23';
const OTHER_REF = 'mistral-7b@v0-3';
const QUESTION = 'Which nodes are draining?';

/** What the deterministic fake runtime writes for QUESTION, so a test can tell a whole stream from a cut one. */
function expectedText(maxTokens: number): string {
  const messages = [{ role: 'user', content: QUESTION }];
  return generate({ model: REF, prompt: { kind: 'chat', messages }, seed: 0, maxTokens, stop: [] }).text;
}

interface ReplicaSpec {
  readonly node: string;
  readonly deployment: string;
  readonly port: number;
  readonly ref?: string;
  readonly address?: string;
  /** Deployment timestamps, to control merge order and the listed createdAt. */
  readonly deploymentCreatedAt?: string;
  readonly deploymentUpdatedAt?: string;
  /** The version's license (default: the built-in approved synthetic license). */
  readonly licenseId?: string;
}

const SYNTHETIC_LICENSE_ID = '00000000-0000-4000-8000-000000000001';
const CANARY_REF = 'llama-3-1-8b-instruct@2024-09-01';

/** One chunk of a server-sent-events stream and when the client received it. */
interface TimedEvent {
  readonly data: string;
  readonly atMs: number;
}

interface OpenStream {
  /** Resolves when the first `data:` event arrived. */
  readonly firstEvent: Promise<void>;
  readonly done: Promise<{ status: number; events: TimedEvent[]; finishedAtMs: number }>;
}

/** A streaming POST that timestamps every SSE event as it arrives, so tests can tell streaming from buffering. */
function openStream(baseUrl: string, path: string, body: unknown): OpenStream {
  let markFirst: () => void = () => undefined;
  let failFirst: (error: Error) => void = () => undefined;
  const firstEvent = new Promise<void>((resolve, reject) => {
    markFirst = resolve;
    failFirst = reject;
  });
  const done = new Promise<{ status: number; events: TimedEvent[]; finishedAtMs: number }>(
    (resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(
        `${baseUrl}${path}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
        },
        (res) => {
          const events: TimedEvent[] = [];
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            buffer += text;
            for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              if (!block.startsWith('data: ')) continue;
              events.push({ data: block.slice('data: '.length), atMs: performance.now() });
              if (events.length === 1) markFirst();
            }
          });
          res.on('end', () => {
            if (events.length === 0) failFirst(new Error(`no event; HTTP ${res.statusCode} ${buffer}`));
            resolve({ status: res.statusCode ?? 0, events, finishedAtMs: performance.now() });
          });
          res.on('error', reject);
        },
      );
      req.on('error', (error) => {
        failFirst(error);
        reject(error);
      });
      req.end(payload);
    },
  );
  return { firstEvent, done };
}

/** Milliseconds between the first and the last event: near zero when a reply was buffered and sent at once. */
function spreadMs(events: readonly TimedEvent[]): number {
  const first = events.at(0);
  const last = events.at(-1);
  if (first === undefined || last === undefined) throw new Error('no events');
  return last.atMs - first.atMs;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await delay(25);
  }
}

async function counterValue(table: PostgresRouteTable): Promise<number> {
  return (await table.metrics.refreshFailures.get()).values[0]?.value ?? 0;
}

interface FakeRuntimeProcess {
  readonly port: number;
  stop(): Promise<void>;
}

/** The real fake runtime as a child process, on a port the OS picks (read back from its "listening" line). */
async function startFakeRuntime(args: readonly string[]): Promise<FakeRuntimeProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [FAKE_RUNTIME_MAIN, '--port', '0', '--log-level', 'info', ...args],
    { env: { PATH: process.env['PATH'] ?? '' } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8');
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === 'fake runtime listening' && typeof parsed.port === 'number') {
          child.stdout.off('data', onData);
          // Keep draining stdout so the child never blocks on a full pipe.
          child.stdout.resume();
          resolve(parsed.port);
          return;
        }
      }
    };
    child.stdout.on('data', onData);
    void exited.then(() => reject(new Error(`fake runtime exited before listening: ${stderr}`)));
  });
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('PostgresRouteTable on PostgreSQL', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let sql: Client;
  let tokenId: string;
  const tables: PostgresRouteTable[] = [];

  function table(options: Partial<PostgresRouteTableOptions> = {}): PostgresRouteTable {
    const created = new PostgresRouteTable({
      databaseUrl: db.url,
      logger: createLogger({ service: 'gateway', level: 'silent', destination: new CapturedLog() }),
      // Tests refresh by hand unless they start the loop; a long interval keeps the two apart.
      refreshMs: 60_000,
      ...options,
    });
    tables.push(created);
    return created;
  }

  async function addReplica(spec: ReplicaSpec): Promise<void> {
    const ref = spec.ref ?? REF;
    const [model, version] = ref.split('@') as [string, string];
    await sql.query(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at)
       VALUES ($1, $2, 'Active', $3, 22, 'SHA256:test', 'key-1', 'test-public-key', '{}'::jsonb,
               now(), now() + interval '1 minute', $4, $5, now(), now())
       ON CONFLICT (id) DO NOTHING`,
      [`node-${spec.node}`, spec.node, spec.address ?? '127.0.0.1', `enroll-${spec.node}`, tokenId],
    );
    await sql.query(
      `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
       VALUES ($1, $2, $2, 'test', now(), now()) ON CONFLICT (name) DO NOTHING`,
      [randomUUID(), model],
    );
    await sql.query(
      `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
       VALUES ('runtime-test', 'test', '1', 'fake', '{}'::jsonb, 'test', now(), now()) ON CONFLICT (id) DO NOTHING`,
    );
    await sql.query(
      `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                   state, license_id, runtime_id, requirements, updated_at)
       SELECT $1, $2, $3, $4, '{}'::jsonb, '{}'::jsonb, 'test', now(), m.id, 'Approved', $5, 'runtime-test',
              '{}'::jsonb, now()
         FROM models m WHERE m.name = $2
       ON CONFLICT (ref) DO NOTHING`,
      [randomUUID(), model, version, ref, spec.licenseId ?? SYNTHETIC_LICENSE_ID],
    );
    await sql.query(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                                desired_replicas, workflow_id, created_by, created_at, updated_at)
       SELECT $1, $2, mv.id, mv.ref, 'Ready', 1, 1, 1, $3, 'test',
              COALESCE($4::timestamptz, now()), COALESCE($5::timestamptz, now())
         FROM model_versions mv WHERE mv.ref = $6
       ON CONFLICT (id) DO NOTHING`,
      [
        `dep-${spec.deployment}`,
        spec.deployment,
        `deploy-${spec.deployment}`,
        spec.deploymentCreatedAt ?? null,
        spec.deploymentUpdatedAt ?? null,
        ref,
      ],
    );
    await sql.query(
      `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                observed_state, observed_generation, endpoint_port, in_flight, observed_at,
                                created_at, updated_at)
       VALUES ($1, $2, $3, 1, 'Run', now() + interval '1 minute', '{}'::jsonb, 'Ready', 1, $4, 0, now(), now(), now())`,
      [`asg-${spec.deployment}-${spec.node}`, `dep-${spec.deployment}`, `node-${spec.node}`, spec.port],
    );
  }

  before(async () => {
    db = await createScratchDatabase('gateway_routes', testAdminUrl());
    await runMigrations(db.url);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    tokenId = randomUUID();
    await sql.query(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_abcdEFGH', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'ab'.repeat(32)],
    );
  });

  afterEach(async () => {
    await Promise.all(tables.splice(0).map((t) => t.close()));
  });

  after(async () => {
    await sql?.end();
    await db?.drop();
  });

  describe('snapshot', () => {
    beforeEach(async () => {
      await sql.query(
        'TRUNCATE alias_revisions, rollouts, aliases, assignments, deployments, model_versions, nodes CASCADE',
      );
      await addReplica({
        node: 'gpu-a',
        deployment: 'llama',
        address: '10.0.0.11',
        port: 41001,
        deploymentCreatedAt: '2025-11-20T09:00:00.000Z',
      });
    });

    it('carries the deployment’s routing policy on its routes, changed at the next refresh', async () => {
      const routes = table();
      await routes.refresh();
      expect(routes.lookup(REF)?.routingPolicy).to.equal('least-loaded');
      expect(await setDeploymentRoutingPolicy(queryableOf(sql), 'dep-llama', 'prefix-affinity')).to.equal(
        'least-loaded',
      );
      await routes.refresh();
      expect(routes.lookup(REF)?.routingPolicy).to.equal('prefix-affinity');
      expect(await setDeploymentRoutingPolicy(queryableOf(sql), 'dep-nobody', 'round-robin')).to.equal(null);
    });

    it('is not ready and knows nothing before the first refresh', () => {
      const routes = table();
      expect(routes.ready()).to.equal(false);
      expect(routes.lookup(REF)).to.equal(undefined);
      expect(routes.models()).to.deep.equal([]);
    });

    it('routes a Ready replica on an Active node with fresh leases, keyed by the model ref', async () => {
      const routes = table();
      expect(await routes.refresh()).to.equal(true);
      expect(routes.ready()).to.equal(true);
      expect(routes.lookup(REF)).to.deep.equal({
        modelVersion: REF,
        alias: null,
        deploymentId: 'dep-llama',
        allowedDataClasses: DATA_CLASSES,
        endpoints: [{ baseUrl: 'http://10.0.0.11:41001', servedModel: REF, deploymentId: 'dep-llama' }],
        routingPolicy: 'least-loaded',
      });
      expect(routes.lookup('llama-3-1-8b-instruct')).to.equal(undefined);
      expect(routes.models()).to.deep.equal([
        {
          id: REF,
          createdAt: '2025-11-20T09:00:00.000Z',
          kind: 'modelVersion',
          modelVersion: REF,
          contextLength: null,
          allowedDataClasses: DATA_CLASSES,
          readyReplicas: 1,
          deploymentIds: ['dep-llama'],
        },
      ]);
    });

    const exclusions: readonly (readonly [string, string])[] = [
      ['the replica is still Starting', `UPDATE assignments SET observed_state = 'Starting'`],
      ['the intent is Stop', `UPDATE assignments SET intent = 'Stop'`],
      ['no endpoint port was reported', `UPDATE assignments SET endpoint_port = NULL`],
      [
        'the assignment lease expired',
        `UPDATE assignments SET lease_expires_at = now() - interval '1 second'`,
      ],
      [
        'the node lease lapsed longer ago than the unconfirmed grace',
        `UPDATE nodes SET lease_expires_at = now() - interval '31 seconds'`,
      ],
      ['the node never renewed a lease', `UPDATE nodes SET lease_expires_at = NULL`],
      ['the node is Drained', `UPDATE nodes SET lifecycle = 'Drained'`],
      ['the deployment is Stopping', `UPDATE deployments SET state = 'Stopping'`],
      ['the deployment is Stopped', `UPDATE deployments SET state = 'Stopped'`],
      ['the deployment Failed', `UPDATE deployments SET state = 'Failed'`],
    ];
    for (const [reason, update] of exclusions) {
      it(`drops the replica at the next refresh when ${reason}`, async () => {
        const routes = table();
        await routes.refresh();
        expect(routes.lookup(REF)).to.not.equal(undefined);
        await sql.query(update);
        expect(await routes.refresh()).to.equal(true);
        expect(routes.lookup(REF)).to.equal(undefined);
        expect(routes.models()).to.deep.equal([]);
        expect(routes.ready()).to.equal(true);
      });
    }

    it('keeps a replica whose Ready is unconfirmed as its deployment’s last resort, never beside a confirmed one', async () => {
      const routes = table();
      const served = async () => {
        await routes.refresh();
        return routes.lookup(REF)?.endpoints.map((e) => e.baseUrl) ?? [];
      };
      // Heartbeats late (a busy controller): the lease lapsed a moment ago, the node is not declared lost.
      await sql.query(`UPDATE nodes SET lease_expires_at = now() - interval '1 second' WHERE name = 'gpu-a'`);
      expect(await served(), 'the only replica still routes').to.deep.equal(['http://10.0.0.11:41001']);
      expect(routes.models().map((model) => model.id)).to.deep.equal([REF]);
      await addReplica({ node: 'gpu-b', deployment: 'llama', address: '10.0.0.12', port: 41002 });
      expect(await served(), 'a confirmed replica takes every request').to.deep.equal([
        'http://10.0.0.12:41002',
      ]);
      // The confirmed one's desired generation moves on before its agent reports it: both are unconfirmed now.
      await sql.query(`UPDATE assignments SET generation = 2 WHERE node_id = 'node-gpu-b'`);
      expect(await served()).to.have.members(['http://10.0.0.11:41001', 'http://10.0.0.12:41002']);
      // Past the grace the lapsed node's replica is gone; the other one's agent reports the generation.
      await sql.query(
        `UPDATE nodes SET lease_expires_at = now() - interval '31 seconds' WHERE name = 'gpu-a'`,
      );
      await sql.query(`UPDATE assignments SET observed_generation = 2 WHERE node_id = 'node-gpu-b'`);
      expect(await served()).to.deep.equal(['http://10.0.0.12:41002']);
    });

    it('drains make-before-break: a Draining node serves until a replica elsewhere is Ready, then traffic leaves it', async () => {
      const routes = table();
      const served = async () => {
        await routes.refresh();
        return routes.lookup(REF)?.endpoints.map((e) => e.baseUrl) ?? [];
      };
      await sql.query(`UPDATE nodes SET lifecycle = 'Draining' WHERE name = 'gpu-a'`);
      expect(await served(), 'the only replica keeps serving').to.deep.equal(['http://10.0.0.11:41001']);
      await addReplica({ node: 'gpu-b', deployment: 'llama', address: '10.0.0.12', port: 41002 });
      await sql.query(`UPDATE assignments SET observed_state = 'Starting' WHERE node_id = 'node-gpu-b'`);
      expect(await served(), 'the replacement is not Ready yet').to.deep.equal(['http://10.0.0.11:41001']);
      await sql.query(`UPDATE assignments SET observed_state = 'Ready' WHERE node_id = 'node-gpu-b'`);
      expect(await served(), 'the replacement takes every new request').to.deep.equal([
        'http://10.0.0.12:41002',
      ]);
      await sql.query(`UPDATE assignments SET intent = 'Stop' WHERE node_id = 'node-gpu-a'`);
      expect(await served()).to.deep.equal(['http://10.0.0.12:41002']);
      // Another deployment's only replica on the draining node is not pushed out by this one's replacement.
      await addReplica({
        node: 'gpu-a',
        deployment: 'mistral',
        ref: OTHER_REF,
        address: '10.0.0.11',
        port: 41003,
      });
      await routes.refresh();
      expect(routes.lookup(OTHER_REF)?.endpoints.map((e) => e.baseUrl)).to.deep.equal([
        'http://10.0.0.11:41003',
      ]);
    });

    it('keeps routing to a cordoned node that is still Active (cordon only blocks placements)', async () => {
      const routes = table();
      await sql.query(`UPDATE nodes SET cordoned = true`);
      await routes.refresh();
      expect(routes.lookup(REF)?.endpoints.map((e) => e.baseUrl)).to.deep.equal(['http://10.0.0.11:41001']);
    });

    it('carries the runtime load the heartbeat fold stored, and clears it when the next report has none', async () => {
      const routes = table();
      const heard = new Date();
      const observation = {
        assignmentId: 'asg-llama-gpu-a',
        state: 'Ready',
        generation: 1,
        endpointPort: 41001,
        inFlightRequests: 3,
        message: null,
        restarts: 0,
      };
      const scrapedAt = new Date(heard.getTime() - 2000);
      await recordAssignmentObservations(
        queryableOf(sql),
        'node-gpu-a',
        [
          {
            ...observation,
            load: { waiting: 4, running: 3, cachePressure: 0.875, scrapedAt: scrapedAt.toISOString() },
          },
        ],
        heard,
      );
      await routes.refresh();
      expect(routes.lookup(REF)?.endpoints[0]?.load).to.deep.equal({
        waiting: 4,
        running: 3,
        cachePressure: 0.875,
        scrapedAtMs: scrapedAt.getTime(),
      });
      const since = new Date(heard.getTime() - 10_000);
      expect(await listRuntimeLoads(queryableOf(sql), since)).to.deep.equal([
        { deploymentId: 'dep-llama', nodeName: 'gpu-a', waiting: 4, running: 3, cachePressure: 0.875 },
      ]);
      // Reports scraped before the bound are not exported.
      expect(await listRuntimeLoads(queryableOf(sql), new Date(heard.getTime() - 1000))).to.deep.equal([]);

      // An agent clock ahead of the controller's: the time is clamped to when the heartbeat was heard.
      await recordAssignmentObservations(
        queryableOf(sql),
        'node-gpu-a',
        [
          {
            ...observation,
            load: {
              waiting: null,
              running: 1,
              cachePressure: null,
              scrapedAt: new Date(heard.getTime() + 3_600_000).toISOString(),
            },
          },
        ],
        heard,
      );
      await routes.refresh();
      expect(routes.lookup(REF)?.endpoints[0]?.load).to.deep.equal({
        waiting: null,
        running: 1,
        cachePressure: null,
        scrapedAtMs: heard.getTime(),
      });

      // An older agent (no load field) or an unread page: the figures go, they do not linger.
      await recordAssignmentObservations(queryableOf(sql), 'node-gpu-a', [observation], heard);
      await routes.refresh();
      expect(routes.lookup(REF)?.endpoints[0]).to.not.have.property('load');
      expect(await listRuntimeLoads(queryableOf(sql), since)).to.deep.equal([]);
    });

    it('merges deployments of one ref and rotates replicas round-robin across refreshes', async () => {
      await sql.query(`UPDATE deployments SET updated_at = '2025-11-20T10:00:00Z'`);
      await addReplica({
        node: 'gpu-b',
        deployment: 'llama-2',
        address: 'fd00::12',
        port: 41002,
        deploymentCreatedAt: '2025-11-19T08:00:00.000Z',
        deploymentUpdatedAt: '2025-11-20T11:00:00.000Z',
      });
      await addReplica({
        node: 'gpu-b',
        deployment: 'mistral',
        ref: OTHER_REF,
        address: 'fd00::12',
        port: 41003,
      });
      const routes = table();
      await routes.refresh();
      const order = () => {
        const route = routes.lookup(REF);
        return [
          route?.deploymentId,
          ...(route?.endpoints ?? []).map((e) => `${e.deploymentId} ${e.baseUrl}`),
        ];
      };
      const a = ['dep-llama', 'dep-llama http://10.0.0.11:41001', 'dep-llama-2 http://[fd00::12]:41002'];
      const b = ['dep-llama-2', 'dep-llama-2 http://[fd00::12]:41002', 'dep-llama http://10.0.0.11:41001'];
      expect([order(), order(), order()]).to.deep.equal([a, b, a]);
      await routes.refresh();
      // The rotation continues where it was instead of restarting at the first replica.
      expect([order(), order()]).to.deep.equal([b, a]);
      expect(routes.lookup(OTHER_REF)?.endpoints).to.have.length(1);
      expect(routes.models().map((m) => m.id)).to.deep.equal([REF, OTHER_REF].sort());
      expect(routes.models().find((m) => m.id === REF)?.createdAt).to.equal('2025-11-19T08:00:00.000Z');
    });

    it('picks up changes on its own every refreshMs once started', async () => {
      const routes = table({ refreshMs: 100 });
      routes.start();
      await eventually('first load', () => routes.ready());
      expect(routes.lookup(REF)).to.not.equal(undefined);
      await sql.query(`UPDATE nodes SET lifecycle = 'Drained'`);
      await eventually('the drained node to drop out', () => routes.lookup(REF) === undefined);
      await sql.query(`UPDATE nodes SET lifecycle = 'Active'`);
      await eventually('the node to return', () => routes.lookup(REF) !== undefined);
    });

    it('keeps the last snapshot when a refresh fails, counts it, and goes unready once stale', async () => {
      let clock = Date.parse('2025-11-20T09:15:00.000Z');
      const registry = new Registry();
      const routes = table({ staleAfterMs: 30_000, now: () => clock, registry });
      await routes.refresh();
      const before = routes.lookup(REF);
      await sql.query(`ALTER TABLE assignments RENAME TO assignments_away`);
      try {
        clock += 5000;
        expect(await routes.refresh()).to.equal(false);
        expect(await routes.refresh()).to.equal(false);
        expect(await counterValue(routes)).to.equal(2);
        expect(routes.lookup(REF)?.endpoints).to.deep.equal(before?.endpoints);
        expect(routes.ready()).to.equal(true);
        const text = await registry.metrics();
        expect(text).to.match(/^lunanexa_gateway_route_refresh_failures_total 2$/m);
        expect(text).to.match(/^lunanexa_gateway_route_snapshot_age_seconds 5$/m);
        clock += 25_001;
        expect(routes.ready()).to.equal(false);
        // Still answering from the old snapshot: /ready steers traffic away, requests already here are served.
        expect(routes.lookup(REF)).to.not.equal(undefined);
      } finally {
        await sql.query(`ALTER TABLE assignments_away RENAME TO assignments`);
      }
      expect(await routes.refresh()).to.equal(true);
      expect(routes.ready()).to.equal(true);
      expect(await registry.metrics()).to.match(/^lunanexa_gateway_route_snapshot_age_seconds 0$/m);
    });

    it('survives losing its database: the pooled connection dies, the snapshot stays', async () => {
      const doomed = await createScratchDatabase('gateway_routes_doomed', testAdminUrl());
      try {
        await runMigrations(doomed.url);
        const setup = new Client({ connectionString: doomed.url });
        await setup.connect();
        try {
          await setup.query(
            `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
                             VALUES ($1, $2, 'lnxb_abcdEFGH', 'test', now(), now() + interval '1 day')`,
            [tokenId, 'cd'.repeat(32)],
          );
          const saved = sql;
          sql = setup;
          try {
            await addReplica({ node: 'gpu-z', deployment: 'llama', port: 41009 });
          } finally {
            sql = saved;
          }
        } finally {
          await setup.end();
        }
        const routes = table({ databaseUrl: doomed.url });
        expect(await routes.refresh()).to.equal(true);
        // WITH (FORCE) terminates the pool's idle connection: the pool emits 'error', which must not crash us.
        await doomed.drop();
        await delay(100);
        expect(await routes.refresh()).to.equal(false);
        expect(await counterValue(routes)).to.equal(1);
        expect(routes.lookup(REF)?.endpoints.map((e) => e.baseUrl)).to.deep.equal(['http://127.0.0.1:41009']);
        expect(routes.ready()).to.equal(true);
      } finally {
        await doomed.drop();
      }
    });

    it('stays unready when the database cannot be reached at all', async () => {
      const port = await unusedPort();
      const routes = table({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/nothing` });
      expect(await routes.refresh()).to.equal(false);
      expect(routes.ready()).to.equal(false);
      expect(routes.lookup(REF)).to.equal(undefined);
      expect(await counterValue(routes)).to.equal(1);
    });
  });

  describe('re-placement under load, routes reloading every 100 ms', () => {
    const runtimes: FakeRuntimeProcess[] = [];

    before(async () => {
      await sql.query(
        'TRUNCATE alias_revisions, rollouts, aliases, assignments, deployments, model_versions, nodes CASCADE',
      );
      for (let i = 0; i < 2; i++) runtimes.push(await startFakeRuntime(['--model', REF, '--ttft-ms', '20']));
      await addReplica({ node: 'gpu-a', deployment: 'llama', port: runtimes[0]?.port ?? 0 });
    });

    after(async () => {
      await Promise.all(runtimes.map((runtime) => runtime.stop()));
    });

    it('never loses the route while a drained replica moves: 0 failed requests from drain to the old replica stopped', async () => {
      const routes = table({ refreshMs: 100 });
      routes.start();
      await eventually('route table ready', () => routes.lookup(REF) !== undefined);
      const gw = await startGateway({ routes });
      const outcomes = { ok: 0, failed: [] as string[] };
      let loading = true;
      const client = async (): Promise<void> => {
        while (loading) {
          const response = await postJson(gw.url, '/v1/chat/completions', {
            model: REF,
            messages: [{ role: 'user', content: QUESTION }],
            max_tokens: 4,
          });
          if (response.status === 200) outcomes.ok += 1;
          else outcomes.failed.push(`${response.status} ${response.text.slice(0, 200)}`);
        }
      };
      const clients = Array.from({ length: 4 }, () => client());
      try {
        // The steps DrainNode and the deployment workflow take, each held for several refreshes.
        const hold = () => delay(600);
        await hold();
        await sql.query(`UPDATE nodes SET lifecycle = 'Draining' WHERE name = 'gpu-a'`);
        await hold();
        await addReplica({ node: 'gpu-b', deployment: 'llama', port: runtimes[1]?.port ?? 0 });
        await sql.query(`UPDATE assignments SET observed_state = 'Starting' WHERE node_id = 'node-gpu-b'`);
        await hold();
        await sql.query(`UPDATE assignments SET observed_state = 'Ready' WHERE node_id = 'node-gpu-b'`);
        await hold();
        await sql.query(`UPDATE assignments SET intent = 'Stop' WHERE node_id = 'node-gpu-a'`);
        // The agent's deregistration delay: the old runtime answers a little longer, then it is gone.
        await hold();
        await runtimes[0]?.stop();
        await sql.query(
          `UPDATE assignments SET observed_state = 'Stopped' WHERE node_id = 'node-gpu-a';
           UPDATE nodes SET lifecycle = 'Drained' WHERE name = 'gpu-a'`,
        );
        await hold();
      } finally {
        loading = false;
        await Promise.all(clients);
        await gw.stop();
      }
      expect(outcomes.failed, 'client errors').to.deep.equal([]);
      expect(outcomes.ok).to.be.above(20);
      expect(routes.lookup(REF)?.endpoints.map((e) => e.baseUrl)).to.deep.equal([
        `http://127.0.0.1:${runtimes[1]?.port}`,
      ]);
    });
  });

  describe('gateway end to end with the fake runtime', () => {
    let runtime: FakeRuntimeProcess;
    let routes: PostgresRouteTable;
    let gw: StartedGateway;
    const chat = (maxTokens: number) => ({
      model: REF,
      messages: [{ role: 'user', content: QUESTION }],
      max_tokens: maxTokens,
      stream: true,
    });

    before(async () => {
      await sql.query(
        'TRUNCATE alias_revisions, rollouts, aliases, assignments, deployments, model_versions, nodes CASCADE',
      );
      // 150 ms to the first token, then 10 tokens/s: slow enough to tell a stream from a buffered reply.
      runtime = await startFakeRuntime(['--model', REF, '--ttft-ms', '150', '--tokens-per-second', '10']);
      await addReplica({ node: 'gpu-a', deployment: 'llama', port: runtime.port });
    });

    beforeEach(async () => {
      await sql.query(`UPDATE nodes SET lifecycle = 'Active'; UPDATE assignments SET intent = 'Run'`);
      routes = table({ refreshMs: 100 });
      routes.start();
      await eventually('route table ready', () => routes.ready() && routes.lookup(REF) !== undefined);
      gw = await startGateway({ routes });
    });

    afterEach(async () => {
      await gw.stop();
    });

    after(async () => {
      await runtime?.stop();
    });

    it('streams /v1/chat/completions chunk by chunk from the replica PostgreSQL names', async () => {
      const stream = openStream(gw.url, '/v1/chat/completions', chat(8));
      const { status, events, finishedAtMs } = await stream.done;
      expect(status).to.equal(200);
      expect(events.at(-1)?.data).to.equal('[DONE]');
      const chunks = events.slice(0, -1).map((e) => OpenAiChatChunkSchema.parse(JSON.parse(e.data)));
      expect(chunks.every((c) => c.model === REF)).to.equal(true);
      const content = events.filter((_, i) => (chunks[i]?.choices[0]?.delta.content ?? '') !== '');
      expect(content.length).to.be.at.least(6);
      // 8 tokens at 10/s: ~700 ms from the first token to the last. A buffered reply would arrive all at once.
      expect(spreadMs(content)).to.be.above(400);
      expect(finishedAtMs - (events[0]?.atMs ?? finishedAtMs)).to.be.above(400);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).to.equal(expectedText(8));
    });

    it('streams generic /v1/workloads the same way, naming the deployment that served it', async () => {
      const stream = openStream(gw.url, '/v1/workloads', {
        apiVersion: 'lunanexa.v1',
        kind: 'chat',
        target: { model: REF },
        messages: [{ role: 'user', content: QUESTION }],
        parameters: { maxTokens: 8 },
        dataClass: 'restricted',
        stream: true,
      });
      const { status, events } = await stream.done;
      expect(status).to.equal(200);
      const chunks = events.map((e) => WorkloadDeltaChunkSchema.parse(JSON.parse(e.data)));
      expect(chunks.map((c) => c.sequence)).to.deep.equal(chunks.map((_, i) => i));
      expect(chunks[0]?.servedBy).to.deep.equal({ model: REF, alias: null, deploymentId: 'dep-llama' });
      expect(chunks.at(-1)?.usage?.completionTokens).to.equal(8);
      expect(chunks.map((c) => c.choices[0]?.delta ?? '').join('')).to.equal(expectedText(8));
      const text = events.filter((_, i) => (chunks[i]?.choices[0]?.delta ?? '') !== '');
      expect(spreadMs(text)).to.be.above(400);
    });

    it('lets a stream to a replica told to Stop finish while new requests find no route', async () => {
      // 30 tokens at 10/s: about 3 s, far longer than a refresh.
      const inFlight = openStream(gw.url, '/v1/chat/completions', chat(30));
      let streamFinished = false;
      void inFlight.done.then(() => (streamFinished = true));
      await inFlight.firstEvent;
      await sql.query(`UPDATE assignments SET intent = 'Stop'`);
      let refused = await postJson(gw.url, '/v1/chat/completions', { ...chat(1), stream: false });
      await eventually('new requests to be refused', async () => {
        if (refused.status === 503) return true;
        refused = await postJson(gw.url, '/v1/chat/completions', { ...chat(1), stream: false });
        return refused.status === 503;
      });
      // The deployment still means to serve the version (only its replica was told to stop): retry, not 404.
      expect(ProblemDetailsSchema.parse(refused.json()).code).to.equal('NO_CAPACITY');
      expect(refused.headers['retry-after']).to.equal('2');
      const listed = await call(gw.url, 'GET', '/v1/models');
      expect(listed.json<{ data: unknown[] }>().data).to.deep.equal([]);

      // The stop took effect while the earlier stream was still being generated.
      expect(streamFinished).to.equal(false);
      const { status, events } = await inFlight.done;
      expect(status).to.equal(200);
      expect(events.at(-1)?.data).to.equal('[DONE]');
      const chunks = events.slice(0, -1).map((e) => OpenAiChatChunkSchema.parse(JSON.parse(e.data)));
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).to.equal(expectedText(30));
      expect(chunks.at(-1)?.choices[0]?.finish_reason).to.equal('length');
    });
  });
  describe('aliases: stable revision and weighted canary', () => {
    let stableRuntime: FakeRuntimeProcess;
    let canaryRuntime: FakeRuntimeProcess;
    let aliasId: string;

    async function setAlias(canaryWeight: number, canary: string | null = 'dep-canary'): Promise<void> {
      await sql.query(`UPDATE aliases SET canary_deployment_id = $2, canary_weight = $3 WHERE id = $1`, [
        aliasId,
        canary,
        canaryWeight,
      ]);
    }

    before(async () => {
      await sql.query(
        'TRUNCATE alias_revisions, rollouts, aliases, assignments, deployments, model_versions, nodes CASCADE',
      );
      stableRuntime = await startFakeRuntime(['--model', REF]);
      canaryRuntime = await startFakeRuntime(['--model', CANARY_REF]);
      await addReplica({ node: 'gpu-a', deployment: 'stable', port: stableRuntime.port });
      await addReplica({ node: 'gpu-b', deployment: 'canary', port: canaryRuntime.port, ref: CANARY_REF });
      aliasId = randomUUID();
      await sql.query(
        `INSERT INTO aliases (id, name, data_class, current_revision, created_by, created_at, updated_at)
         VALUES ($1, 'chat-default', 'internal', 1, 'test', now(), now())`,
        [aliasId],
      );
      await sql.query(
        `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
                                      created_by, created_at)
         SELECT $1, 1, d.model_version_id, d.model_ref, d.id, 'promote', 'test', now()
           FROM deployments d WHERE d.id = 'dep-stable'`,
        [aliasId],
      );
    });

    after(async () => {
      await stableRuntime?.stop();
      await canaryRuntime?.stop();
    });

    it('routes an alias to its current revision only while no canary has weight', async () => {
      await setAlias(0, null);
      const routes = table();
      await routes.refresh();
      const served = new Set<string>();
      for (let i = 0; i < 50; i++) served.add(routes.lookup('chat-default')?.deploymentId ?? 'none');
      expect([...served]).to.deep.equal(['dep-stable']);
      expect(routes.lookup('chat-default')?.alias).to.equal('chat-default');
      expect(routes.models().map((m) => m.id)).to.include('chat-default');
    });

    it('sends weight percent to the canary by an independent draw per request', async () => {
      await setAlias(30);
      let draw = 0;
      const draws = [0.05, 0.29, 0.3, 0.95];
      const routes = table({ random: () => draws[draw++ % draws.length] ?? 0 });
      await routes.refresh();
      const picked = draws.map(() => routes.lookup('chat-default')?.deploymentId);
      // 0.05 and 0.29 fall inside the first 30 %; 0.30 and 0.95 do not.
      expect(picked).to.deep.equal(['dep-canary', 'dep-canary', 'dep-stable', 'dep-stable']);
      await setAlias(100);
      await routes.refresh();
      expect(routes.lookup('chat-default')?.deploymentId).to.equal('dep-canary');
    });

    it('tells an alias with no replica that can take a request (unavailable) from a name that does not exist', async () => {
      await setAlias(0);
      await sql.query(`UPDATE assignments SET observed_state = 'Starting'`);
      const routes = table();
      await routes.refresh();
      expect(routes.lookup('chat-default')).to.equal(undefined);
      expect(routes.unavailable('chat-default')).to.equal(true);
      expect(routes.unavailable('no-such-alias')).to.equal(false);
      // A pinned model@version an active deployment serves is a name that exists too.
      expect(routes.lookup(REF)).to.equal(undefined);
      expect(routes.unavailable(REF)).to.equal(true);
      expect(routes.unavailable('no-such-model@v1')).to.equal(false);
      // Once the deployment is being torn down, nothing serves that version any more: 404.
      await sql.query(`UPDATE deployments SET state = 'Stopping' WHERE id = 'dep-canary'`);
      await routes.refresh();
      expect(routes.unavailable(CANARY_REF)).to.equal(false);
      expect(routes.unavailable(REF)).to.equal(true);
      await sql.query(`UPDATE deployments SET state = 'Ready' WHERE id = 'dep-canary'`);
      await sql.query(`UPDATE assignments SET observed_state = 'Ready'`);
      await routes.refresh();
      expect(routes.unavailable('chat-default')).to.equal(false);
      expect(routes.unavailable(REF)).to.equal(false);
      expect(routes.lookup('chat-default')?.deploymentId).to.equal('dep-stable');
      expect(routes.lookup(CANARY_REF)?.deploymentId).to.equal('dep-canary');
    });

    it("cedes a side's share when it has no ready replica, and serves nothing under a license that is not Approved", async () => {
      await setAlias(10);
      await sql.query(`UPDATE nodes SET lifecycle = 'Drained' WHERE name = 'gpu-a'`);
      const routes = table({ random: () => 0.99 });
      await routes.refresh();
      expect(routes.lookup('chat-default')?.deploymentId).to.equal('dep-canary');
      await sql.query(`UPDATE nodes SET lifecycle = 'Active'`);
      const licenseId = randomUUID();
      await sql.query(
        `INSERT INTO licenses (id, name, document, approval_state, created_by, created_at, updated_at)
         VALUES ($1, 'withdrawn', '{"allowedDataClasses":["internal"]}'::jsonb, 'Rejected', 'test', now(), now())`,
        [licenseId],
      );
      await sql.query(`UPDATE model_versions SET license_id = $1 WHERE ref = $2`, [licenseId, CANARY_REF]);
      await routes.refresh();
      expect(routes.lookup(CANARY_REF)).to.equal(undefined);
      expect(routes.lookup('chat-default')?.deploymentId).to.equal('dep-stable');
      await sql.query(`UPDATE model_versions SET license_id = $1 WHERE ref = $2`, [
        SYNTHETIC_LICENSE_ID,
        CANARY_REF,
      ]);
    });

    it('over 1,000 requests through the gateway at canary weight 10 %, the canary share is inside the binomial 99.9 % bounds', async () => {
      await setAlias(10);
      const routes = table({ refreshMs: 100 });
      routes.start();
      await eventually('alias routed', () => routes.lookup('chat-default') !== undefined);
      const gw = await startGateway({ routes });
      try {
        const counts = new Map<string, number>();
        const total = 1000;
        let sent = 0;
        // A few requests at a time: the split is per request, so concurrency must not matter.
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (sent < total) {
              sent += 1;
              const reply = await postJson(gw.url, '/v1/chat/completions', {
                model: 'chat-default',
                messages: [{ role: 'user', content: QUESTION }],
                max_tokens: 1,
              });
              expect(reply.status).to.equal(200);
              const model = reply.json<{ model: string }>().model;
              counts.set(model, (counts.get(model) ?? 0) + 1);
            }
          }),
        );
        const canary = counts.get(CANARY_REF) ?? 0;
        const stable = counts.get(REF) ?? 0;
        expect(canary + stable).to.equal(total);
        // Binomial(1000, 0.1): mean 100, sd 9.49; two-sided 99.9 % is ±3.29 sd → [69, 131].
        const sd = Math.sqrt(total * 0.1 * 0.9);
        const [low, high] = [Math.ceil(100 - 3.2905 * sd), Math.floor(100 + 3.2905 * sd)];
        expect([low, high]).to.deep.equal([69, 131]);
        console.log(`        canary served ${canary} of ${total} (bounds ${low}-${high})`);
        expect(canary, `canary served ${canary} of ${total}`).to.be.within(low, high);
      } finally {
        await gw.stop();
      }
    });
  });
});
