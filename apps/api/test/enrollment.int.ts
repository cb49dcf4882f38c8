import { expect } from 'chai';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import {
  AGENT_HTTP_PATHS,
  createEnvelope,
  ed25519KeyId,
  ENVELOPE_SCHEMAS,
  HeartbeatAckBodySchema,
  heartbeatMacKeys,
  inventoryDigest,
  MAC_ALGORITHM,
  macEnvelope,
  openSshPublicKey,
  parseEd25519PublicKey,
  rotationProofInput,
  signEnvelope,
  signingInput,
  sshFingerprint,
  verifyEnvelope,
  type Envelope,
} from '@lunanexa/agent-protocol';
import {
  AGENT_PROTOCOL_VERSION,
  ErrorCode,
  ProblemDetailsSchema,
  type NodeInventory,
} from '@lunanexa/contracts';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import {
  deleteGpuSamplesBefore,
  GPU_SAMPLE_INTERVAL_SECONDS,
  GPU_SAMPLE_RETENTION_HOURS,
  listGpuSamples,
  recordGpuSample,
} from '@lunanexa/persistence';
import { ApiConfigSchema, createApiApp } from '../src';
import { HEARTBEAT_BODY_LIMIT_BYTES } from '../src/agent-channel/heartbeat-route';
import { ensureFirstAdmin } from '../src/auth/first-admin';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string; violations?: { path: string }[] } }[];
}

const INVENTORY = JSON.parse(
  readFileSync(join(findRepoRoot(), 'libs/contracts/fixtures/v1/node-inventory.gb10-unified.json'), 'utf8'),
) as NodeInventory;

/** A node as an agent would be: its own key pair, a name, an SSH host key fingerprint it would pin. */
interface FakeNodeIdentity {
  readonly name: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly keyId: string;
}

function nodeIdentity(name: string): FakeNodeIdentity {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { name, privateKey, publicKey, keyId: ed25519KeyId(publicKey) };
}

const HOST_KEY_FINGERPRINT = `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`;

function enrollRequest(token: string, node: FakeNodeIdentity, signer: KeyObject = node.privateKey): Envelope {
  return signEnvelope(
    signer,
    node.keyId,
    createEnvelope('enroll.request', {
      nodeId: node.name,
      body: {
        bootstrapToken: token,
        nodeName: node.name,
        publicKey: openSshPublicKey(node.publicKey),
        labels: { 'lunanexa.io/rack': 'r1' },
        inventory: INVENTORY,
        address: '127.0.0.1',
        ssh: { port: 1, hostKeyFingerprint: HOST_KEY_FINGERPRINT },
      },
    }),
  );
}

type HeartbeatExtras = Partial<{
  refusals: unknown[];
  nextKey: unknown;
  credentialSerial: number | null;
  endpoint: unknown;
  gpuTelemetry: unknown[];
  orphanReports: unknown[];
  inventory: NodeInventory;
  /** Sent instead of the inventory. */
  inventoryDigest: string;
}>;

function unsignedHeartbeat(nodeId: string, sequence: number, extra: HeartbeatExtras = {}) {
  const issuedAt = new Date();
  const nonce = randomBytes(18).toString('base64url');
  return createEnvelope('heartbeat', {
    nodeId,
    issuedAt,
    nonce,
    body: {
      heartbeat: {
        nodeId,
        sequence,
        sentAt: issuedAt.toISOString(),
        nonce,
        observedAssignments: [],
        runtimes: [],
        gpuTelemetry: (extra.gpuTelemetry ?? []) as never,
        ...(extra.inventoryDigest === undefined
          ? { inventory: extra.inventory ?? INVENTORY }
          : { inventoryDigest: extra.inventoryDigest }),
      },
      refusals: (extra.refusals ?? []) as never,
      nextKey: (extra.nextKey ?? null) as never,
      credentialSerial: extra.credentialSerial ?? null,
      ...(extra.endpoint === undefined ? {} : { endpoint: extra.endpoint as never }),
      ...(extra.orphanReports === undefined ? {} : { orphanReports: extra.orphanReports as never }),
    },
  });
}

function heartbeat(
  nodeId: string,
  signer: { privateKey: KeyObject; keyId: string },
  sequence: number,
  extra: HeartbeatExtras = {},
): Envelope {
  return signEnvelope(signer.privateKey, signer.keyId, unsignedHeartbeat(nodeId, sequence, extra));
}

/**
 * Signed by `signer` as it is: unlike signEnvelope, no schema check first, so a malformed body (what these
 * tests send to see it refused) still carries a valid signature.
 */
function signedAsIs<T extends object>(envelope: T, signer: { privateKey: KeyObject; keyId: string }) {
  return {
    ...envelope,
    signature: {
      keyId: signer.keyId,
      alg: 'Ed25519',
      value: sign(null, signingInput(envelope), signer.privateKey).toString('base64url'),
    },
  };
}

/** A heartbeat authenticated by a heartbeat MAC key instead of signed, named by controller key `keyId`. */
function macHeartbeat(nodeId: string, key: Buffer, keyId: string, sequence: number): Envelope {
  return macEnvelope(key, keyId, unsignedHeartbeat(nodeId, sequence));
}

