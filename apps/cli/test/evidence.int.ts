import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
// The API's own integration harness: one in-process API on the control-plane fixture.
import { dataOf, startTestApi, type TestApi } from '@lunanexa/api/dist/test/api-test-support';
import { syntheticArtifactDigest } from '@lunanexa/artifact-store';
import {
  decodeStoredGzip,
  decodeTar,
  GENESIS_HASH,
  verifyEvidenceBundle,
  type AuditSegmentRun,
} from '@lunanexa/audit';
import { artifactSigningStatement } from '@lunanexa/credentials';
import { findRepoRoot } from '@lunanexa/observability';
import {
  appendAuditEvent,
  appendRolloutAnalysis,
  insertDeployment,
  insertRolloutClaimingAlias,
  makeAliasRevisionCurrent,
  transitionModelVersion,
  writeRolloutCanaryDeployment,
  writeRolloutState,
} from '@lunanexa/persistence';
import { runCli } from '../src/cli';
import { captureIo } from './support';

/**
 * Evidence bundles (issue 21 point 6) against the real API on PostgreSQL
 * and Temporal: a version is registered with a signed artifact, verified by
 * the real Verify workflow and approved through GraphQL; its promotion on an
 * alias is written with the same persistence functions and receipts the
 * rollout activities use (a canary needs agents and gateway traffic, which
 * is the e2e suite's). The bundle is exported over HTTP and through the CLI,
 * then verified offline by `lunanexa evidence verify`.
 */

const MODEL = 'evidenced';
const ALIAS = 'evidence-chat';
const EMPTY_ALIAS = 'evidence-empty';
const REF = `${MODEL}@v1`;
const NODE = 'node-evidence';

