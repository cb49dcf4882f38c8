import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { syntheticArtifactDigest } from '@lunanexa/artifact-store';
import { artifactSigningStatement } from '@lunanexa/credentials';
import { findRepoRoot } from '@lunanexa/observability';
import { transitionModelVersion } from '@lunanexa/persistence';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

/**
 * Artifact signature verification (issue 14, point 3) on real PostgreSQL and
 * Temporal: an admin registers and revokes Ed25519 keys; the Verify workflow
 * fails a version whose signature does not verify (SIGNATURE_INVALID,
 * audited); the deploy gate — createDeployment in the API and the rollout's
 * policy activity in the worker — refuses a version whose key was revoked
 * since (SIGNATURE_INVALID) and an unsigned version on an alias whose tenant
 * forbids unsigned versions (UNSIGNED_VERSION_NOT_ALLOWED). Versions use the
 * fake runtime's synthetic weights so the real Verify workflow runs without
 * an artifact store; evaluation outcomes are written as the Evaluate
 * workflow leaves them.
 */

const ALIAS = 'signed-chat';
const OPEN_ALIAS = 'open-chat';
const MODEL = 'signed';
const INVENTORY = JSON.parse(
  readFileSync(join(findRepoRoot(), 'libs/contracts/fixtures/v1/node-inventory.gb10-unified.json'), 'utf8'),
) as unknown;
const KEY_FIELDS = 'keyId algorithm publicKey label createdBy revokedAt revokedBy';
const REGISTER_KEY = `mutation($input: RegisterSigningKeyInput!) { registerSigningKey(input: $input) { ${KEY_FIELDS} } }`;
const REVOKE_KEY = `mutation($keyId: String!) { revokeSigningKey(keyId: $keyId) { ${KEY_FIELDS} } }`;
const START_ROLLOUT = `mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id state } } }`;
const CREATE_DEPLOYMENT = `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) {
  deploymentId deployment { id purpose } } }`;

interface Signer {
  readonly privateKey: KeyObject;
  readonly pem: string;
  keyId: string;
}

function newSigner(): Signer {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(), keyId: '' };
}

