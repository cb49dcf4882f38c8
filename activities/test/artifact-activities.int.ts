import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { pushOciBlob, putS3Object, syntheticArtifactDigest } from '@lunanexa/artifact-store';
import {
  startOciRegistry,
  startS3Server,
  unusedLoopbackPort,
  type RunningOciRegistry,
  type RunningS3Server,
} from '@lunanexa/artifact-store/dist/src/testing';
import { DEFAULT_TEMPORAL_NAMESPACE, typedFailureCode } from '@lunanexa/contracts';
import {
  createDataSource,
  createScratchDatabase,
  findModelVersion,
  runMigrations,
  verifyAuditChain,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { createArtifactActivities, type VerifyModelVersionArtifactResult } from '../src/artifact';
import { systemClock } from '../src/clock';
import { verifyArtifactOnce, verifyArtifactTwice } from './artifact-verification-workflows';

const SYNTHETIC_LICENSE_ID = '00000000-0000-4000-8000-000000000001';

function temporalCli(): string {
  const path = process.env['LUNANEXA_TEMPORAL_CLI'];
  if (!path) throw new Error('LUNANEXA_TEMPORAL_CLI is not set: run integration tests through `npm test`');
  return path;
}

describe('verifyModelVersionArtifact on real Temporal, PostgreSQL, S3 and OCI servers', function () {
  this.timeout(180_000);
  let scratch: string;
  let database: ScratchDatabase;
  let db: DataSource;
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  let s3: RunningS3Server;
  let oci: RunningOciRegistry;
  let unreachablePort: number;
  const taskQueue = `artifact-activities-${randomUUID()}`;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-artifact-activities-'));
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Installed already by another test file in this process.
    }
    database = await createScratchDatabase('artifact_activities');
    await runMigrations(database.url);
    db = createDataSource({ url: database.url, applicationName: 'artifact-activities-test' });
    await db.initialize();
    [s3, oci, env, unreachablePort] = await Promise.all([
      startS3Server({ dataDir: scratch }),
      startOciRegistry({ dataDir: scratch }),
      TestWorkflowEnvironment.createLocal({
        server: {
          executable: { type: 'existing-path', path: temporalCli() },
          namespace: DEFAULT_TEMPORAL_NAMESPACE,
          ip: '127.0.0.1',
          ui: false,
          log: { format: 'pretty', level: 'error' },
        },
      }),
      unusedLoopbackPort(),
    ]);
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: DEFAULT_TEMPORAL_NAMESPACE,
      taskQueue,
      workflowsPath: require.resolve('./artifact-verification-workflows'),
      activities: createArtifactActivities({
        db,
        clock: systemClock,
        artifactStore: s3.storeConfig(),
      }),
    });
    running = worker.run();
  });

  after(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await env?.teardown();
    await db?.destroy();
    await database?.drop();
    await Promise.all([s3?.stop(), oci?.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  async function registerVersion(artifact: {
    uri: string;
    digest: string;
    sizeBytes: number;
    format?: string;
    state?: string;
    model?: string;
  }): Promise<{ id: string; ref: string; model: string; version: string }> {
    const model = artifact.model ?? `m-${randomBytes(4).toString('hex')}`;
    const version = '1';
    const ref = `${model}@${version}`;
    const id = randomUUID();
    await db.query(
      `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
       VALUES ($1, $2, $2, 'test', now(), now())`,
      [randomUUID(), model],
    );
    await db.query(
      `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
       VALUES ('runtime-test', 'test', '1', 'fake', '{}'::jsonb, 'test', now(), now()) ON CONFLICT (id) DO NOTHING`,
    );
    const document = {
      uri: artifact.uri,
      digest: artifact.digest,
      sizeBytes: artifact.sizeBytes,
      format: artifact.format ?? 'safetensors',
      provenance: { source: 'test', uploader: 'test', uploadedAt: new Date().toISOString() },
    };
    await db.query(
      `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                   state, license_id, runtime_id, requirements, updated_at)
       SELECT $1, $2, $3, $4, $5::jsonb, '{}'::jsonb, 'test', now(), m.id, $6, $7, 'runtime-test', '{}'::jsonb, now()
         FROM models m WHERE m.name = $2`,
      [
        id,
        model,
        version,
        ref,
        JSON.stringify(document),
        artifact.state ?? 'Registered',
        SYNTHETIC_LICENSE_ID,
      ],
    );
    return { id, ref, model, version };
  }

  function verify(
    modelVersionId: string,
    workflowId = `verify-${randomUUID()}`,
  ): Promise<VerifyModelVersionArtifactResult> {
    return env.client.workflow.execute(verifyArtifactOnce, {
      taskQueue,
      workflowId,
      args: [{ modelVersionId, actor: 'user:test', correlationId: `corr-${modelVersionId}` }],
    });
  }

  async function stored(
    id: string,
  ): Promise<{ state: string; stateReason: string | null; verification: unknown }> {
    const row = await findModelVersion(db, id);
    if (row === null) throw new Error(`${id} vanished`);
    return { state: row.state, stateReason: row.stateReason, verification: row.verification };
  }

  it('verifies an S3 artifact: Registered → Verified, with the verification and a receipt recorded', async () => {
    const bytes = randomBytes(1024 * 1024 + 5);
    const published = await putS3Object(s3.config, { bucket: 'models', key: `good/${randomUUID()}` }, bytes, {
      createBucket: true,
    });
    const version = await registerVersion(published);
    const workflowId = `verify-${randomUUID()}`;
    const result = await verify(version.id, workflowId);
    expect(result).to.deep.equal({
      ok: true,
      code: null,
      message: null,
      digest: published.digest,
      sizeBytes: bytes.length,
      store: 's3',
      state: 'Verified',
    });
    const row = await stored(version.id);
    expect(row.state).to.equal('Verified');
    expect(row.stateReason).to.equal(null);
    expect(row.verification).to.deep.include({
      ok: true,
      digest: published.digest,
      sizeBytes: bytes.length,
      store: 's3',
    });
    const receipts = await db.query<{ actor: string; action: string; evidence: Record<string, unknown> }[]>(
      `SELECT actor, action, evidence FROM audit_events WHERE workflow_id = $1`,
      [workflowId],
    );
    expect(receipts).to.have.length(1);
    expect(receipts[0]).to.deep.include({ actor: 'user:test', action: 'model-version.verify' });
    expect(receipts[0]?.evidence).to.include({ from: 'Registered', to: 'Verified', ok: true });
    expect(await verifyAuditChain(db.manager)).to.include({ valid: true });
  });

  it('fails a tampered S3 artifact: Registered → VerificationFailed with DIGEST_MISMATCH as the reason', async () => {
    const key = `tampered/${randomUUID()}`;
    const published = await putS3Object(
      s3.config,
      { bucket: 'models', key },
      Buffer.from('registered weights'),
      {
        createBucket: true,
      },
    );
    const version = await registerVersion(published);
    const replaced = await putS3Object(
      s3.config,
      { bucket: 'models', key },
      Buffer.from('swapped-in weights'),
    );
    const result = await verify(version.id);
    expect(result).to.include({
      ok: false,
      code: 'DIGEST_MISMATCH',
      digest: replaced.digest,
      state: 'VerificationFailed',
    });
    const row = await stored(version.id);
    expect(row.state).to.equal('VerificationFailed');
    expect(row.stateReason).to.match(/^DIGEST_MISMATCH: /);
    expect(row.verification).to.deep.include({ ok: false, code: 'DIGEST_MISMATCH', digest: replaced.digest });
  });

  it('verifies an OCI blob artifact', async () => {
    const blob = await pushOciBlob(
      oci.storeConfig().oci,
      { registry: oci.registry, repository: 'models/x' },
      randomBytes(4096),
    );
    const version = await registerVersion(blob);
    expect(await verify(version.id)).to.include({ ok: true, store: 'oci', state: 'Verified' });
  });

  it('checks fake-format artifacts against the synthetic digest without any store', async () => {
    const model = `m-${randomBytes(4).toString('hex')}`;
    const good = await registerVersion({
      model,
      uri: `file:///var/lib/lunanexa/models/${model}/1`,
      digest: syntheticArtifactDigest(`${model}@1`),
      sizeBytes: 0,
      format: 'fake',
    });
    expect(await verify(good.id)).to.deep.include({
      ok: true,
      store: 'synthetic',
      state: 'Verified',
      sizeBytes: 0,
    });
    const forged = await registerVersion({
      uri: 'file:///var/lib/lunanexa/models/x/1',
      digest: syntheticArtifactDigest(`${model}@other`),
      sizeBytes: 0,
      format: 'fake',
    });
    expect(await verify(forged.id)).to.include({
      ok: false,
      code: 'DIGEST_MISMATCH',
      store: 'synthetic',
      state: 'VerificationFailed',
    });
  });

  it('records DEPENDENCY_UNAVAILABLE when the store cannot be reached, and NOT_FOUND for a missing object', async () => {
    const digest = `sha256:${'0'.repeat(64)}`;
    const unreachable = await registerVersion({
      uri: `oci://127.0.0.1:${unreachablePort}/models/x@${digest}`,
      digest,
      sizeBytes: 10,
    });
    const down = await verify(unreachable.id);
    expect(down).to.include({ ok: false, code: 'DEPENDENCY_UNAVAILABLE', state: 'VerificationFailed' });
    expect((await stored(unreachable.id)).stateReason).to.match(/^DEPENDENCY_UNAVAILABLE: /);
    const missing = await registerVersion({
      uri: `s3://models/missing/${randomUUID()}`,
      digest,
      sizeBytes: 10,
    });
    expect(await verify(missing.id)).to.include({
      ok: false,
      code: 'NOT_FOUND',
      state: 'VerificationFailed',
    });
    const unsupported = await registerVersion({ uri: 'hf://org/model', digest, sizeBytes: 10 });
    expect(await verify(unsupported.id)).to.include({
      ok: false,
      code: 'VALIDATION_FAILED',
      store: 'unsupported',
    });
  });

  it('is safe to repeat, and outside Registered records the verification without moving the state', async () => {
    const key = `repeat/${randomUUID()}`;
    const published = await putS3Object(
      s3.config,
      { bucket: 'models', key },
      Buffer.from('approved weights'),
      {
        createBucket: true,
      },
    );
    const version = await registerVersion({ ...published, state: 'Approved' });
    const twice = await env.client.workflow.execute(verifyArtifactTwice, {
      taskQueue,
      workflowId: `verify-twice-${randomUUID()}`,
      args: [{ modelVersionId: version.ref, actor: 'user:test', correlationId: 'corr-twice' }],
    });
    expect(twice.map((r) => [r.ok, r.state])).to.deep.equal([
      [true, 'Approved'],
      [true, 'Approved'],
    ]);
    await putS3Object(s3.config, { bucket: 'models', key }, Buffer.from('tampered weights'));
    expect(await verify(version.id)).to.include({ ok: false, code: 'DIGEST_MISMATCH', state: 'Approved' });
    const row = await stored(version.id);
    expect(row.state).to.equal('Approved');
    expect(row.verification).to.deep.include({ ok: false, code: 'DIGEST_MISMATCH' });
  });

  it('fails with a typed NOT_FOUND for a version that does not exist', async () => {
    let failure: unknown;
    try {
      await verify(randomUUID());
    } catch (error: unknown) {
      failure = error;
    }
    expect(typedFailureCode(failure)).to.equal('NOT_FOUND');
  });
});