describe('lunanexa evidence export and verify against the real API', function () {
  this.timeout(300_000);
  let api: TestApi;
  let viewer = '';
  let scratch = '';
  let fingerprint = '';
  let exported: Buffer;
  let aliasId = '';
  let versionId = '';
  const firstRollout = `rollout-${randomUUID()}`;
  const firstDeployment = `dep-${randomUUID()}`;
  const sql = <T>(text: string, params: unknown[] = []): Promise<T> => api.fixture.ds.query<T>(text, params);

  async function cli(argv: readonly string[], bearer?: string) {
    const io = captureIo(bearer ? { LUNANEXA_TOKEN: bearer.replace(/^Bearer /, '') } : {});
    const code = await runCli(['--api-url', api.base, ...argv], io, '0.0.0-test');
    return { code, out: io.out(), err: io.err() };
  }

  const get = (path: string, authorization?: string) =>
    fetch(`${api.base}${path}`, { headers: authorization ? { authorization } : {} });

  before(async () => {
    api = await startTestApi('evidence');
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-evidence-int-'));
    const operator = await api.operator('ev-operator', 'operator');
    viewer = await api.operator('ev-viewer', 'viewer');
    fingerprint = dataOf<{ sshFingerprint: string }>(
      await api.graphql('{ controllerIdentity { sshFingerprint } }', {}, viewer),
      'controllerIdentity',
    ).sshFingerprint;

    // A trusted artifact-signing key and a version signed with it.
    const signer = generateKeyPairSync('ed25519');
    const keyId = dataOf<{ keyId: string }>(
      await api.graphql(
        `mutation($input: RegisterSigningKeyInput!) { registerSigningKey(input: $input) { keyId } }`,
        {
          input: {
            publicKey: signer.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
            label: 'ci',
          },
        },
        api.admin,
      ),
      'registerSigningKey',
    ).keyId;
    dataOf(
      await api.graphql(
        `mutation { createModel(input: { name: "${MODEL}", displayName: "E" }) { id } }`,
        {},
        operator,
      ),
      'createModel',
    );
    const digest = syntheticArtifactDigest(REF);
    dataOf(
      await api.graphql(
        `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`,
        {
          input: {
            model: MODEL,
            version: 'v1',
            artifact: {
              uri: `file:///var/lib/lunanexa/models/${MODEL}/v1`,
              digest,
              sizeBytes: 0,
              format: 'fake',
              source: 'lunanexa://fake',
              signature: {
                algorithm: 'ed25519',
                keyId,
                value: sign(
                  null,
                  artifactSigningStatement({ digest, sizeBytes: 0 }),
                  signer.privateKey,
                ).toString('base64'),
              },
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
    dataOf(
      await api.graphql(
        `mutation($ref: String!) { verifyModelVersion(ref: $ref) { state } }`,
        { ref: REF },
        operator,
      ),
      'verifyModelVersion',
    );
    const at = new Date();
    await transitionModelVersion(api.fixture.ds, REF, 'startEvaluation', { at });
    await transitionModelVersion(api.fixture.ds, REF, 'evaluationPassed', { at });
    await sql(`UPDATE model_versions SET evaluation = $2::jsonb WHERE ref = $1`, [
      REF,
      JSON.stringify({ runId: randomUUID(), suite: 'smoke', passed: true, scores: {}, evaluatedAt: at }),
    ]);
    dataOf(
      await api.graphql(
        `mutation($ref: String!) { approveModelVersion(ref: $ref, note: "green") { state } }`,
        { ref: REF },
        operator,
      ),
      'approveModelVersion',
    );
    for (const name of [ALIAS, EMPTY_ALIAS]) {
      dataOf(
        await api.graphql(
          `mutation($input: CreateAliasInput!) { createAlias(input: $input) { id } }`,
          { input: { name, dataClass: 'internal' } },
          operator,
        ),
        'createAlias',
      );
    }

    // The node the replica ran on.
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_evidEVID', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'ef'.repeat(32)],
    );
    const inventory = readFileSync(
      join(findRepoRoot(), 'libs/contracts/fixtures/v1/node-inventory.gb10-unified.json'),
      'utf8',
    );
    await sql(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at, credential)
       VALUES ($1, 'spark-evidence', 'Active', '127.0.0.1', 22, 'SHA256:test', 'key-ev', 'test-public-key',
               $2::jsonb, now(), now() + interval '1 hour', 'enroll-node/' || $1, $3, now(), now(),
               '{"secret":"never-exported"}'::jsonb)`,
      [NODE, inventory, tokenId],
    );

    // The rollout's writes and receipts, as its activities make them.
    const [alias] = await sql<{ id: string }[]>(`SELECT id FROM aliases WHERE name = $1`, [ALIAS]);
    const [version] = await sql<{ id: string }[]>(`SELECT id FROM model_versions WHERE ref = $1`, [REF]);
    aliasId = alias?.id;
    versionId = version?.id;
    const rolloutId = firstRollout;
    const deploymentId = firstDeployment;
    const rolloutWorkflow = `rollout/${rolloutId}`;
    const deploymentWorkflow = `deployment/${deploymentId}`;
    const receipt = (action: string, workflowId: string, evidence: Record<string, unknown>) => ({
      id: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: 'operator:ev-operator',
      action,
      decision: 'allowed' as const,
      evidence,
      result: 'succeeded' as const,
      correlationId: `corr-${rolloutId}`,
      workflowId,
    });
    await api.fixture.ds.transaction(async (m) => {
      await insertRolloutClaimingAlias(m, {
        id: rolloutId,
        aliasId: alias?.id,
        modelVersionId: version?.id,
        modelRef: REF,
        baseRevision: 0,
        plan: {
          steps: [50, 100],
          analysisWindowSeconds: 60,
          samplesPerStep: 20,
          maxWindowsPerStep: 3,
        } as never,
        state: 'Verifying',
        workflowId: rolloutWorkflow,
        createdBy: 'operator:ev-operator',
        createdAt: new Date(),
      });
      await appendAuditEvent(
        m,
        receipt('rollout.start', rolloutWorkflow, { rolloutId, alias: ALIAS, modelRef: REF }),
      );
    });
    await api.fixture.ds.transaction(async (m) => {
      await insertDeployment(m, {
        id: deploymentId,
        name: `${ALIAS}-v1`,
        modelVersionId: version?.id,
        modelRef: REF,
        desiredReplicas: 1,
        requestedNodeId: null,
        workflowId: deploymentWorkflow,
        createdBy: 'operator:ev-operator',
        createdAt: new Date(),
        purpose: 'Serving',
        rolloutId,
        placementStrategy: 'Spread',
      });
      await m.query(
        `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec, created_at,
                                  updated_at)
         VALUES ($1, $2, $3, 1, 'Run', now() + interval '1 hour', '{}'::jsonb, now(), now())`,
        [`asg-${randomUUID()}`, deploymentId, NODE],
      );
      await writeRolloutCanaryDeployment(m, rolloutId, {
        state: 'Deploying',
        canaryDeploymentId: deploymentId,
        at: new Date(),
      });
      await appendAuditEvent(
        m,
        receipt('deployment.place', deploymentWorkflow, { deploymentId, nodeIds: [NODE] }),
      );
    });
    // Unrelated events in between: the chain runs through them.
    dataOf(
      await api.graphql(
        `mutation { createModel(input: { name: "unrelated", displayName: "U" }) { id } }`,
        {},
        operator,
      ),
      'createModel',
    );
    await api.fixture.ds.transaction(async (m) => {
      await appendRolloutAnalysis(
        m,
        rolloutId,
        { step: 0, weight: 50, verdict: 'pass', canary: { requests: 20, errors: 0 } } as never,
        new Date(),
      );
      await appendAuditEvent(m, receipt('rollout.analysis', rolloutWorkflow, { rolloutId, stepIndex: 0 }));
      await writeRolloutState(
        m,
        { id: rolloutId, aliasId: alias?.id },
        {
          state: 'Promoted',
          reason: 'promoted by analysis',
          finished: true,
          at: new Date(),
        },
      );
      await makeAliasRevisionCurrent(m, {
        aliasId: alias?.id,
        revision: 1,
        modelVersionId: version?.id,
        modelRef: REF,
        deploymentId,
        reason: 'promote',
        restoredFrom: null,
        rolloutId,
        createdBy: 'operator:ev-operator',
        createdAt: new Date(),
      });
      await appendAuditEvent(
        m,
        receipt('rollout.promote', rolloutWorkflow, { rolloutId, alias: ALIAS, modelRef: REF, revision: 1 }),
      );
    });
  });

  after(async () => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    await api?.stop();
  });

  it('a viewer exports the current revision; it verifies offline pinned to the controller key, and changes nothing', async () => {
    const [before] = await sql<{ n: string }[]>(`SELECT count(*) AS n FROM audit_events`);
    const response = await get(`/v1/evidence/${ALIAS}`, viewer);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/gzip');
    expect(response.headers.get('content-disposition')).to.contain(`evidence-${ALIAS}-r1.tar.gz`);
    exported = Buffer.from(await response.arrayBuffer());
    const [after] = await sql<{ n: string }[]>(`SELECT count(*) AS n FROM audit_events`);
    expect(after?.n).to.equal(before?.n);

    const result = verifyEvidenceBundle(exported, { fingerprint });
    expect(result.problems).to.deep.equal([]);
    expect(result.manifest).to.include({ revision: 1, modelRef: REF, createdBy: 'operator:ev-viewer' });
    expect(result.manifest?.files.map((file) => file.name)).to.deep.equal([
      'alias-revisions.json',
      'artifact.json',
      'audit-segment.json',
      'benchmarks.json',
      'evaluations.json',
      'license.json',
      'model-version.json',
      'nodes.json',
      'placement-and-rollout.json',
      'recommendations.json',
    ]);
    expect(result.artifactSignature).to.equal('verified');
    expect(result.auditEventsChecked).to.be.greaterThan(4);

    const sections = new Map(
      decodeTar(decodeStoredGzip(exported).data as Buffer)
        .files.filter((file) => file.name.endsWith('.json'))
        .map((file) => [file.name, JSON.parse(file.bytes.toString('utf8')) as Record<string, unknown>]),
    );
    const segment = sections.get('audit-segment.json') as {
      runs: AuditSegmentRun[];
      verification: { runsValid: boolean };
      chainAtExport: { valid: boolean; headSeq: number };
    };
    expect(segment.verification.runsValid).to.equal(true);
    expect(segment.chainAtExport.valid).to.equal(true);
    const actions = segment.runs.flatMap((run) => run.events.map((event) => event.action));
    for (const action of [
      'model-version.create',
      'model-version.approve',
      'model-version.verify',
      'rollout.start',
      'deployment.place',
      'rollout.analysis',
      'rollout.promote',
    ]) {
      expect(actions, action).to.include(action);
    }
    // The unrelated event sits inside a run, so the links around it are checked too.
    expect(actions).to.include('model.create');
    const firstRun = segment.runs[0];
    expect(firstRun.anchor === null ? GENESIS_HASH : firstRun.anchor.hash).to.match(/^[0-9a-f]{64}$/);
    const nodes = sections.get('nodes.json') as { nodes: { id: string; inventory: unknown }[] };
    expect(nodes.nodes.map((node) => node.id)).to.deep.equal([NODE]);
    expect(JSON.stringify(nodes)).not.to.contain('never-exported');
    // The alias has no benchmark run and no traffic: the recommendation says so instead of guessing.
    const recommendations = sections.get('recommendations.json') as {
      available: boolean;
      capacity: { alias: string; replicasNeeded: number | null; missing: string[] };
    };
    expect(recommendations.available).to.equal(true);
    expect(recommendations.capacity.alias).to.be.a('string');
    expect(recommendations.capacity.replicasNeeded).to.equal(null);
    expect(recommendations.capacity.missing.length).to.be.greaterThan(0);
    const placement = sections.get('placement-and-rollout.json') as {
      rollouts: { state: string; analyses: unknown[]; receipts: { action: string }[] }[];
      deployments: { assignments: { nodeId: string }[] }[];
    };
    expect(placement.rollouts[0]?.state).to.equal('Promoted');
    expect(placement.rollouts[0]?.analyses).to.have.length(1);
    expect(placement.rollouts[0]?.receipts.map((r) => r.action)).to.deep.equal([
      'rollout.start',
      'rollout.analysis',
      'rollout.promote',
    ]);
    expect(placement.deployments[0]?.assignments.map((a) => a.nodeId)).to.deep.equal([NODE]);
  });

  it('lunanexa evidence export writes it; verify passes offline and fails naming the file a flipped byte is in', async () => {
    const out = join(scratch, 'bundle.tar.gz');
    const exportRun = await cli(['evidence', 'export', ALIAS, '--revision', '1', '--out', out], viewer);
    expect(exportRun.err).to.equal('');
    expect(exportRun.code).to.equal(0);
    const ok = await cli(['evidence', 'verify', out, '--fingerprint', fingerprint]);
    expect(ok.code, ok.err).to.equal(0);
    expect(ok.out).to.match(/^signer pinned +yes$/m);

    const bytes = readFileSync(out);
    const tar = decodeStoredGzip(bytes).data as Buffer;
    const span = decodeTar(tar).spans.find((candidate) => candidate.name === 'nodes.json');
    if (!span) throw new Error('no nodes.json');
    // One stored block: tar offset + 10 bytes of gzip header + 5 of block framing.
    const at = 15 + span.start + 512 + 10;
    const tampered = Buffer.from(bytes);
    tampered[at] = tampered[at] ^ 0x01;
    const bad = join(scratch, 'tampered.tar.gz');
    writeFileSync(bad, tampered);
    const failed = await cli(['evidence', 'verify', bad]);
    expect(failed.code).to.equal(1);
    expect(failed.err).to.match(
      /^error\[EVIDENCE_INVALID\]: .*tampered\.tar\.gz: nodes\.json: its sha256 differs/m,
    );
  });

  it('refuses an unknown alias (NOT_FOUND), a bad or missing revision (VALIDATION_FAILED) and an anonymous caller', async () => {
    const problem = async (path: string, authorization?: string) => {
      const response = await get(path, authorization);
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      return { status: response.status, body: (await response.json()) as { code: string } };
    };
    expect(await problem('/v1/evidence/no-such-alias', viewer)).to.deep.include({ status: 404 });
    expect((await problem('/v1/evidence/no-such-alias', viewer)).body.code).to.equal('NOT_FOUND');
    for (const revision of ['abc', '0', '-1', '2', '1.5']) {
      const answer = await problem(`/v1/evidence/${ALIAS}?revision=${revision}`, viewer);
      expect(answer.body.code, revision).to.equal('VALIDATION_FAILED');
      expect(answer.status, revision).to.equal(400);
    }
    expect((await problem(`/v1/evidence/${EMPTY_ALIAS}`, viewer)).body.code).to.equal('VALIDATION_FAILED');
    const anonymous = await problem(`/v1/evidence/${ALIAS}`);
    expect(anonymous).to.deep.include({ status: 401 });
    expect(anonymous.body.code).to.equal('UNAUTHENTICATED');
    const cliMissing = await cli(
      ['evidence', 'export', 'no-such-alias', '--out', join(scratch, 'x.tar.gz')],
      viewer,
    );
    expect(cliMissing.code).to.equal(1);
    expect(cliMissing.err).to.match(/^error\[NOT_FOUND\]: alias no-such-alias does not exist/);
    const cliAnonymous = await cli(['evidence', 'export', ALIAS, '--out', join(scratch, 'y.tar.gz')]);
    expect(cliAnonymous.code).to.equal(77);
  });

  it('a rollback revision carries the rollout that rolled back and the one that made the revision it restores', async () => {
    // A second rollout of the same version whose canary is rolled back after promotion: revision 2 restores 1.
    const rolloutId = `rollout-${randomUUID()}`;
    const canary = `dep-${randomUUID()}`;
    await api.fixture.ds.transaction(async (m) => {
      await insertRolloutClaimingAlias(m, {
        id: rolloutId,
        aliasId,
        modelVersionId: versionId,
        modelRef: REF,
        baseRevision: 1,
        plan: { steps: [100], analysisWindowSeconds: 60, samplesPerStep: 20, maxWindowsPerStep: 3 } as never,
        state: 'Verifying',
        workflowId: `rollout/${rolloutId}`,
        createdBy: 'operator:ev-operator',
        createdAt: new Date(),
      });
      await insertDeployment(m, {
        id: canary,
        name: `${ALIAS}-canary`,
        modelVersionId: versionId,
        modelRef: REF,
        desiredReplicas: 1,
        requestedNodeId: null,
        workflowId: `deployment/${canary}`,
        createdBy: 'operator:ev-operator',
        createdAt: new Date(),
        purpose: 'Serving',
        rolloutId,
        placementStrategy: 'Spread',
      });
      await writeRolloutCanaryDeployment(m, rolloutId, {
        state: 'Canary',
        canaryDeploymentId: canary,
        at: new Date(),
      });
      await writeRolloutState(
        m,
        { id: rolloutId, aliasId },
        {
          state: 'RolledBack',
          reason: 'operator',
          finished: true,
          at: new Date(),
        },
      );
      await makeAliasRevisionCurrent(m, {
        aliasId,
        revision: 2,
        modelVersionId: versionId,
        modelRef: REF,
        deploymentId: firstDeployment,
        reason: 'rollback',
        restoredFrom: 1,
        rolloutId,
        createdBy: 'operator:ev-operator',
        createdAt: new Date(),
      });
    });
    const sectionsOf = async (path: string) => {
      const response = await get(path, viewer);
      expect(response.status).to.equal(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(verifyEvidenceBundle(bytes, { fingerprint }).problems).to.deep.equal([]);
      return new Map(
        decodeTar(decodeStoredGzip(bytes).data as Buffer)
          .files.filter((file) => file.name.endsWith('.json'))
          .map((file) => [file.name, JSON.parse(file.bytes.toString('utf8')) as Record<string, unknown>]),
      );
    };
    const now = await sectionsOf(`/v1/evidence/${ALIAS}`);
    expect(now.get('manifest.json')).to.include({ revision: 2 });
    const placement = now.get('placement-and-rollout.json') as {
      rollouts: { id: string; state: string }[];
      deployments: { id: string; servesThisRevision: boolean }[];
    };
    expect(placement.rollouts.map((row) => [row.id, row.state])).to.deep.equal([
      [rolloutId, 'RolledBack'],
      [firstRollout, 'Promoted'],
    ]);
    expect(placement.deployments.map((row) => [row.id, row.servesThisRevision])).to.deep.equal([
      [firstDeployment, true],
      [canary, false],
    ]);
    expect((now.get('nodes.json') as { nodes: { id: string }[] }).nodes.map((node) => node.id)).to.deep.equal(
      [NODE],
    );
    const revisions = (
      now.get('alias-revisions.json') as { revisions: { revision: number; reason: string }[] }
    ).revisions;
    expect(revisions.map((row) => [row.revision, row.reason])).to.deep.equal([
      [2, 'rollback'],
      [1, 'promote'],
    ]);
    // An earlier revision's bundle shows the history up to it only.
    const earlier = await sectionsOf(`/v1/evidence/${ALIAS}?revision=1`);
    expect(
      (earlier.get('alias-revisions.json') as { revisions: { revision: number }[] }).revisions.map(
        (r) => r.revision,
      ),
    ).to.deep.equal([1]);
    expect(
      (earlier.get('placement-and-rollout.json') as { rollouts: { id: string }[] }).rollouts.map(
        (row) => row.id,
      ),
    ).to.deep.equal([firstRollout]);
  });
});