describe('artifact signatures: trusted keys, verification and the deploy gate', function () {
  this.timeout(300_000);
  let api: TestApi;
  let operator = '';
  const trusted = newSigner();
  const revoked = newSigner();
  const stranger = newSigner();

  const sql = <T>(text: string, params: unknown[] = []): Promise<T> => api.fixture.ds.query<T>(text, params);
  const codeOf = (answer: GraphQLBody) => answer.errors?.[0]?.extensions.code;

  function signatureFor(ref: string, signer: Signer, keyId = signer.keyId) {
    const statement = artifactSigningStatement({ digest: syntheticArtifactDigest(ref), sizeBytes: 0 });
    return {
      algorithm: 'ed25519',
      keyId,
      value: sign(null, statement, signer.privateKey).toString('base64'),
    };
  }

  /** Registers `signed@<label>` with synthetic weights and runs the real Verify workflow. */
  async function registerAndVerify(
    label: string,
    signature: ReturnType<typeof signatureFor> | null,
  ): Promise<{ ref: string; state: string; code: string | null }> {
    const ref = `${MODEL}@${label}`;
    dataOf(
      await api.graphql(
        `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`,
        {
          input: {
            model: MODEL,
            version: label,
            artifact: {
              uri: `file:///var/lib/lunanexa/models/${MODEL}/${label}`,
              digest: syntheticArtifactDigest(ref),
              sizeBytes: 0,
              format: 'fake',
              source: 'lunanexa://fake',
              ...(signature ? { signature } : {}),
            },
            license: 'lunanexa-synthetic',
            runtime: 'runtime-fake',
            requirements: {
              architectures: ['arm64', 'amd64'],
              memoryModels: ['unified', 'discrete'],
              minComputeCapability: '0.0',
              gpusPerReplica: 0,
            },
          },
        },
        operator,
      ),
      'createModelVersion',
    );
    const verified = dataOf<{ state: string; verification: { code: string | null } }>(
      await api.graphql(
        `mutation($ref: String!) { verifyModelVersion(ref: $ref) { state verification { code } } }`,
        { ref },
        operator,
      ),
      'verifyModelVersion',
    );
    return { ref, state: verified.state, code: verified.verification.code };
  }

  /** Evaluated (as the Evaluate workflow leaves it) and approved through GraphQL. */
  async function evaluateAndApprove(ref: string): Promise<void> {
    const at = new Date();
    await transitionModelVersion(api.fixture.ds, ref, 'startEvaluation', { at });
    await transitionModelVersion(api.fixture.ds, ref, 'evaluationPassed', { at });
    await sql(`UPDATE model_versions SET evaluation = $2::jsonb WHERE ref = $1`, [
      ref,
      JSON.stringify({ runId: randomUUID(), suite: 'smoke', passed: true, scores: {}, evaluatedAt: at }),
    ]);
    dataOf(
      await api.graphql(
        `mutation($ref: String!) { approveModelVersion(ref: $ref, note: "green") { state } }`,
        { ref },
        operator,
      ),
      'approveModelVersion',
    );
  }

  async function expectRolloutRefused(ref: string, alias: string, code: string): Promise<string> {
    const answer = await api.graphql(
      START_ROLLOUT,
      { input: { alias, modelVersion: ref, steps: [50, 100] } },
      operator,
    );
    expect(codeOf(answer), `startRollout ${ref}: ${JSON.stringify(answer)}`).to.equal(code);
    const [receipt] = await sql<{ evidence: Record<string, unknown>; decision: string }[]>(
      `SELECT evidence, decision FROM audit_events WHERE action = 'rollout.refuse' ORDER BY seq DESC LIMIT 1`,
    );
    expect(receipt?.decision).to.equal('denied');
    expect(receipt?.evidence).to.include({ errorCode: code, modelRef: ref, alias });
    const [rollout] = await sql<{ state: string; canary_deployment_id: string | null }[]>(
      `SELECT state, canary_deployment_id FROM rollouts WHERE model_ref = $1 ORDER BY created_at DESC LIMIT 1`,
      [ref],
    );
    expect(rollout).to.deep.equal({ state: 'Refused', canary_deployment_id: null });
    return answer.errors?.[0]?.message ?? '';
  }

  before(async () => {
    api = await startTestApi('artifact_signatures');
    operator = await api.operator('sign-operator', 'operator');
    dataOf(
      await api.graphql(
        `mutation { createModel(input: { name: "${MODEL}", displayName: "Signed" }) { id } }`,
        {},
        operator,
      ),
      'createModel',
    );
    for (const name of [ALIAS, OPEN_ALIAS]) {
      dataOf(
        await api.graphql(
          `mutation($input: CreateAliasInput!) { createAlias(input: $input) { id } }`,
          { input: { name, dataClass: 'internal' } },
          operator,
        ),
        'createAlias',
      );
    }
    // An Active node the gate counts as fitting; its lease ran out, so the scheduler places nothing.
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_signSIGN', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'cd'.repeat(32)],
    );
    await sql(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at)
       VALUES ('node-sign', 'spark-sign', 'Active', '127.0.0.1', 22, 'SHA256:test', 'key-sign', 'test-public-key',
               $1::jsonb, now() - interval '2 hours', now() - interval '1 hour', 'enroll-node/node-sign', $2, now(), now())`,
      [JSON.stringify(INVENTORY), tokenId],
    );
  });

  after(async () => {
    await api?.stop();
  });

  it('an admin registers keys by fingerprint; bad keys, repeats and non-admins are refused and audited', async () => {
    for (const signer of [trusted, revoked]) {
      const key = dataOf<{ keyId: string; algorithm: string; createdBy: string; revokedAt: string | null }>(
        await api.graphql(
          REGISTER_KEY,
          { input: { publicKey: signer.pem, label: 'ci pipeline' } },
          api.admin,
        ),
        'registerSigningKey',
      );
      expect(key.keyId).to.match(/^ed25519:[0-9a-f]{32}$/);
      expect(key).to.deep.include({ algorithm: 'ed25519', revokedAt: null });
      signer.keyId = key.keyId;
    }
    const repeat = await api.graphql(
      REGISTER_KEY,
      { input: { publicKey: trusted.pem, label: 'again' } },
      api.admin,
    );
    expect(codeOf(repeat)).to.equal('CONFLICT');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      format: 'pem',
      type: 'spki',
    });
    const bad = await api.graphql(
      REGISTER_KEY,
      { input: { publicKey: rsa.toString(), label: 'rsa' } },
      api.admin,
    );
    expect(codeOf(bad)).to.equal('VALIDATION_FAILED');
    expect(bad.errors?.[0]?.extensions['violations']).to.deep.include({
      path: 'publicKey',
      message: 'must be an Ed25519 public key: base64 of the raw 32 bytes or a PEM SubjectPublicKeyInfo',
    });
    const forbidden = await api.graphql(
      REGISTER_KEY,
      { input: { publicKey: stranger.pem, label: 'x' } },
      operator,
    );
    expect(codeOf(forbidden)).to.equal('FORBIDDEN');
    const events = await sql<{ decision: string; result: string }[]>(
      `SELECT decision, result FROM audit_events WHERE action = 'signingKey.register' ORDER BY seq`,
    );
    expect(events.map((e) => `${e.decision}/${e.result}`)).to.deep.equal([
      'allowed/succeeded',
      'allowed/succeeded',
      'denied/refused',
      'denied/refused',
    ]);
    const listed = dataOf<{ keyId: string }[]>(
      await api.graphql(`{ trustedSigningKeys { keyId } }`, {}, operator),
      'trustedSigningKeys',
    );
    expect(listed.map((k) => k.keyId).sort()).to.deep.equal([trusted.keyId, revoked.keyId].sort());
  });

  it('verification: a good signature verifies; an unknown key, a forged signature or a signature over other bytes fails with SIGNATURE_INVALID, audited', async () => {
    const good = await registerAndVerify('good', signatureFor(`${MODEL}@good`, trusted));
    expect(good).to.deep.include({ state: 'Verified', code: null });
    const [passed] = await sql<{ evidence: Record<string, unknown> }[]>(
      `SELECT evidence FROM audit_events WHERE action = 'model-version.verify' AND evidence->>'ref' = $1`,
      [good.ref],
    );
    expect(passed?.evidence).to.include({ ok: true, signedBy: trusted.keyId });

    const cases = [
      ['unknown-key', signatureFor(`${MODEL}@unknown-key`, stranger, `ed25519:${'0'.repeat(32)}`)],
      ['forged', signatureFor(`${MODEL}@forged`, stranger, trusted.keyId)],
      ['other-bytes', signatureFor(`${MODEL}@good`, trusted)],
    ] as const;
    for (const [label, signature] of cases) {
      const outcome = await registerAndVerify(label, signature);
      expect(outcome, label).to.deep.include({ state: 'VerificationFailed', code: 'SIGNATURE_INVALID' });
      const [receipt] = await sql<{ evidence: Record<string, unknown>; result: string }[]>(
        `SELECT evidence, result FROM audit_events WHERE action = 'model-version.verify' AND evidence->>'ref' = $1`,
        [outcome.ref],
      );
      expect(receipt?.result, label).to.equal('failed');
      expect(receipt?.evidence, label).to.include({ ok: false, code: 'SIGNATURE_INVALID' });
      // Not even a candidate deployment runs bytes nobody trusted vouched for.
      const candidate = await api.graphql(
        CREATE_DEPLOYMENT,
        { input: { name: `cand-${label}`, model: outcome.ref, replicas: 1, purpose: 'Candidate' } },
        operator,
      );
      expect(codeOf(candidate), label).to.equal('SIGNATURE_INVALID');
    }
  });

  it('a key revoked after approval: createDeployment (API) and the rollout (worker) refuse with SIGNATURE_INVALID', async () => {
    const { ref, state } = await registerAndVerify(
      'revoked-later',
      signatureFor(`${MODEL}@revoked-later`, revoked),
    );
    expect(state).to.equal('Verified');
    await evaluateAndApprove(ref);
    const gone = dataOf<{ revokedAt: string | null; revokedBy: string }>(
      await api.graphql(REVOKE_KEY, { keyId: revoked.keyId }, api.admin),
      'revokeSigningKey',
    );
    expect(gone.revokedAt).to.be.a('string');
    // Idempotent, audited as no change.
    dataOf(await api.graphql(REVOKE_KEY, { keyId: revoked.keyId }, api.admin), 'revokeSigningKey');
    const revocations = await sql<{ evidence: Record<string, unknown> }[]>(
      `SELECT evidence FROM audit_events WHERE action = 'signingKey.revoke' ORDER BY seq`,
    );
    expect(revocations.map((e) => e.evidence['changed'])).to.deep.equal([true, false]);

    const deployment = await api.graphql(
      CREATE_DEPLOYMENT,
      { input: { name: 'revoked-serving', model: ref, replicas: 1 } },
      operator,
    );
    expect(codeOf(deployment)).to.equal('SIGNATURE_INVALID');
    expect(deployment.errors?.[0]?.message).to.include('was revoked');
    const message = await expectRolloutRefused(ref, OPEN_ALIAS, 'SIGNATURE_INVALID');
    expect(message).to.include(revoked.keyId);
  });

  it('unsigned versions: refused with UNSIGNED_VERSION_NOT_ALLOWED on an alias whose tenant forbids them, allowed elsewhere; a signed version passes the gate', async () => {
    dataOf(
      await api.graphql(`mutation { createTenant(input: { id: "strict-co" }) { id } }`, {}, api.admin),
      'createTenant',
    );
    dataOf(
      await api.graphql(
        `mutation($input: CreateGatewayKeyInput!) { createGatewayKey(input: $input) { secret } }`,
        { input: { tenantId: 'strict-co', name: 'prod', aliases: [ALIAS] } },
        api.admin,
      ),
      'createGatewayKey',
    );
    const forbiddenByOperator = await api.graphql(
      `mutation { setTenantUnsignedPolicy(tenantId: "strict-co", allowUnsignedVersions: false) { tenantId } }`,
      {},
      operator,
    );
    expect(codeOf(forbiddenByOperator)).to.equal('FORBIDDEN');
    const unknownTenant = await api.graphql(
      `mutation { setTenantUnsignedPolicy(tenantId: "nobody", allowUnsignedVersions: false) { tenantId } }`,
      {},
      api.admin,
    );
    expect(codeOf(unknownTenant)).to.equal('NOT_FOUND');
    const policy = dataOf<{ allowUnsignedVersions: boolean }>(
      await api.graphql(
        `mutation { setTenantUnsignedPolicy(tenantId: "strict-co", allowUnsignedVersions: false) { allowUnsignedVersions } }`,
        {},
        api.admin,
      ),
      'setTenantUnsignedPolicy',
    );
    expect(policy.allowUnsignedVersions).to.equal(false);
    const [audited] = await sql<{ evidence: Record<string, unknown> }[]>(
      `SELECT evidence FROM audit_events WHERE action = 'tenant.signingPolicy' AND decision = 'allowed'`,
    );
    expect(audited?.evidence).to.include({
      tenantId: 'strict-co',
      allowUnsignedVersions: false,
      changed: true,
    });

    const { ref } = await registerAndVerify('unsigned', null);
    await evaluateAndApprove(ref);
    const message = await expectRolloutRefused(ref, ALIAS, 'UNSIGNED_VERSION_NOT_ALLOWED');
    expect(message).to.include('strict-co');
    // No tenant of the open alias forbids unsigned versions: the gate lets the rollout start.
    const open = await api.graphql(
      START_ROLLOUT,
      { input: { alias: OPEN_ALIAS, modelVersion: ref, steps: [50, 100] } },
      operator,
    );
    expect(open.errors, JSON.stringify(open.errors)).to.equal(undefined);

    // A signed, approved version passes the strict alias's gate (the rollout gets past Verifying).
    const signed = await registerAndVerify('signed-ok', signatureFor(`${MODEL}@signed-ok`, trusted));
    await evaluateAndApprove(signed.ref);
    const strict = await api.graphql(
      START_ROLLOUT,
      { input: { alias: ALIAS, modelVersion: signed.ref, steps: [50, 100] } },
      operator,
    );
    expect(strict.errors, JSON.stringify(strict.errors)).to.equal(undefined);
    const [rollout] = await sql<{ state: string; refusal_code: string | null }[]>(
      `SELECT state, refusal_code FROM rollouts WHERE model_ref = $1`,
      [signed.ref],
    );
    expect(rollout?.refusal_code ?? null).to.equal(null);
  });
});
