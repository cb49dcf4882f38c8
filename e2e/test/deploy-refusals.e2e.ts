import { expect } from 'chai';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { putS3Object } from '@lunanexa/artifact-store';
import { startS3Server, type RunningS3Server } from '@lunanexa/artifact-store/dist/src/testing';
import { artifactSigningStatement } from '@lunanexa/credentials';
import { FAKE_RUNTIME_LAUNCH_ARGS, FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { FleetHarness, GraphQLFailure, waitUntil } from '../src';

/**
 * The deploy gate on the real stack (api, worker, gateway, Temporal,
 * PostgreSQL, an agent, and a real S3-compatible server holding the
 * weights): four versions that must not serve — one under a license that
 * was never approved, one whose stored bytes were replaced after it was
 * approved, one whose evaluation failed, one no node of the fleet can hold —
 * are each refused by `startRollout` and by `createDeployment` (purpose
 * Serving, the default) with the same code. Each refusal assigns nothing (no
 * deployment, no assignment, no alias change) and is audited: a Refused
 * rollout with a `rollout.refuse` receipt naming the code, a denied
 * `deployment.create` event naming it.
 *
 * Every version gets where it is through the operator's real path:
 * registered with an artifact in the store, verified by the Verify workflow,
 * evaluated by the Evaluate workflow against a candidate deployment the
 * agent pulled and checked the weights for, and approved.
 */

const ALIAS = 'llama-chat';
const MODEL = 'llama';
const BUCKET = 'models';
const NODE_DIGEST = sha256(readFileSync(process.execPath));
const GiB = 1024 ** 3;

/** The bytes a version's weights file holds in the store. */
function weights(version: string): Buffer {
  return Buffer.from(`weights of ${MODEL}@${version}\n`.repeat(64));
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** What a DGX Spark (the agent's simulated profile) can hold; `memoryBytes` overrides the per-replica need. */
function requirements(memoryBytes: number = 4 * GiB): Record<string, unknown> {
  return {
    architectures: ['arm64', 'amd64'],
    memoryModels: ['unified', 'discrete'],
    minComputeCapability: '8.0',
    gpusPerReplica: 1,
    minMemoryBytesPerReplica: memoryBytes,
  };
}

interface RolloutRow {
  id: string;
  state: string;
  refusalCode: string | null;
  stateReason: string | null;
  canaryDeploymentId: string | null;
  receipts: { action: string; decision: string; result: string; evidenceJson: string }[];
}

interface PlacedDeployment {
  state: string;
  stateReason: string | null;
  assignments: { nodeName: string }[];
  placement: {
    chosen: { node: string; reason: string }[];
    rejected: { node: string; reasons: string[] }[];
    unplaced: number;
  } | null;
}

const PLACED_FIELDS = `state stateReason assignments { nodeName }
  placement { chosen { node reason } rejected { node reasons } unplaced }`;

/** Everything a rollout could have assigned or moved: deployments, assignments, the alias and its revisions. */
interface FleetSnapshot {
  deployments: unknown[];
  assignments: unknown[];
  alias: unknown[];
  revisions: unknown[];
}

describe('deploy policy on the real stack: unlicensed, digest-mismatched, failed-evaluation and hardware-incompatible versions are refused by startRollout and createDeployment with the same code, assign nothing and are audited', function () {
  this.timeout(900_000);
  let h: FleetHarness;
  let s3: RunningS3Server;
  let storeDir: string;
  let runtimeId: string;

  async function snapshot(): Promise<FleetSnapshot> {
    return {
      deployments: await h.sql(
        `SELECT id, name, state, generation, desired_replicas, model_version_id FROM deployments ORDER BY id`,
      ),
      assignments: await h.sql(`SELECT id, deployment_id, generation, intent FROM assignments ORDER BY id`),
      alias: await h.sql(
        `SELECT current_revision, canary_weight, canary_deployment_id, active_rollout_id FROM aliases WHERE name = $1`,
        [ALIAS],
      ),
      revisions: await h.sql(
        `SELECT r.revision, r.model_version_id FROM alias_revisions r JOIN aliases a ON a.id = r.alias_id
          WHERE a.name = $1 ORDER BY r.revision`,
        [ALIAS],
      ),
    };
  }

  /** Uploads `bytes` as the version's weights; answers the artifact document to register. */
  async function upload(version: string, bytes: Buffer): Promise<Record<string, unknown>> {
    const key = `${MODEL}/${version}/model.safetensors`;
    await putS3Object(s3.config, { bucket: BUCKET, key }, bytes, { createBucket: true });
    return {
      uri: `s3://${BUCKET}/${key}`,
      digest: sha256(bytes),
      sizeBytes: bytes.length,
      format: 'safetensors',
      source: `hf://example/${MODEL}@${version}`,
    };
  }

  /** Registers the version and runs the Verify workflow (the store's bytes hashed against the digest). */
  async function registerAndVerify(
    version: string,
    options: {
      license?: string;
      memoryBytes?: number;
      /** Signs the artifact statement with this key, under this key id. */
      signedBy?: { privateKey: KeyObject; keyId: string };
      expectState?: string;
    } = {},
  ): Promise<string> {
    const ref = `${MODEL}@${version}`;
    const artifact = await upload(version, weights(version));
    const signature = options.signedBy && {
      algorithm: 'ed25519',
      keyId: options.signedBy.keyId,
      value: sign(
        null,
        artifactSigningStatement({
          digest: artifact['digest'] as string,
          sizeBytes: artifact['sizeBytes'] as number,
        }),
        options.signedBy.privateKey,
      ).toString('base64'),
    };
    await h.graphql(
      `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`,
      {
        input: {
          model: MODEL,
          version,
          artifact: signature ? { ...artifact, signature } : artifact,
          license: options.license ?? 'apache-2-0',
          runtime: runtimeId,
          requirements: requirements(options.memoryBytes),
        },
      },
    );
    const verified = await h.graphql<{ verifyModelVersion: { state: string } }>(
      `mutation($ref: String!) { verifyModelVersion(ref: $ref) { state } }`,
      { ref },
    );
    expect(verified.verifyModelVersion.state, `${ref} after verification`).to.equal(
      options.expectState ?? 'Verified',
    );
    return ref;
  }

  /**
   * A candidate deployment of the version (the agent pulls the weights from
   * the store and checks them before the runtime starts), the Evaluate
   * workflow against it with `suite`, then the candidate stopped. Answers the
   * run's state.
   */
  async function evaluate(ref: string, suite: string): Promise<string> {
    const candidate = `${ref.replace(/[@.]/g, '-')}-candidate`;
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name: candidate, model: ref, replicas: 1, purpose: 'Candidate' } },
    );
    await waitUntil(
      `${candidate} Ready (agent log: ${h.logDir}/agent-node-a.log)`,
      async () => {
        const data = await h.graphql<{ deployment: { state: string } | null }>(
          `query($d: String!) { deployment(deployment: $d) { state } }`,
          { d: candidate },
        );
        if (data.deployment?.state === 'Failed') throw new Error(`${candidate} failed`);
        return data.deployment?.state === 'Ready';
      },
      180_000,
      500,
    );
    const started = await h.graphql<{ startEvaluation: { runId: string } }>(
      `mutation($input: StartEvaluationInput!) { startEvaluation(input: $input) { runId } }`,
      { input: { modelVersion: ref, deployment: candidate, suite } },
    );
    const state = await waitUntil(
      `evaluation of ${ref} with ${suite} to finish`,
      async () => {
        const data = await h.graphql<{ evaluationRun: { state: string } | null }>(
          `query($id: ID!) { evaluationRun(id: $id) { state } }`,
          { id: started.startEvaluation.runId },
        );
        const current = data.evaluationRun?.state;
        return current !== undefined && current !== 'Running' ? current : null;
      },
      180_000,
      500,
    );
    await h.graphql(`mutation($d: String!) { stopDeployment(deployment: $d) { workflowId } }`, {
      d: candidate,
    });
    await waitUntil(
      `${candidate} Stopped`,
      async () => {
        const data = await h.graphql<{ deployment: { state: string } | null }>(
          `query($d: String!) { deployment(deployment: $d) { state } }`,
          { d: candidate },
        );
        return data.deployment?.state === 'Stopped';
      },
      120_000,
      500,
    );
    return state;
  }

  async function approve(ref: string): Promise<void> {
    const data = await h.graphql<{ approveModelVersion: { state: string } }>(
      `mutation($ref: String!) { approveModelVersion(ref: $ref, note: "evaluated on the smoke suite") { state } }`,
      { ref },
    );
    expect(data.approveModelVersion.state).to.equal('Approved');
  }

  /**
   * Asks for a deployment of `ref` (Serving unless `purpose` says otherwise)
   * and expects the API to refuse it with `code` and `reason`, audit the
   * refusal once as a denied `deployment.create` and start nothing.
   */
  async function expectDeploymentRefused(
    ref: string,
    code: string,
    reason: RegExp,
    purpose?: 'Serving' | 'Candidate',
  ): Promise<void> {
    const before = await snapshot();
    const countRefusals = async () =>
      Number(
        (
          await h.sql<{ count: string }>(
            `SELECT count(*) FROM audit_events WHERE action = 'deployment.create' AND decision = 'denied'`,
          )
        )[0].count,
      );
    const refusalsBefore = await countRefusals();
    // Not `<ref>-candidate`: that is the name evaluate() gives the candidate it deploys.
    const name = `${ref.replace(/[@.]/g, '-')}-refused-${(purpose ?? 'serving').toLowerCase()}`;
    const failure = await h
      .graphql(
        `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
        { input: { name, model: ref, replicas: 1, ...(purpose ? { purpose } : {}) } },
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failure, `a deployment of ${ref} was accepted`).to.be.instanceOf(GraphQLFailure);
    expect((failure as GraphQLFailure).code, (failure as Error).message).to.equal(code);
    expect((failure as Error).message).to.match(reason);
    expect(await countRefusals()).to.equal(refusalsBefore + 1);
    const [event] = await h.sql<{ result: string; evidence: Record<string, unknown> }>(
      `SELECT result, evidence FROM audit_events WHERE action = 'deployment.create' ORDER BY seq DESC LIMIT 1`,
    );
    expect(event?.result).to.equal('refused');
    expect(event?.evidence).to.include({ errorCode: code, model: ref, purpose: purpose ?? 'Serving' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await snapshot(), `deployments, assignments and the alias after refusing ${name}`).to.deep.equal(
      before,
    );
    expect(await h.sql(`SELECT id FROM deployments WHERE name = $1`, [name])).to.deep.equal([]);
  }

  /**
   * Starts a rollout of `ref` to the alias and expects the API to refuse it
   * with `code`; then checks the rollout is recorded Refused with exactly a
   * start and a refuse receipt, that the refusal is in the audit log, and
   * that nothing was assigned or moved.
   */
  async function expectRefused(ref: string, code: string, reason: RegExp): Promise<void> {
    const before = await snapshot();
    const refusalsBefore = await h.sql<{ count: string }>(
      `SELECT count(*) FROM audit_events WHERE action = 'rollout.refuse'`,
    );
    let failure: unknown;
    try {
      await h.graphql(
        `mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id } } }`,
        { input: { alias: ALIAS, modelVersion: ref, steps: [10, 50, 100] } },
      );
    } catch (error) {
      failure = error;
    }
    expect(failure, `rollout of ${ref} was accepted`).to.be.instanceOf(GraphQLFailure);
    expect((failure as GraphQLFailure).code, (failure as Error).message).to.equal(code);
    expect((failure as Error).message).to.match(reason);

    const rollouts = await h.graphql<{ rollouts: RolloutRow[] }>(
      `query($a: String) { rollouts(alias: $a) { id state refusalCode stateReason canaryDeploymentId
         receipts { action decision result evidenceJson } } }`,
      { a: ALIAS },
    );
    const refused = rollouts.rollouts.filter((r) => r.state === 'Refused' && r.refusalCode === code);
    expect(refused, `one Refused rollout with ${code}`).to.have.length(1);
    const [rollout] = refused as [RolloutRow];
    expect(rollout.stateReason).to.match(reason);
    expect(rollout.receipts.map((r) => [r.action, r.decision, r.result])).to.deep.equal([
      ['rollout.start', 'allowed', 'succeeded'],
      ['rollout.refuse', 'denied', 'refused'],
    ]);
    const evidence = JSON.parse(rollout.receipts[1].evidenceJson) as Record<string, unknown>;
    expect(evidence).to.include({ errorCode: code, modelRef: ref, alias: ALIAS });

    const audited = await h.sql<{ count: string }>(
      `SELECT count(*) FROM audit_events WHERE action = 'rollout.refuse'`,
    );
    expect(Number(audited[0].count) - Number(refusalsBefore[0].count)).to.equal(1);
    const chained = await h.sql<{ decision: string; result: string; evidence: Record<string, unknown> }>(
      `SELECT decision, result, evidence FROM audit_events WHERE action = 'rollout.refuse'
        ORDER BY seq DESC LIMIT 1`,
    );
    expect(chained[0]).to.deep.include({ decision: 'denied', result: 'refused' });
    expect(chained[0].evidence).to.include({ errorCode: code, modelRef: ref });

    // The workflow has finished (the refusal is its result); a moment later still nothing has moved.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await snapshot(), 'deployments, assignments and the alias after the refusal').to.deep.equal(
      before,
    );
    const canaries = await h.sql(`SELECT id FROM deployments WHERE rollout_id = $1`, [rollout.id]);
    expect(canaries, 'a canary deployment of the refused rollout').to.deep.equal([]);
  }

  before(async function () {
    this.timeout(300_000);
    storeDir = mkdtempSync(join(tmpdir(), 'lunanexa-refusals-store-'));
    s3 = await startS3Server({ dataDir: storeDir });
    h = await FleetHarness.start('deploy_refusals', {
      leaseSeconds: 60,
      // The worker verifies digests against the store, the agent pulls the weights from it.
      extraEnv: {
        LUNANEXA_S3_ENDPOINT: s3.endpoint,
        LUNANEXA_S3_REGION: s3.region,
        LUNANEXA_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        LUNANEXA_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        LUNANEXA_S3_PATH_STYLE: 'true',
      },
    });
    await h.startReadyAgent('node-a');

    // The registry an operator sets up: licenses reviewed, a runtime on the allowlist, a model, suites.
    for (const license of [
      { name: 'apache-2-0', spdxId: 'Apache-2.0', decision: 'approve' },
      { name: 'scraped-weights', spdxId: 'CC-BY-NC-4.0', decision: 'reject' },
      { name: 'awaiting-review', spdxId: 'CC-BY-SA-4.0', decision: 'none' },
    ] as const) {
      await h.graphql(`mutation($input: CreateLicenseInput!) { createLicense(input: $input) { id } }`, {
        input: {
          name: license.name,
          kind: 'spdx',
          spdxId: license.spdxId,
          commercialUse: license.decision === 'approve',
          allowedDataClasses: ['public', 'internal'],
        },
      });
      if (license.decision === 'none') continue;
      await h.graphql(
        license.decision === 'approve'
          ? `mutation($n: String!) { approveLicense(name: $n, note: "reviewed by legal") { id } }`
          : `mutation($n: String!) { rejectLicense(name: $n, note: "provenance of the weights is unknown") { id } }`,
        { n: license.name },
      );
    }
    const runtime = await h.graphql<{ registerRuntime: { id: string } }>(
      `mutation($input: RegisterRuntimeInput!) { registerRuntime(input: $input) { id } }`,
      {
        input: {
          name: 'fake-openai',
          version: '1.0.0',
          kind: 'openai-compatible',
          packaging: { type: 'binary', digest: NODE_DIGEST },
          launch: {
            executable: process.execPath,
            args: [FAKE_RUNTIME_MAIN, ...FAKE_RUNTIME_LAUNCH_ARGS],
            envAllowlist: [],
            containerPort: null,
          },
          health: { path: '/health', startupTimeoutMs: 60_000, intervalMs: 500 },
          supportedHardware: requirements(0),
        },
      },
    );
    runtimeId = runtime.registerRuntime.id;
    await h.graphql(`mutation($id: ID!) { setRuntimeAllowed(id: $id, allowed: true) { id } }`, {
      id: runtimeId,
    });
    await h.graphql(
      `mutation { createModel(input: { name: "${MODEL}", displayName: "Llama chat" }) { id } }`,
    );
    for (const suite of [
      // Any answer that is a sentence passes; the fake runtime always gives one.
      { name: 'smoke', grader: { kind: 'REGEX', pattern: '\\S' } },
      // An answer no runtime of ours gives: the suite fails.
      { name: 'strict', grader: { kind: 'EXACT', expected: 'the one answer this model never gives' } },
    ]) {
      await h.graphql(
        `mutation($input: CreateEvaluationSuiteInput!) { createEvaluationSuite(input: $input) { id } }`,
        {
          input: {
            name: suite.name,
            passThreshold: 1,
            cases: [{ id: 'greeting', prompt: 'Say hello.', maxTokens: 8, grader: suite.grader }],
          },
        },
      );
    }
    await h.graphql(
      `mutation { createAlias(input: { name: "${ALIAS}", dataClass: "internal", description: "chat for internal tools" }) { id } }`,
    );
  });

  after(async function () {
    this.timeout(120_000);
    await h?.stop();
    await s3?.stop();
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  it('a good version rolls out through the real register → verify → evaluate → approve path (the stable the refusals must not move)', async () => {
    const ref = await registerAndVerify('1');
    expect(await evaluate(ref, 'smoke')).to.equal('Passed');
    const candidate = await h.graphql<{ deployment: PlacedDeployment | null }>(
      `query($d: String!) { deployment(deployment: $d) { ${PLACED_FIELDS} } }`,
      { d: 'llama-1-candidate' },
    );
    expect(candidate.deployment?.placement?.chosen.map((choice) => choice.node)).to.deep.equal(['node-a']);
    expect(candidate.deployment?.placement?.chosen[0]?.reason).to.match(
      /^eligible and its hardware fits one replica; Spread rank 1 of 1 eligible: /,
    );
    await approve(ref);
    const started = await h.graphql<{ startRollout: { rollout: { id: string } } }>(
      `mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id } } }`,
      { input: { alias: ALIAS, modelVersion: ref } },
    );
    const done = await waitUntil(
      'the first rollout to promote',
      async () => {
        const data = await h.graphql<{ rollout: { state: string } }>(
          `query($id: ID!) { rollout(id: $id) { state } }`,
          { id: started.startRollout.rollout.id },
        );
        return ['Promoted', 'Failed', 'RolledBack', 'Aborted', 'Refused'].includes(data.rollout.state)
          ? data.rollout.state
          : null;
      },
      180_000,
      500,
    );
    expect(done).to.equal('Promoted');
    const alias = await h.graphql<{
      alias: { currentRevision: number; current: { modelRef: string } | null };
    }>(`query($a: String!) { alias(alias: $a) { currentRevision current { modelRef } } }`, { a: ALIAS });
    expect(alias.alias).to.deep.include({ currentRevision: 1, current: { modelRef: ref } });
  });

  it('unlicensed: a version whose license was never approved is refused with LICENSE_NOT_APPROVED (a rejected license cannot even be registered under)', async () => {
    const rejected = await h
      .graphql(`mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`, {
        input: {
          model: MODEL,
          version: '2-rejected',
          artifact: await upload('2-rejected', weights('2-rejected')),
          license: 'scraped-weights',
          runtime: runtimeId,
          requirements: requirements(),
        },
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(rejected).to.be.instanceOf(GraphQLFailure);
    expect((rejected as GraphQLFailure).code).to.equal('LICENSE_NOT_APPROVED');

    const ref = await registerAndVerify('2-unlicensed', { license: 'awaiting-review' });
    const reason = /license awaiting-review is PendingReview, not Approved/;
    await expectRefused(ref, 'LICENSE_NOT_APPROVED', reason);
    await expectDeploymentRefused(ref, 'LICENSE_NOT_APPROVED', reason);
    // Not even to evaluate it: nothing runs weights we may not run.
    await expectDeploymentRefused(ref, 'LICENSE_NOT_APPROVED', reason, 'Candidate');
  });

  it('digest-mismatched: an approved version whose stored bytes were replaced is refused with DIGEST_MISMATCH by the rollout’s own re-verification, then by createDeployment from the recorded verdict', async () => {
    const ref = await registerAndVerify('3-tampered');
    expect(await evaluate(ref, 'smoke')).to.equal('Passed');
    await approve(ref);
    // After approval someone replaces the weights in the store under the same key, with as many bytes.
    const tampered = weights('3-tampered');
    tampered[tampered.length - 2] ^= 0x01;
    await putS3Object(s3.config, { bucket: BUCKET, key: `${MODEL}/3-tampered/model.safetensors` }, tampered);
    await expectRefused(
      ref,
      'DIGEST_MISMATCH',
      new RegExp(`hashes to ${sha256(tampered)}, not the registered ${sha256(weights('3-tampered'))}`),
    );
    const version = await h.graphql<{ modelVersion: { verification: { ok: boolean; code: string | null } } }>(
      `query($ref: String!) { modelVersion(ref: $ref) { verification { ok code } } }`,
      { ref },
    );
    expect(version.modelVersion.verification).to.deep.equal({ ok: false, code: 'DIGEST_MISMATCH' });
    // createDeployment does not hash the store (the agent checks the bytes it pulls); it refuses on the
    // verdict the rollout's re-verification recorded, serving or candidate alike.
    const recorded = /last artifact verification failed: .*hashes to sha256:/;
    await expectDeploymentRefused(ref, 'DIGEST_MISMATCH', recorded);
    await expectDeploymentRefused(ref, 'DIGEST_MISMATCH', recorded, 'Candidate');
  });

  it('failed evaluation: a version whose suite failed is refused with EVALUATION_NOT_PASSED', async () => {
    const ref = await registerAndVerify('4-failed-eval');
    expect(await evaluate(ref, 'strict')).to.equal('Failed');
    await expectRefused(ref, 'EVALUATION_NOT_PASSED', /evaluation suite strict did not pass/);
    await expectDeploymentRefused(
      ref,
      'EVALUATION_NOT_PASSED',
      /evaluation suite strict did not pass; to evaluate it, deploy it with purpose Candidate/,
    );
  });

  it('hardware-incompatible: a version needing more memory than any node has is refused with HARDWARE_INCOMPATIBLE', async () => {
    const ref = await registerAndVerify('5-huge', { memoryBytes: 512 * GiB });
    await expectRefused(ref, 'HARDWARE_INCOMPATIBLE', /no node in the fleet can run one replica/);
    await expectDeploymentRefused(ref, 'HARDWARE_INCOMPATIBLE', /no node in the fleet can run one replica/);
  });

  it('the gate keeps the same oversized version off the fleet even as a candidate, naming the node and why', async () => {
    // Before this gate the scheduler left such a candidate Pending (NoEligibleNode); now nothing is created.
    // The scheduler's per-node hardware filter (a fleet where some nodes fit) is libs/domain placement.spec.ts's.
    await expectDeploymentRefused(
      `${MODEL}@5-huge`,
      'HARDWARE_INCOMPATIBLE',
      /no node in the fleet can run one replica: node-a: .*512(\.0)? GiB/,
      'Candidate',
    );
  });

  it('signatures: a version signed by a registered key deploys through the real agent; one whose signature does not verify is refused with SIGNATURE_INVALID everywhere', async () => {
    const trusted = generateKeyPairSync('ed25519');
    const forger = generateKeyPairSync('ed25519');
    const registered = await h.graphql<{ registerSigningKey: { keyId: string } }>(
      `mutation($input: RegisterSigningKeyInput!) { registerSigningKey(input: $input) { keyId } }`,
      {
        input: {
          publicKey: trusted.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
          label: 'release-ci',
        },
      },
    );
    const keyId = registered.registerSigningKey.keyId;
    // Signed by the trusted key: verified, and its candidate deployment runs on node-a — the agent
    // verified the signature against the key the assignment carried before it started the runtime.
    const signed = await registerAndVerify('6-signed', {
      signedBy: { privateKey: trusted.privateKey, keyId },
    });
    expect(await evaluate(signed, 'smoke')).to.equal('Passed');

    // Signed by another key under the trusted key's id: the Verify workflow fails it, and both deploy
    // paths refuse it before anything else (right after the license).
    const forged = await registerAndVerify('7-forged', {
      signedBy: { privateKey: forger.privateKey, keyId },
      expectState: 'VerificationFailed',
    });
    const version = await h.graphql<{ modelVersion: { verification: { code: string | null } } }>(
      `query($ref: String!) { modelVersion(ref: $ref) { verification { code } } }`,
      { ref: forged },
    );
    expect(version.modelVersion.verification.code).to.equal('SIGNATURE_INVALID');
    const reason = new RegExp(`signature by ${keyId} does not verify`);
    await expectRefused(forged, 'SIGNATURE_INVALID', reason);
    await expectDeploymentRefused(forged, 'SIGNATURE_INVALID', reason);
    await expectDeploymentRefused(forged, 'SIGNATURE_INVALID', reason, 'Candidate');
  });

  it('the stable version kept serving the alias through every refusal', async () => {
    const answer = await waitUntil('the alias to answer through the gateway', async () => {
      const response = await fetch(`${h.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        // Undeclared requests count as confidential, which the stable's license does not allow.
        headers: {
          'content-type': 'application/json',
          'x-lunanexa-data-class': 'internal',
          authorization: `Bearer ${h.operatorToken}`,
        },
        body: JSON.stringify({ model: ALIAS, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
      });
      return response.status === 200 ? ((await response.json()) as { model: string }) : null;
    });
    expect(answer.model).to.equal(`${MODEL}@1`);
    const refusals = await h.sql<{ code: string }>(
      `SELECT evidence->>'errorCode' AS code FROM audit_events WHERE action = 'rollout.refuse' ORDER BY seq`,
    );
    expect(refusals.map((r) => r.code)).to.deep.equal([
      'LICENSE_NOT_APPROVED',
      'DIGEST_MISMATCH',
      'EVALUATION_NOT_PASSED',
      'HARDWARE_INCOMPATIBLE',
      'SIGNATURE_INVALID',
    ]);
    const deploymentRefusals = await h.sql<{ code: string; purpose: string }>(
      `SELECT evidence->>'errorCode' AS code, evidence->>'purpose' AS purpose FROM audit_events
        WHERE action = 'deployment.create' AND decision = 'denied' ORDER BY seq`,
    );
    expect(deploymentRefusals).to.deep.equal([
      { code: 'LICENSE_NOT_APPROVED', purpose: 'Serving' },
      { code: 'LICENSE_NOT_APPROVED', purpose: 'Candidate' },
      { code: 'DIGEST_MISMATCH', purpose: 'Serving' },
      { code: 'DIGEST_MISMATCH', purpose: 'Candidate' },
      { code: 'EVALUATION_NOT_PASSED', purpose: 'Serving' },
      { code: 'HARDWARE_INCOMPATIBLE', purpose: 'Serving' },
      { code: 'HARDWARE_INCOMPATIBLE', purpose: 'Candidate' },
      { code: 'SIGNATURE_INVALID', purpose: 'Serving' },
      { code: 'SIGNATURE_INVALID', purpose: 'Candidate' },
    ]);
  });
});