describe('enrollment and heartbeats on real Temporal and PostgreSQL', function () {
  this.timeout(120_000);
  let fixture: ControlPlaneFixture;
  let app: INestApplication;
  let base = '';
  let authorization = '';
  const adminPassword = randomBytes(18).toString('base64url');
  const logger = createLogger({ service: 'enrollment-test', level: 'silent' });

  async function graphql(query: string, variables?: Record<string, unknown>): Promise<GraphQLBody> {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GraphQLBody;
  }

  async function post(
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  async function createToken(
    input: Record<string, unknown> = {},
  ): Promise<{ token: string; id: string; fingerprint: string; agentInvocation: string; expiresAt: string }> {
    const answer = await graphql(
      `
        mutation ($input: CreateBootstrapTokenInput!) {
          createBootstrapToken(input: $input) {
            token
            controllerKeyFingerprint
            agentInvocation
            controllerUrl
            bootstrapToken {
              id
              expiresAt
              prefix
            }
          }
        }
      `,
      { input: { autoApprove: false, ...input } },
    );
    expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
    const created = answer.data?.['createBootstrapToken'] as {
      token: string;
      controllerKeyFingerprint: string;
      agentInvocation: string;
      bootstrapToken: { id: string; expiresAt: string };
    };
    return {
      token: created.token,
      id: created.bootstrapToken.id,
      fingerprint: created.controllerKeyFingerprint,
      agentInvocation: created.agentInvocation,
      expiresAt: created.bootstrapToken.expiresAt,
    };
  }

  /** A new node enrolled with its own key and a token that does not auto-approve: Pending. */
  async function enrollPending(name: string): Promise<{ identity: FakeNodeIdentity; nodeId: string }> {
    const { token } = await createToken({ autoApprove: false });
    const identity = nodeIdentity(name);
    const enrolled = await post(AGENT_HTTP_PATHS.enroll, enrollRequest(token, identity));
    return { identity, nodeId: (enrolled.json['body'] as { nodeId: string }).nodeId };
  }

  async function auditRows(
    action: string,
  ): Promise<{ decision: string; result: string; evidence: Record<string, unknown> }[]> {
    return fixture.ds.query(
      `SELECT decision, result, evidence FROM audit_events WHERE action = $1 ORDER BY seq`,
      [action],
    );
  }

  async function nodeCount(): Promise<number> {
    const rows = await fixture.ds.query<{ n: string }[]>(`SELECT count(*) AS n FROM nodes`);
    return Number(rows[0]?.n ?? 0);
  }

  function expectProblem(
    answer: { status: number; json: Record<string, unknown> },
    status: number,
    code: string,
  ): void {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(status);
    const problem = ProblemDetailsSchema.parse(answer.json);
    expect(problem.code).to.equal(code);
  }

  const controllerKeys = (): Map<string, KeyObject> =>
    new Map([[ed25519KeyId(fixture.controllerKey.publicKey), fixture.controllerKey.publicKey]]);

  before(async () => {
    fixture = await startControlPlaneFixture('enrollment');
    await ensureFirstAdmin(fixture.ds, { username: 'enroll-admin', password: adminPassword });
    const config = ApiConfigSchema.parse({
      DATABASE_URL: fixture.db.url,
      TEMPORAL_ADDRESS: fixture.env.address,
      TEMPORAL_NAMESPACE: fixture.env.namespace,
      LUNANEXA_TASK_QUEUE: fixture.taskQueue,
      LUNANEXA_API_PORT: '1',
      LUNANEXA_CONSOLE_DIR: join(findRepoRoot(), 'no-console-here'),
      LUNANEXA_CONTROLLER_KEY_FILE: fixture.controllerKeyFile,
      LUNANEXA_WORKFLOW_WAIT_MS: '15000',
    });
    app = await createApiApp(config, logger, { version: '0.0.0-test', commit: 'test' });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer() as { address(): AddressInfo }).address().port}`;
    const login = await graphql('mutation($input: LoginInput!) { login(input: $input) { accessToken } }', {
      input: { username: 'enroll-admin', password: adminPassword },
    });
    authorization = `Bearer ${(login.data?.['login'] as { accessToken: string }).accessToken}`;
  });

  after(async () => {
    await app?.close();
    await fixture?.stop();
  });

  let enrolledNodeId = '';
  const alpha = nodeIdentity('alpha');

  it('creates a single-use bootstrap token that expires in 15 minutes and names the controller key to pin', async () => {
    const created = await createToken();
    expect(created.token).to.match(/^lnxb_[A-Za-z0-9_-]{43}$/);
    const ttl = Date.parse(created.expiresAt) - Date.now();
    expect(ttl).to.be.within(14 * 60_000, 15 * 60_000 + 5_000);
    expect(created.fingerprint).to.equal(sshFingerprint(fixture.controllerKey.publicKey));
    expect(created.agentInvocation).to.include(created.token).and.include(created.fingerprint);
    const stored = await fixture.ds.query<{ token_hash: string }[]>(
      `SELECT token_hash FROM bootstrap_tokens WHERE id = $1`,
      [created.id],
    );
    expect(stored[0]?.token_hash).to.not.include(created.token.slice(5));
  });

  it('enrolls with a valid token: a signed answer naming the controller key, a Pending node, a running EnrollNode', async () => {
    const { token } = await createToken();
    const answer = await post(AGENT_HTTP_PATHS.enroll, enrollRequest(token, alpha));
    expect(answer.status, JSON.stringify(answer.json)).to.equal(201);
    const response = verifyEnvelope(controllerKeys(), answer.json, {
      now: new Date(),
      types: ['enroll.response'],
    });
    const body = ENVELOPE_SCHEMAS['enroll.response'].parse(response).body;
    expect(sshFingerprint(parseEd25519PublicKey(body.controllerPublicKey))).to.equal(
      sshFingerprint(fixture.controllerKey.publicKey),
    );
    expect(body.lifecycle).to.equal('Pending');
    enrolledNodeId = body.nodeId;
    const node = await graphql(
      `
        query ($n: String!) {
          node(node: $n) {
            id
            name
            lifecycle
            readiness
            keyId
            labels {
              key
              value
            }
          }
        }
      `,
      {
        n: 'alpha',
      },
    );
    expect(node.data?.['node']).to.deep.include({
      id: enrolledNodeId,
      lifecycle: 'Pending',
      readiness: 'Unreachable',
      keyId: alpha.keyId,
    });
    const handle = fixture.env.client.workflow.getHandle(body.workflowId);
    expect((await handle.describe()).status.name).to.equal('RUNNING');
    expect(await handle.query<string>('enrollmentPhase')).to.equal('AwaitingApproval');
    const audit = await auditRows('node.enroll');
    expect(audit.at(-1)).to.deep.include({ decision: 'allowed', result: 'succeeded' });
    // The agent's first answer lost: the same agent (name and key) asking again gets the same enrollment.
    const again = await post(AGENT_HTTP_PATHS.enroll, enrollRequest(token, alpha));
    expect(again.status).to.equal(201);
    expect((again.json['body'] as { nodeId: string }).nodeId).to.equal(enrolledNodeId);
  });

  it('refuses a reused, unknown, expired or malformed token with its typed code, audits each, and enrolls nothing', async () => {
    const before = await nodeCount();
    const deniedBefore = (await auditRows('node.enroll')).filter((row) => row.decision === 'denied').length;
    const { token: used } = await createToken();
    expect((await post(AGENT_HTTP_PATHS.enroll, enrollRequest(used, nodeIdentity('beta')))).status).to.equal(
      201,
    );
    const afterFirst = await nodeCount();
    expectProblem(
      await post(AGENT_HTTP_PATHS.enroll, enrollRequest(used, nodeIdentity('gamma'))),
      401,
      ErrorCode.TOKEN_REUSED,
    );
    const unknown = `lnxb_${randomBytes(32).toString('base64url')}`;
    expectProblem(
      await post(AGENT_HTTP_PATHS.enroll, enrollRequest(unknown, nodeIdentity('delta'))),
      401,
      ErrorCode.TOKEN_UNKNOWN,
    );
    const expiring = await createToken();
    await fixture.ds.query(
      `UPDATE bootstrap_tokens SET created_at = now() - interval '20 minutes', expires_at = now() - interval '5 minutes' WHERE id = $1`,
      [expiring.id],
    );
    expectProblem(
      await post(AGENT_HTTP_PATHS.enroll, enrollRequest(expiring.token, nodeIdentity('epsilon'))),
      401,
      ErrorCode.TOKEN_EXPIRED,
    );
    const { token: fresh } = await createToken();
    const malformed = {
      ...enrollRequest(fresh, nodeIdentity('zeta')),
      body: { bootstrapToken: fresh, command: 'rm -rf /' },
    };
    expectProblem(await post(AGENT_HTTP_PATHS.enroll, malformed), 400, ErrorCode.VALIDATION_FAILED);
    expectProblem(await post(AGENT_HTTP_PATHS.enroll, '{not json'), 400, ErrorCode.MALFORMED_REQUEST);
    const impostor = nodeIdentity('eta');
    const stolenKey = generateKeyPairSync('ed25519').privateKey;
    expectProblem(
      await post(AGENT_HTTP_PATHS.enroll, enrollRequest(fresh, impostor, stolenKey)),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    expect(await nodeCount()).to.equal(afterFirst);
    expect(afterFirst).to.equal(before + 1);
    // The fresh token survived the refused attempts: a refusal consumes nothing.
    expect(
      (await post(AGENT_HTTP_PATHS.enroll, enrollRequest(fresh, nodeIdentity('theta')))).status,
    ).to.equal(201);
    const denied = (await auditRows('node.enroll')).filter((row) => row.decision === 'denied');
    const codes = denied.slice(deniedBefore).map((row) => row.evidence['errorCode']);
    expect(codes).to.include.members([
      ErrorCode.TOKEN_REUSED,
      ErrorCode.TOKEN_UNKNOWN,
      ErrorCode.TOKEN_EXPIRED,
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.SIGNATURE_INVALID,
    ]);
    expect(JSON.stringify(denied)).to.not.include(unknown.slice(13));
  });

  it('accepts a heartbeat signed by the node key: signed ack, lease, readiness Ready', async () => {
    const answer = await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(enrolledNodeId, alpha, 1));
    expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
    const ack = ENVELOPE_SCHEMAS['heartbeat.ack'].parse(
      verifyEnvelope(controllerKeys(), answer.json, { now: new Date(), types: ['heartbeat.ack'] }),
    );
    expect(ack.body).to.deep.include({
      sequence: 1,
      lifecycle: 'Pending',
      rotateKey: false,
      credential: null,
    });
    expect(Date.parse(ack.body.leaseExpiresAt)).to.be.greaterThan(Date.now());
    const node = await graphql(
      `
        query ($n: String!) {
          node(node: $n) {
            readiness
            heartbeatAgeSeconds
            conditions {
              reason
            }
          }
        }
      `,
      { n: enrolledNodeId },
    );
    expect(node.data?.['node']).to.deep.include({ readiness: 'Ready' });
  });

  it('answers an agent that reports no protocol (release 0.1.0) without the key ring notice its strict schema refuses, and one at protocol 2 with it', async () => {
    const { identity: kappa, nodeId } = await enrollPending('kappa-skew');
    /** heartbeat.ack's body as release 0.1.0's agent parses it: strict, with no `controllerKeys`. */
    const releaseZeroOneAck = HeartbeatAckBodySchema.omit({ controllerKeys: true }).strict();
    const ackTo = async (sequence: number, inventory: NodeInventory) => {
      const answer = await post(
        AGENT_HTTP_PATHS.heartbeat,
        heartbeat(nodeId, kappa, sequence, { inventory }),
      );
      expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
      return ENVELOPE_SCHEMAS['heartbeat.ack'].parse(
        verifyEnvelope(controllerKeys(), answer.json, { now: new Date(), types: ['heartbeat.ack'] }),
      ).body;
    };
    expect(INVENTORY.agentProtocol, 'the fixture is an agent that does not report its protocol').to.equal(
      undefined,
    );

    const old = await ackTo(1, INVENTORY);
    expect(old).to.not.have.property('controllerKeys');
    expect(releaseZeroOneAck.safeParse(old).success).to.equal(true);

    // Such an agent could not follow a controller key rotation: while it is enrolled, one is refused, naming it,
    // audited, and no key is announced.
    await fixture.ds.query(`UPDATE nodes SET lifecycle = 'Active' WHERE id = $1`, [nodeId]);
    const keysBefore = await fixture.ds.query<unknown[]>(
      `SELECT key_id, state FROM controller_keys ORDER BY key_id`,
    );
    const refusalsBefore = (await auditRows('controller-key.rotate')).length;
    const rotation = await graphql(`
      mutation {
        rotateControllerKey(input: { reason: "yearly rotation" }) {
          rotationId
        }
      }
    `);
    expect(rotation.errors?.[0]?.extensions.code).to.equal(ErrorCode.CONFLICT);
    expect(rotation.errors?.[0]?.message).to.include('kappa-skew');
    expect(await fixture.ds.query(`SELECT key_id, state FROM controller_keys ORDER BY key_id`)).to.deep.equal(
      keysBefore,
    );
    const audited = (await auditRows('controller-key.rotate')).slice(refusalsBefore);
    expect(audited.map((row) => row.decision)).to.deep.equal(['denied']);

    const current = await ackTo(2, { ...INVENTORY, agentProtocol: AGENT_PROTOCOL_VERSION });
    expect(current.controllerKeys?.signingKeyId).to.equal(ed25519KeyId(fixture.controllerKey.publicKey));
    expect(releaseZeroOneAck.safeParse(current).success).to.equal(false);
    expect(
      await fixture.ds.query(`SELECT agent_protocol FROM nodes WHERE id = $1`, [nodeId]),
      'upgraded: no longer holds a rotation back',
    ).to.deep.equal([{ agent_protocol: AGENT_PROTOCOL_VERSION }]);
    await fixture.ds.query(`UPDATE nodes SET lifecycle = 'Pending' WHERE id = $1`, [nodeId]);
  });

  it('takes a heartbeat that sends only the digest of the inventory it holds, tells an agent at protocol 2 which it holds, and refuses an unknown digest (CONFLICT), audited, lease unmoved', async () => {
    const { identity: mu, nodeId } = await enrollPending('mu-digest');
    const recorded = async () =>
      (
        await fixture.ds.query<{ inventory: NodeInventory; seq: string; lease: Date }[]>(
          `SELECT inventory, last_heartbeat_sequence AS seq, lease_expires_at AS lease FROM nodes WHERE id = $1`,
          [nodeId],
        )
      )[0];
    const ackBody = (answer: { status: number; json: Record<string, unknown> }) => {
      expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
      return ENVELOPE_SCHEMAS['heartbeat.ack'].parse(
        verifyEnvelope(controllerKeys(), answer.json, { now: new Date(), types: ['heartbeat.ack'] }),
      ).body;
    };
    const current = { ...INVENTORY, agentProtocol: AGENT_PROTOCOL_VERSION };

    const first = ackBody(
      await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, mu, 1, { inventory: current })),
    );
    expect(first.inventoryDigest).to.equal(inventoryDigest(current));
    // Key order is not part of the digest: the same inventory built in another order has the same one.
    const reordered = Object.fromEntries(Object.entries(current).reverse()) as NodeInventory;
    expect(inventoryDigest(reordered)).to.equal(first.inventoryDigest);

    /** A heartbeat that sends `digest` instead of its inventory. */
    const digestOnly = (sequence: number, digest: string) =>
      post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, mu, sequence, { inventoryDigest: digest }));
    const second = ackBody(await digestOnly(2, inventoryDigest(current)));
    expect(second.inventoryDigest).to.equal(inventoryDigest(current));
    expect(await recorded()).to.deep.include({ inventory: current, seq: '2' });

    // A digest of an inventory the controller never recorded: refused, the agent sends its inventory next.
    const held = await recorded();
    const refusalsBefore = (await auditRows('node.heartbeat')).length;
    const unknown = `sha256:${'f'.repeat(64)}`;
    const refused = await digestOnly(3, unknown);
    expectProblem(refused, 409, ErrorCode.CONFLICT);
    expect(String(refused.json['detail'])).to.include(unknown);
    expect(await recorded()).to.deep.equal(held);
    const audited = (await auditRows('node.heartbeat')).slice(refusalsBefore);
    expect(audited.map((row) => [row.decision, row.evidence['errorCode']])).to.deep.equal([
      ['denied', ErrorCode.CONFLICT],
    ]);

    // Recorded through another api replica since this one cached the node: it reads the node again.
    const refreshed = { ...current, collectedAt: new Date(Date.now() + 30_000).toISOString() };
    await fixture.ds.query(`UPDATE nodes SET inventory = $2::jsonb WHERE id = $1`, [
      nodeId,
      JSON.stringify(refreshed),
    ]);
    const fourth = ackBody(await digestOnly(4, inventoryDigest(refreshed)));
    expect(fourth.inventoryDigest).to.equal(inventoryDigest(refreshed));
    expect(await recorded()).to.deep.include({ inventory: refreshed, seq: '4' });

    // Both together, or neither: refused as malformed before anything is read.
    const plain = unsignedHeartbeat(nodeId, 5);
    const both = {
      ...plain,
      body: {
        ...plain.body,
        heartbeat: { ...plain.body.heartbeat, inventoryDigest: inventoryDigest(refreshed) },
      },
    };
    const bothAnswer = await post(AGENT_HTTP_PATHS.heartbeat, signedAsIs(both, mu));
    expectProblem(bothAnswer, 400, ErrorCode.VALIDATION_FAILED);
    expect(await recorded()).to.deep.include({ seq: '4' });
  });

  it('exports the runtime load gauges, with no series while no runtime reports a load', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    for (const name of [
      'lunanexa_runtime_requests_waiting',
      'lunanexa_runtime_requests_running',
      'lunanexa_runtime_cache_pressure_ratio',
    ]) {
      expect(text).to.include(`# TYPE ${name} gauge`);
      expect(text).not.to.include(`${name}{`);
    }
  });

  it('refuses a heartbeat signed by the wrong key, a replayed one and a stale sequence; audits each; the lease does not move', async () => {
    const lease = async () =>
      (
        await fixture.ds.query<{ lease_renewed_at: Date; last_heartbeat_sequence: string }[]>(
          `SELECT lease_renewed_at, last_heartbeat_sequence FROM nodes WHERE id = $1`,
          [enrolledNodeId],
        )
      )[0];
    const good = heartbeat(enrolledNodeId, alpha, 2);
    expect((await post(AGENT_HTTP_PATHS.heartbeat, good)).status).to.equal(200);
    const held = await lease();
    const deniedBefore = (await auditRows('node.heartbeat')).length;
    const intruder = generateKeyPairSync('ed25519');
    expectProblem(
      await post(
        AGENT_HTTP_PATHS.heartbeat,
        heartbeat(enrolledNodeId, { privateKey: intruder.privateKey, keyId: alpha.keyId }, 3),
      ),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    expectProblem(
      await post(
        AGENT_HTTP_PATHS.heartbeat,
        heartbeat(
          enrolledNodeId,
          { privateKey: intruder.privateKey, keyId: ed25519KeyId(intruder.publicKey) },
          3,
        ),
      ),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    expectProblem(await post(AGENT_HTTP_PATHS.heartbeat, good), 409, ErrorCode.REPLAY_DETECTED);
    // A new nonce but an old sequence: what a second API replica (with its own nonce memory) still refuses.
    expectProblem(
      await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(enrolledNodeId, alpha, 2)),
      409,
      ErrorCode.REPLAY_DETECTED,
    );
    // Tampering with a signed heartbeat breaks its signature (checked before anything is believed)…
    expectProblem(
      await post(AGENT_HTTP_PATHS.heartbeat, { ...good, body: { ...(good.body as object), shell: 'id' } }),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    // …and a correctly signed envelope with a member no schema knows (a command line, say) is malformed.
    const { signature: _ignored, ...unsigned } = heartbeat(enrolledNodeId, alpha, 3);
    const withCommand = { ...unsigned, body: { ...unsigned.body, shell: 'id' } };
    const signed = signedAsIs(withCommand, alpha);
    expectProblem(await post(AGENT_HTTP_PATHS.heartbeat, signed), 400, ErrorCode.VALIDATION_FAILED);
    expect(await lease()).to.deep.equal(held);
    const denied = (await auditRows('node.heartbeat')).slice(deniedBefore);
    expect(denied.map((row) => [row.decision, row.evidence['errorCode']])).to.deep.equal([
      ['denied', ErrorCode.SIGNATURE_INVALID],
      ['denied', ErrorCode.SIGNATURE_INVALID],
      ['denied', ErrorCode.REPLAY_DETECTED],
      ['denied', ErrorCode.REPLAY_DETECTED],
      ['denied', ErrorCode.SIGNATURE_INVALID],
      ['denied', ErrorCode.VALIDATION_FAILED],
    ]);
  });

  it('audits each orphan sweep the agent reports as node.orphans.reconciled, and refuses a malformed report', async () => {
    const before = (await auditRows('node.orphans.reconciled')).length;
    const clean = {
      sweptAt: new Date().toISOString(),
      trigger: 'start',
      adopted: [
        {
          kind: 'container',
          pid: null,
          container: 'lunanexa-asg-kept',
          assignmentId: 'asg-kept',
          reason: 'still wanted by its assignment (same launch digest), running and answering',
        },
      ],
      stopped: [
        {
          kind: 'process',
          pid: 4242,
          container: null,
          assignmentId: null,
          reason: "carries this agent's owner tag but names no assignment",
        },
      ],
      failed: [],
    };
    const partial = {
      ...clean,
      trigger: 'periodic',
      adopted: [],
      stopped: [],
      failed: [
        {
          kind: 'container',
          pid: null,
          container: 'lunanexa-asg-stuck',
          assignmentId: 'asg-stuck',
          reason: 'assignment asg-stuck is not held by this agent; the engine refused',
        },
      ],
    };
    const answer = await post(
      AGENT_HTTP_PATHS.heartbeat,
      heartbeat(enrolledNodeId, alpha, 5, { orphanReports: [clean, partial] }),
    );
    expect(answer.status).to.equal(200);
    const rows = (await auditRows('node.orphans.reconciled')).slice(before);
    expect(rows).to.have.length(2);
    expect(rows[0]).to.deep.include({ decision: 'allowed', result: 'succeeded' });
    expect(rows[0]?.evidence).to.deep.include({ nodeId: enrolledNodeId, ...clean });
    expect(rows[1]).to.deep.include({ decision: 'allowed', result: 'failed' });
    expect(rows[1]?.evidence).to.deep.include({ nodeId: enrolledNodeId, failed: partial.failed });

    // A report the contract does not describe refuses the whole heartbeat, even when signed; nothing is audited.
    const { signature: _none, ...unsigned } = heartbeat(enrolledNodeId, alpha, 6);
    const withBadReport = {
      ...unsigned,
      body: {
        ...unsigned.body,
        orphanReports: [{ ...clean, stopped: [{ ...clean.stopped[0], kind: 'vm' }] }],
      },
    };
    const malformed = await post(AGENT_HTTP_PATHS.heartbeat, signedAsIs(withBadReport, alpha));
    expectProblem(malformed, 400, ErrorCode.VALIDATION_FAILED);
    expect(await auditRows('node.orphans.reconciled')).to.have.length(before + 2);
  });

  it('audits what the agent reports it refused (forged assignments, shell requests)', async () => {
    const refusal = {
      at: new Date().toISOString(),
      kind: 'envelope:assignment.put',
      code: ErrorCode.SIGNATURE_INVALID,
      remoteAddress: '127.0.0.1:50000',
      keyId: 'someone',
      envelopeId: 'msg-forged-1',
      assignmentId: 'asg-x',
      generation: 7,
      detail: null,
    };
    const answer = await post(
      AGENT_HTTP_PATHS.heartbeat,
      heartbeat(enrolledNodeId, alpha, 10, { refusals: [refusal] }),
    );
    expect(answer.status).to.equal(200);
    expect((answer.json['body'] as { refusalsRecorded: number }).refusalsRecorded).to.equal(1);
    const rows = await auditRows('agent.refusal');
    expect(rows.at(-1)).to.deep.include({ decision: 'denied', result: 'refused' });
    expect(rows.at(-1)?.evidence).to.deep.include({
      code: ErrorCode.SIGNATURE_INVALID,
      envelopeId: 'msg-forged-1',
      nodeId: enrolledNodeId,
    });
  });

  it('stores the latest GPU telemetry on either heartbeat path, shows it on the node and exports it as metrics', async () => {
    const gpu = {
      uuid: INVENTORY.gpus[0]?.uuid,
      index: 0,
      sampledAt: new Date().toISOString(),
      utilizationPercent: 96,
      memoryUsedBytes: 30_000_000_000,
      memoryTotalBytes: INVENTORY.systemMemory.totalBytes,
      memorySource: 'proc-meminfo',
      temperatureCelsius: 62,
      powerWatts: 78.42,
      powerLimitWatts: null,
      throttleReasons: ['SwThermalSlowdown'],
      eccUncorrectedErrors: null,
      lastXid: null,
      lastError: null,
      lost: false,
      processes: [{ pid: 114687, usedMemoryBytes: 20_064_501_760 }],
    };
    const query = `
      query ($n: String!) {
        node(node: $n) {
          name
          gpuTelemetry {
            index
            utilizationPercent
            memoryUsedBytes
            memorySource
            powerLimitWatts
            throttleReasons
            lastXid
            lost
            processCount
          }
        }
      }
    `;
    // The common path (renewNodeLease): one statement.
    expect(
      (await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(enrolledNodeId, alpha, 11, { gpuTelemetry: [gpu] })))
        .status,
    ).to.equal(200);
    const node = (await graphql(query, { n: enrolledNodeId })).data?.['node'] as {
      name: string;
      gpuTelemetry: unknown[];
    };
    expect(node.gpuTelemetry).to.deep.equal([
      {
        index: 0,
        utilizationPercent: 96,
        memoryUsedBytes: 30_000_000_000,
        memorySource: 'proc-meminfo',
        powerLimitWatts: null,
        throttleReasons: ['SwThermalSlowdown'],
        lastXid: null,
        lost: false,
        processCount: 1,
      },
    ]);
    // The gauges reuse one read for a second (SNAPSHOT_REUSE_MS); an earlier test scraped less than that ago.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).to.include(`lunanexa_gpu_utilization_ratio{node="${node.name}",gpu="0"} 0.96`);
    expect(metrics).to.include(
      `lunanexa_gpu_throttled{node="${node.name}",gpu="0",reason="SwThermalSlowdown"} 1`,
    );
    // NVML gave no power limit and no ECC figure on this GB10: no series, never a zero.
    expect(metrics).to.not.include(`lunanexa_gpu_ecc_errors_total{node="${node.name}"`);

    // The full path (a refusal to record): the GPU has fallen off the bus since.
    const lost = {
      ...gpu,
      utilizationPercent: null,
      memoryUsedBytes: null,
      memoryTotalBytes: null,
      memorySource: null,
    };
    const refusal = {
      at: new Date().toISOString(),
      kind: 'ssh:exec',
      code: ErrorCode.FORBIDDEN,
      remoteAddress: '127.0.0.1:50001',
      keyId: null,
      envelopeId: null,
      assignmentId: null,
      generation: null,
      detail: null,
    };
    const answer = await post(
      AGENT_HTTP_PATHS.heartbeat,
      heartbeat(enrolledNodeId, alpha, 12, {
        refusals: [refusal],
        gpuTelemetry: [
          {
            ...lost,
            temperatureCelsius: null,
            powerWatts: null,
            throttleReasons: null,
            lastXid: 79,
            lost: true,
            processes: [],
          },
        ],
      }),
    );
    expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
    const after = (await graphql(query, { n: enrolledNodeId })).data?.['node'] as { gpuTelemetry: unknown[] };
    expect(after.gpuTelemetry).to.deep.equal([
      {
        index: 0,
        utilizationPercent: null,
        memoryUsedBytes: null,
        memorySource: null,
        powerLimitWatts: null,
        throttleReasons: null,
        lastXid: 79,
        lost: true,
        processCount: 0,
      },
    ]);
    // A figure from the previous heartbeat never outlives the heartbeat that stopped reporting it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await (await fetch(`${base}/metrics`)).text();
    expect(later).to.include(`lunanexa_gpu_lost{node="${node.name}",gpu="0"} 1`);
    expect(later).to.not.include(`lunanexa_gpu_utilization_ratio{node="${node.name}"`);
  });

  it('turns GpuHealthy False on a lost GPU with one audit event, shows it on the node, and clears it only after hysteresis', async () => {
    // The previous test's heartbeats: 11 reported a healthy (throttled once) GPU, 12 the GPU lost with Xid 79.
    const changes = async () =>
      (await auditRows('node.condition.changed')).filter(
        (row) => row.evidence['nodeId'] === enrolledNodeId && row.evidence['type'] === 'GpuHealthy',
      );
    const toFalse = (await changes()).filter((row) => row.evidence['to'] === 'False');
    expect(toFalse).to.have.length(1);
    expect(toFalse[0]?.evidence).to.deep.include({ from: 'True', to: 'False', reason: 'GpuLost' });
    const query = `
      query ($n: String!) { node(node: $n) { conditions { type status reason message } } }
    `;
    const gpuCondition = async () =>
      (
        (await graphql(query, { n: enrolledNodeId })).data?.['node'] as {
          conditions: { type: string; status: string; reason: string; message: string | null }[];
        }
      ).conditions.find((condition) => condition.type === 'GpuHealthy');
    expect(await gpuCondition()).to.deep.include({ status: 'False', reason: 'GpuLost' });
    const conditionTypes = (
      (await graphql(query, { n: enrolledNodeId })).data?.['node'] as { conditions: { type: string }[] }
    ).conditions.map((condition) => condition.type);
    expect(conditionTypes).to.deep.equal([
      'Ready',
      'MemoryPressure',
      'DiskPressure',
      'GpuHealthy',
      'ClockSynchronized',
      'ControllerKeyTrusted',
    ]);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    // The series are always there; this node is still Pending, which the gauge (like readiness) does not count.
    expect(metrics).to.include('lunanexa_node_condition{condition="GpuHealthy",status="False"} 0');
    expect(metrics).to.include('lunanexa_node_condition{condition="Ready"}');

    // A clean heartbeat on each path (13: the one-statement path, 14: the full path with a refusal) keeps it False.
    const clean = {
      uuid: INVENTORY.gpus[0]?.uuid,
      utilizationPercent: 5,
      powerWatts: 20,
      temperatureCelsius: 40,
      processes: [],
      throttleReasons: [],
      lastXid: null,
      lost: false,
    };
    for (const [sequence, refusals] of [
      [13, []],
      [
        14,
        [
          {
            at: new Date().toISOString(),
            kind: 'ssh:exec',
            code: ErrorCode.FORBIDDEN,
            remoteAddress: '127.0.0.1:50002',
            keyId: null,
            envelopeId: null,
            assignmentId: null,
            generation: null,
            detail: null,
          },
        ],
      ],
    ] as const) {
      const answer = await post(
        AGENT_HTTP_PATHS.heartbeat,
        heartbeat(enrolledNodeId, alpha, sequence, { gpuTelemetry: [clean], refusals: [...refusals] }),
      );
      expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
    }
    const still = await gpuCondition();
    expect(still).to.deep.include({ status: 'False', reason: 'GpuLost' });
    expect(still?.message).to.include('clears after 12 heartbeat(s) at the safe level, 2 so far');
    expect((await changes()).filter((row) => row.evidence['to'] === 'False')).to.have.length(1);
    expect(
      (await changes()).filter((row) => row.evidence['to'] === 'True' && row.evidence['from'] === 'False'),
    ).to.have.length(0);
  });

  it('keeps GPU samples at most one per node per 15 s for Node.gpuSeries, refuses a bad window, and prunes past 24 h', async () => {
    // The two tests before sent a dozen heartbeats with GPU figures within seconds; the ack does not wait for the write.
    const stored = () => listGpuSamples(fixture.ds, enrolledNodeId, new Date(0));
    let samples = await stored();
    for (let tries = 0; samples.length === 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      samples = await stored();
    }
    expect(samples.length).to.be.within(1, 2);
    for (let i = 1; i < samples.length; i++) {
      const gap = (samples[i]?.sampledAt.getTime() ?? 0) - (samples[i - 1]?.sampledAt.getTime() ?? 0);
      expect(gap).to.be.at.least(GPU_SAMPLE_INTERVAL_SECONDS * 1000);
    }
    // Heartbeat 11's figures (test before last): the first sample.
    expect(samples[0]?.gpus).to.deep.equal([
      {
        uuid: INVENTORY.gpus[0]?.uuid,
        index: 0,
        utilizationPercent: 96,
        memoryUsedBytes: 30_000_000_000,
        memoryTotalBytes: INVENTORY.systemMemory.totalBytes,
        temperatureCelsius: 62,
        powerWatts: 78.42,
      },
    ]);
    const first = samples[0]?.sampledAt ?? new Date();
    const figures = [
      {
        uuid: INVENTORY.gpus[0]?.uuid ?? '',
        index: 0,
        utilizationPercent: 10,
        powerWatts: 20,
        temperatureCelsius: 40,
        processes: [],
      },
    ];
    // Within 15 s of a stored sample, before or after it: refused by the statement itself (another API replica).
    expect(
      await recordGpuSample(fixture.ds, enrolledNodeId, new Date(first.getTime() - 5_000), figures),
    ).to.equal(false);
    expect(await recordGpuSample(fixture.ds, enrolledNodeId, new Date(), [])).to.equal(false);

    const query = `
      query ($n: String!, $m: Int) {
        node(node: $n) {
          gpuSeries(minutes: $m) {
            uuid
            index
            points { at utilizationPercent memoryUsedBytes memoryTotalBytes temperatureCelsius powerWatts }
          }
        }
      }
    `;
    type Series = {
      uuid: string;
      index: number;
      points: { at: string; utilizationPercent: number | null }[];
    }[];
    const series = async (minutes?: number): Promise<Series> => {
      const body = await graphql(query, {
        n: enrolledNodeId,
        ...(minutes === undefined ? {} : { m: minutes }),
      });
      expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
      return (body.data?.['node'] as { gpuSeries: Series }).gpuSeries;
    };
    const lastHour = await series();
    expect(lastHour).to.have.length(1);
    expect(lastHour[0]).to.deep.include({ uuid: INVENTORY.gpus[0]?.uuid, index: 0 });
    expect(lastHour[0]?.points).to.have.length(samples.length);
    expect(lastHour[0]?.points[0]).to.deep.equal({
      at: first.toISOString(),
      utilizationPercent: 96,
      memoryUsedBytes: 30_000_000_000,
      memoryTotalBytes: INVENTORY.systemMemory.totalBytes,
      temperatureCelsius: 62,
      powerWatts: 78.42,
    });

    // Two hours ago (outside the default hour, inside the day) and 25 hours ago (past retention).
    const now = Date.now();
    expect(
      await recordGpuSample(fixture.ds, enrolledNodeId, new Date(now - 2 * 3_600_000), figures),
    ).to.equal(true);
    expect(
      await recordGpuSample(fixture.ds, enrolledNodeId, new Date(now - 25 * 3_600_000), figures),
    ).to.equal(true);
    expect((await series(60))[0]?.points).to.have.length(samples.length);
    const day = await series(24 * 60);
    expect(day[0]?.points).to.have.length(samples.length + 1);
    expect(day[0]?.points[0]?.utilizationPercent).to.equal(10);

    for (const minutes of [0, -5, 24 * 60 + 1]) {
      const bad = await graphql(query, { n: enrolledNodeId, m: minutes });
      expect(bad.errors?.[0]?.extensions.code, `minutes ${minutes}`).to.equal('VALIDATION_FAILED');
      expect(bad.errors?.[0]?.extensions.violations?.map((v) => v.path)).to.deep.equal(['minutes']);
    }
    const wrongType = await graphql(query.replace('$m: Int', '$m: String'), { n: enrolledNodeId, m: '60' });
    expect(wrongType.errors?.length).to.be.at.least(1);
    expect((await stored()).length).to.equal(samples.length + 2);

    // What the retention loop runs: everything before now − 24 h goes, in batches; the rest stays.
    expect(
      await deleteGpuSamplesBefore(fixture.ds, new Date(now - GPU_SAMPLE_RETENTION_HOURS * 3_600_000), 500),
    ).to.equal(1);
    const kept = await stored();
    expect(kept).to.have.length(samples.length + 1);
    expect(kept.every((sample) => sample.sampledAt.getTime() > now - 24 * 3_600_000)).to.equal(true);
  });

  it('validates labels and taints, changes nothing on bad input, and audits accepted changes', async () => {
    const bad = await graphql(`
      mutation {
        setNodeLabels(node: "alpha", labels: [{ key: "-bad", value: "x" }]) {
          id
        }
      }
    `);
    expect(bad.errors?.[0]?.extensions.code).to.equal(ErrorCode.VALIDATION_FAILED);
    const badTaint = await graphql(`
      mutation {
        setNodeTaints(node: "alpha", taints: [{ key: "gpu", value: "", effect: "Evict" }]) {
          id
        }
      }
    `);
    expect(badTaint.errors?.[0]?.extensions.code).to.equal(ErrorCode.VALIDATION_FAILED);
    const labels = await graphql(`
      mutation {
        setNodeLabels(node: "alpha", labels: [{ key: "zone", value: "a" }]) {
          labels {
            key
            value
          }
        }
      }
    `);
    expect(labels.data?.['setNodeLabels']).to.deep.equal({ labels: [{ key: 'zone', value: 'a' }] });
    const taints = await graphql(`
      mutation {
        setNodeTaints(node: "alpha", taints: [{ key: "maintenance", value: "", effect: "NoSchedule" }]) {
          taints {
            key
            effect
          }
        }
      }
    `);
    expect(taints.data?.['setNodeTaints']).to.deep.equal({
      taints: [{ key: 'maintenance', effect: 'NoSchedule' }],
    });
    const cordoned = await graphql(`
      mutation {
        cordonNode(node: "alpha") {
          cordoned
        }
      }
    `);
    expect(cordoned.data?.['cordonNode']).to.deep.equal({ cordoned: true });
    const uncordoned = await graphql(`
      mutation {
        uncordonNode(node: "alpha") {
          cordoned
        }
      }
    `);
    expect(uncordoned.data?.['uncordonNode']).to.deep.equal({ cordoned: false });
    const missing = await graphql(`
      mutation {
        cordonNode(node: "no-such-node") {
          cordoned
        }
      }
    `);
    expect(missing.errors?.[0]?.extensions.code).to.equal(ErrorCode.NOT_FOUND);
    expect((await auditRows('node.labels.set')).length).to.equal(1);
    expect((await auditRows('node.cordon')).at(-1)).to.deep.include({ decision: 'allowed' });
  });

  it('refuses to drain a Pending node (INVALID_TRANSITION) and rejects it; a rejected node heartbeats into FORBIDDEN', async () => {
    const drain = await graphql(`
      mutation {
        drainNode(node: "alpha", timeoutSeconds: 1) {
          workflowId
        }
      }
    `);
    expect(drain.errors?.[0]?.extensions.code).to.equal(ErrorCode.INVALID_TRANSITION);
    const rejected = await graphql(`
      mutation {
        rejectNode(node: "alpha", reason: "not ours") {
          node {
            lifecycle
          }
          receiptHash
        }
      }
    `);
    expect(rejected.errors, JSON.stringify(rejected.errors)).to.equal(undefined);
    expect((rejected.data?.['rejectNode'] as { node: { lifecycle: string } }).node.lifecycle).to.equal(
      'Rejected',
    );
    expectProblem(
      await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(enrolledNodeId, alpha, 20)),
      403,
      ErrorCode.FORBIDDEN,
    );
    const again = await graphql(`
      mutation {
        approveNode(node: "alpha") {
          workflowId
        }
      }
    `);
    expect(again.errors?.[0]?.extensions.code).to.equal(ErrorCode.INVALID_TRANSITION);
  });

  it('moves a node to the address and SSH port its signed heartbeat names, audits the move, and ignores a forged or malformed one', async () => {
    const { identity: lambda, nodeId } = await enrollPending('lambda');
    const endpointOf = async () =>
      (
        await fixture.ds.query<{ address: string; ssh_port: number }[]>(
          `SELECT address, ssh_port FROM nodes WHERE id = $1`,
          [nodeId],
        )
      )[0];
    const moves = async () =>
      (await auditRows('node.endpoint.changed')).filter((row) => row.evidence['nodeId'] === nodeId);
    expect(await endpointOf()).to.deep.equal({ address: '127.0.0.1', ssh_port: 1 });
    // An agent that predates the member, or names where it already is: nothing moves.
    expect((await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, lambda, 1))).status).to.equal(200);
    const same = heartbeat(nodeId, lambda, 2, { endpoint: { address: '127.0.0.1', sshPort: 1 } });
    expect((await post(AGENT_HTTP_PATHS.heartbeat, same)).status).to.equal(200);
    expect(await moves()).to.deep.equal([]);
    // Restarted on another SSH port and address.
    const moved = heartbeat(nodeId, lambda, 3, { endpoint: { address: '127.0.0.9', sshPort: 40222 } });
    expect((await post(AGENT_HTTP_PATHS.heartbeat, moved)).status).to.equal(200);
    expect(await endpointOf()).to.deep.equal({ address: '127.0.0.9', ssh_port: 40222 });
    expect(
      (await moves()).map((row) => [row.decision, row.evidence['previous'], row.evidence['current']]),
    ).to.deep.equal([
      ['allowed', { address: '127.0.0.1', sshPort: 1 }, { address: '127.0.0.9', sshPort: 40222 }],
    ]);
    // Someone else's key cannot redirect the controller's SSH client…
    const intruder = generateKeyPairSync('ed25519');
    expectProblem(
      await post(
        AGENT_HTTP_PATHS.heartbeat,
        heartbeat(nodeId, { privateKey: intruder.privateKey, keyId: lambda.keyId }, 4, {
          endpoint: { address: '10.6.6.6', sshPort: 22 },
        }),
      ),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    // …and a malformed endpoint is refused whole, even when signed.
    for (const endpoint of [
      { address: '127.0.0.1', sshPort: 0 },
      { address: '127.0.0.1', sshPort: 70000 },
      { address: 'not an address; rm -rf /', sshPort: 22 },
      { address: '127.0.0.1', sshPort: 22, shell: 'id' },
    ]) {
      // Signed by the node key over exactly these bytes (signEnvelope itself refuses to sign them).
      const { signature: _none, ...unsigned } = heartbeat(nodeId, lambda, 5);
      const withEndpoint = { ...unsigned, body: { ...unsigned.body, endpoint } };
      const signed = signedAsIs(withEndpoint, lambda);
      expectProblem(await post(AGENT_HTTP_PATHS.heartbeat, signed), 400, ErrorCode.VALIDATION_FAILED);
    }
    expect(await endpointOf()).to.deep.equal({ address: '127.0.0.9', ssh_port: 40222 });
    expect(await moves()).to.have.length(1);
  });

  it('answers the plain heartbeat before the Nest pipeline and any other through it, alike', async () => {
    const { identity: mu, nodeId } = await enrollPending('mu');
    /** One POST with exactly these headers; `chunked` sends no content-length. */
    const send = (
      body: string,
      contentType: string,
      chunked = false,
    ): Promise<{ status: number; headers: IncomingHttpHeaders; json: Record<string, unknown> }> =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          `${base}${AGENT_HTTP_PATHS.heartbeat}`,
          {
            method: 'POST',
            headers: {
              'content-type': contentType,
              'x-request-id': `req-${randomBytes(4).toString('hex')}`,
              ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }),
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
              }),
            );
          },
        );
        request.on('error', reject);
        if (chunked) {
          request.write(body.slice(0, 10));
          request.end(body.slice(10));
        } else request.end(body);
      });
    const acked = (answer: { status: number; json: Record<string, unknown> }, sequence: number): void => {
      expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
      const ack = ENVELOPE_SCHEMAS['heartbeat.ack'].parse(
        verifyEnvelope(controllerKeys(), answer.json, { now: new Date(), types: ['heartbeat.ack'] }),
      );
      expect(ack.body.sequence).to.equal(sequence);
    };
    const json = 'application/json';
    // The plain request: answered ahead of Express (answerHeartbeatsFirst), which would add x-powered-by and an ETag.
    const plain = await send(JSON.stringify(heartbeat(nodeId, mu, 1)), json);
    acked(plain, 1);
    expect(plain.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(plain.headers['etag']).to.equal(undefined);
    expect(plain.headers['x-powered-by']).to.equal(undefined);
    // Express is reached only through answerHeartbeatsFirst (listeners that only observe, like a drain tracker, stay).
    expect((app.getHttpServer() as Server).listeners('request')).not.to.include(
      app.getHttpAdapter().getInstance(),
    );
    expect(plain.headers['x-request-id']).to.be.a('string');
    // No declared length: the Nest route answers, with the same signed ack.
    const streamed = await send(JSON.stringify(heartbeat(nodeId, mu, 2)), json, true);
    acked(streamed, 2);
    expect(streamed.headers['etag']).to.be.a('string');
    expect(streamed.headers['x-powered-by']).to.equal('Express');
    acked(await send(JSON.stringify(heartbeat(nodeId, mu, 3)), 'application/json; charset=UTF-8'), 3);
    // Refusals are the same problems on both paths.
    for (const chunked of [false, true]) {
      for (const body of ['{"protocol":', '"a string"', '  42']) {
        const answer = await send(body, json, chunked);
        expectProblem(answer, 400, ErrorCode.MALFORMED_REQUEST);
        expect(answer.json['instance']).to.equal(AGENT_HTTP_PATHS.heartbeat);
        expect(answer.json['requestId']).to.equal(answer.headers['x-request-id']);
      }
      expectProblem(await send('{"type":"heartbeat"}', json, chunked), 400, ErrorCode.VALIDATION_FAILED);
      expectProblem(
        await send(JSON.stringify(heartbeat(nodeId, mu, 3)), json, chunked),
        409,
        ErrorCode.REPLAY_DETECTED,
      );
    }
    // Not plain JSON (another type, another charset, too large): the Nest route and its body parser decide.
    expectProblem(
      await send(JSON.stringify(heartbeat(nodeId, mu, 4)), 'text/plain'),
      400,
      ErrorCode.VALIDATION_FAILED,
    );
    expectProblem(
      await send(JSON.stringify(heartbeat(nodeId, mu, 4)), 'application/json; charset=latin1'),
      400,
      ErrorCode.MALFORMED_REQUEST,
    );
    expectProblem(
      await send(JSON.stringify({ padding: 'x'.repeat(HEARTBEAT_BODY_LIMIT_BYTES) }), json),
      413,
      ErrorCode.PAYLOAD_TOO_LARGE,
    );
    acked(await send(JSON.stringify(heartbeat(nodeId, mu, 4)), json), 4);
  });

  it('group-commits concurrent heartbeats of many nodes: each acked only once its own lease and sequence are recorded', async () => {
    const nodes: { id: string; identity: FakeNodeIdentity }[] = [];
    for (let i = 0; i < 12; i++) {
      const identity = nodeIdentity(`burst-${i}`);
      const { token } = await createToken({ nodeName: identity.name });
      const answer = await post(AGENT_HTTP_PATHS.enroll, enrollRequest(token, identity));
      expect(answer.status, JSON.stringify(answer.json)).to.equal(201);
      nodes.push({ id: String((answer.json['body'] as { nodeId: string }).nodeId), identity });
    }
    for (const round of [1, 2, 3]) {
      const answers = await Promise.all(
        nodes.map((n) => post(AGENT_HTTP_PATHS.heartbeat, heartbeat(n.id, n.identity, round))),
      );
      for (const [i, answer] of answers.entries()) {
        expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
        const ack = ENVELOPE_SCHEMAS['heartbeat.ack'].parse(
          verifyEnvelope(controllerKeys(), answer.json, { now: new Date(), types: ['heartbeat.ack'] }),
        );
        expect(ack.nodeId).to.equal(nodes[i]?.id);
        expect(ack.body.sequence).to.equal(round);
      }
      // The ack went out after the commit: every node's row already says so.
      const rows = await fixture.ds.query<{ id: string; seq: string; live: boolean }[]>(
        `SELECT id, last_heartbeat_sequence AS seq, lease_expires_at > now() AS live FROM nodes WHERE id = ANY($1)`,
        [nodes.map((n) => n.id)],
      );
      expect(rows).to.have.length(nodes.length);
      for (const row of rows)
        expect({ seq: Number(row.seq), live: row.live }).to.deep.equal({ seq: round, live: true });
    }
    // What the api remembers of a node is only a guess: a change made elsewhere (another api replica, an
    // operator) is found by the renewal's guard, the node re-read, and the heartbeat judged on the row.
    const [first] = nodes;
    if (!first) throw new Error('no node');
    await fixture.ds.query(`UPDATE nodes SET lifecycle = 'Revoked' WHERE id = $1`, [first.id]);
    expectProblem(
      await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(first.id, first.identity, 4)),
      403,
      'FORBIDDEN',
    );
    const [revoked] = await fixture.ds.query<{ seq: string }[]>(
      `SELECT last_heartbeat_sequence AS seq FROM nodes WHERE id = $1`,
      [first.id],
    );
    expect(Number(revoked?.seq)).to.equal(3);
    // A replayed sequence is refused as before, also when the node's keys are remembered.
    const [second] = nodes.slice(1);
    if (!second) throw new Error('no node');
    expectProblem(
      await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(second.id, second.identity, 3)),
      409,
      'REPLAY_DETECTED',
    );
  });

  it('registers a next key only with proof of possession', async () => {
    const { identity: iota, nodeId } = await enrollPending('iota');
    await fixture.ds.query(`UPDATE nodes SET rotation_requested_at = now() WHERE id = $1`, [nodeId]);
    const next = generateKeyPairSync('ed25519');
    const nextKeyId = ed25519KeyId(next.publicKey);
    const forgedProof = sign(
      null,
      rotationProofInput(nodeId, iota.keyId, nextKeyId),
      iota.privateKey,
    ).toString('base64url');
    expectProblem(
      await post(
        AGENT_HTTP_PATHS.heartbeat,
        heartbeat(nodeId, iota, 1, {
          nextKey: { keyId: nextKeyId, publicKey: openSshPublicKey(next.publicKey), proof: forgedProof },
        }),
      ),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    const proof = sign(null, rotationProofInput(nodeId, iota.keyId, nextKeyId), next.privateKey).toString(
      'base64url',
    );
    const accepted = await post(
      AGENT_HTTP_PATHS.heartbeat,
      heartbeat(nodeId, iota, 2, {
        nextKey: { keyId: nextKeyId, publicKey: openSshPublicKey(next.publicKey), proof },
      }),
    );
    expect(accepted.status).to.equal(200);
    // Signed by the next key: the rotation completes, the old key stops working.
    expect(
      (
        await post(
          AGENT_HTTP_PATHS.heartbeat,
          heartbeat(nodeId, { privateKey: next.privateKey, keyId: nextKeyId }, 3),
        )
      ).status,
    ).to.equal(200);
    const row = (
      await fixture.ds.query<{ key_id: string; next_key_id: string | null }[]>(
        `SELECT key_id, next_key_id FROM nodes WHERE id = $1`,
        [nodeId],
      )
    )[0];
    expect(row).to.deep.equal({ key_id: nextKeyId, next_key_id: null });
    expectProblem(
      await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, iota, 4)),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
  });

  it('takes heartbeats MAC’d with the keys agreed with its controller key and answers with a MAC; refuses forged, foreign, reflected, replayed and rotated-away ones', async () => {
    const { identity: lambda, nodeId } = await enrollPending('lambda-mac');
    const controllerKeyId = ed25519KeyId(fixture.controllerKey.publicKey);
    const agree = (identity: { privateKey: KeyObject; keyId: string }) =>
      heartbeatMacKeys(identity.privateKey, fixture.controllerKey.publicKey, {
        nodeId,
        nodeKeyId: identity.keyId,
        controllerKeyId,
      });
    const keys = agree(lambda);
    const sequence = async () =>
      Number(
        (
          await fixture.ds.query<{ seq: string }[]>(
            `SELECT last_heartbeat_sequence AS seq FROM nodes WHERE id = $1`,
            [nodeId],
          )
        )[0]?.seq,
      );
    expect((await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, lambda, 1))).status).to.equal(200);

    const good = macHeartbeat(nodeId, keys.agentToController, controllerKeyId, 2);
    const answer = await post(AGENT_HTTP_PATHS.heartbeat, good);
    expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
    const ack = verifyEnvelope(new Map(), answer.json, {
      now: new Date(),
      types: ['heartbeat.ack'],
      macKey: (keyId) => (keyId === controllerKeyId ? keys.controllerToAgent : undefined),
    });
    expect(ack.signature).to.include({ alg: MAC_ALGORITHM, keyId: controllerKeyId });
    expect(ENVELOPE_SCHEMAS['heartbeat.ack'].parse(ack).body.sequence).to.equal(2);
    expect(await sequence()).to.equal(2);

    const deniedBefore = (await auditRows('node.heartbeat')).length;
    const intruder = nodeIdentity('intruder');
    const refusedWith = async (envelope: Envelope, status: number, code: string) =>
      expectProblem(await post(AGENT_HTTP_PATHS.heartbeat, envelope), status, code);
    // Keys another node key agreed with the controller key: not this node's.
    await refusedWith(
      macHeartbeat(
        nodeId,
        agree({ privateKey: intruder.privateKey, keyId: lambda.keyId }).agentToController,
        controllerKeyId,
        3,
      ),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    // A key id the controller holds no key of.
    await refusedWith(
      macHeartbeat(nodeId, keys.agentToController, lambda.keyId, 3),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    // The controller's own direction: an ack's key reflected back as a heartbeat.
    await refusedWith(
      macHeartbeat(nodeId, keys.controllerToAgent, controllerKeyId, 3),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    await refusedWith(good, 409, ErrorCode.REPLAY_DETECTED);
    expect(await sequence()).to.equal(2);
    const denied = (await auditRows('node.heartbeat')).slice(deniedBefore);
    expect(denied.map((row) => [row.decision, row.evidence['errorCode']])).to.deep.equal([
      ['denied', ErrorCode.SIGNATURE_INVALID],
      ['denied', ErrorCode.SIGNATURE_INVALID],
      ['denied', ErrorCode.SIGNATURE_INVALID],
      ['denied', ErrorCode.REPLAY_DETECTED],
    ]);

    // The node key rotates: keys agreed with the old one stop working, the new one's work.
    await fixture.ds.query(`UPDATE nodes SET rotation_requested_at = now() WHERE id = $1`, [nodeId]);
    const next = generateKeyPairSync('ed25519');
    const nextIdentity = { privateKey: next.privateKey, keyId: ed25519KeyId(next.publicKey) };
    const proof = sign(null, rotationProofInput(nodeId, lambda.keyId, nextIdentity.keyId), next.privateKey);
    const offered = heartbeat(nodeId, lambda, 3, {
      nextKey: {
        keyId: nextIdentity.keyId,
        publicKey: openSshPublicKey(next.publicKey),
        proof: proof.toString('base64url'),
      },
    });
    expect((await post(AGENT_HTTP_PATHS.heartbeat, offered)).status).to.equal(200);
    expect((await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, nextIdentity, 4))).status).to.equal(200);
    await refusedWith(
      macHeartbeat(nodeId, keys.agentToController, controllerKeyId, 5),
      401,
      ErrorCode.SIGNATURE_INVALID,
    );
    const rotated = await post(
      AGENT_HTTP_PATHS.heartbeat,
      macHeartbeat(nodeId, agree(nextIdentity).agentToController, controllerKeyId, 5),
    );
    expect(rotated.status, JSON.stringify(rotated.json)).to.equal(200);
    expect(await sequence()).to.equal(5);
  });

  describe('live updates over graphql-ws', () => {
    let ws: WsClient;

    function subscribe(kinds: string[], auth: string | null) {
      ws = createClient({
        url: `${base.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: auth ? { authorization: auth } : {},
        retryAttempts: 0,
        lazy: true,
      });
      return ws.iterate<{ fleetEvents: Record<string, unknown> }>({
        query: `subscription($kinds: [String!]) { fleetEvents(kinds: $kinds) { kind seq action actor correlationId subject nodeId dropped } }`,
        variables: { kinds },
      });
    }

    afterEach(async () => {
      await ws?.dispose();
    });

    it('pushes committed audit events to a subscriber, with the correlation id of the change', async () => {
      const events = subscribe(['audit'], authorization);
      const first = events.next();
      // The subscription is registered once the server has the subscribe message; give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization, 'x-correlation-id': 'live-test-1' },
        body: JSON.stringify({
          query: 'mutation { createBootstrapToken(input: { autoApprove: false }) { bootstrapToken { id } } }',
        }),
      });
      expect(response.status).to.equal(200);
      const received = await Promise.race([
        first,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('no live event within 5 s')), 5_000),
        ),
      ]);
      if (received.done === true) expect.fail('the subscription ended without an event');
      expect(received.value.data?.fleetEvents).to.deep.include({
        kind: 'audit',
        action: 'bootstrap-token.create',
        correlationId: 'live-test-1',
        dropped: 0,
      });
      await events.return?.();
    });

    it('pushes a node notice for each accepted heartbeat', async () => {
      const events = subscribe(['node'], authorization);
      const first = events.next();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { token } = await createToken();
      const kappa = nodeIdentity('kappa');
      const enrolled = await post(AGENT_HTTP_PATHS.enroll, enrollRequest(token, kappa));
      const nodeId = (enrolled.json['body'] as { nodeId: string }).nodeId;
      expect((await post(AGENT_HTTP_PATHS.heartbeat, heartbeat(nodeId, kappa, 1))).status).to.equal(200);
      const received = await Promise.race([
        first,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('no node event within 5 s')), 5_000),
        ),
      ]);
      if (received.done === true) expect.fail('the subscription ended without an event');
      expect(received.value.data?.fleetEvents).to.deep.include({ kind: 'node', nodeId });
      await events.return?.();
    });

    it('refuses a subscription without a credential (UNAUTHENTICATED), and audits the refusal', async () => {
      const events = subscribe(['audit'], null);
      const answer = await events.next().then(
        (result) => JSON.stringify(result.value),
        (error: unknown) => JSON.stringify(error),
      );
      expect(answer).to.include('UNAUTHENTICATED');
    });
  });
});
