import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { pushOciBlob, putS3Object, type ArtifactStoreConfig } from '@lunanexa/artifact-store';
import {
  startOciRegistry,
  startS3Server,
  type RunningOciRegistry,
  type RunningS3Server,
} from '@lunanexa/artifact-store/dist/src/testing';
import type { Assignment } from '@lunanexa/contracts';
import type { ReplicaHealth } from '../src/reconcile/reconciler';
import { eventually } from './controller-support';
import {
  chat,
  fakeRuntimePids,
  FAST_RECONCILE,
  killFakeRuntimes,
  uniqueModelVersion,
} from './reconcile-support';
import { fakeAsOpenAiCompatible } from './runtimes/support';
import {
  anAssignment,
  capturingLogger,
  connectAs,
  makeControllerKey,
  openProtocol,
  signedPut,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type SshTestAgent,
} from './ssh-support';

/**
 * The node half of digest verification, against a real S3-compatible server
 * and a real OCI registry: the agent pulls what it does not have, hashes it
 * on the way in, and starts no runtime on bytes that are not the assigned
 * digest — whether the store's copy was replaced or the file on the node
 * was.
 */
const controller = makeControllerKey('controller-1');
const NODE_DIGEST = `sha256:${createHash('sha256').update(readFileSync(process.execPath)).digest('hex')}`;

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

describe('agent: pulling and verifying model artifacts', function () {
  this.timeout(120_000);
  let servers: string;
  let s3: RunningS3Server;
  let oci: RunningOciRegistry;
  let storeConfig: ArtifactStoreConfig;
  let dataDir: string;
  let agent: SshTestAgent | null = null;
  let logs: () => Record<string, unknown>[];
  let modelVersion: string;

  before(async () => {
    servers = mkdtempSync(join(tmpdir(), 'lunanexa-agent-stores-'));
    [s3, oci] = await Promise.all([
      startS3Server({ dataDir: servers }),
      startOciRegistry({ dataDir: servers }),
    ]);
    storeConfig = s3.storeConfig();
  });
  after(async () => {
    await Promise.all([s3?.stop(), oci?.stop()]);
    rmSync(servers, { recursive: true, force: true });
  });

  beforeEach(async () => {
    dataDir = tempDataDir();
    modelVersion = uniqueModelVersion();
    agent = await startAgent();
  });
  afterEach(async () => {
    await agent?.close({ stopRuntimes: true });
    agent = null;
    killFakeRuntimes(modelVersion);
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startAgent(): Promise<SshTestAgent> {
    const captured = capturingLogger();
    logs = captured.lines;
    return startSshAgent(dataDir, [controller], {
      reconcile: FAST_RECONCILE,
      logger: captured.logger,
      artifactStore: storeConfig,
    });
  }

  /** An assignment running the fake runtime as an openai-compatible binary: it needs the real artifact file. */
  function assignmentFor(artifact: { uri: string; digest: string; sizeBytes: number }): Assignment {
    return anAssignment({
      modelVersion,
      gpuUuids: [],
      env: {},
      runtime: fakeAsOpenAiCompatible(NODE_DIGEST),
      artifact: { ...anAssignment().artifact, ...artifact, format: 'safetensors' },
    });
  }

  async function push(assignment: Assignment): Promise<void> {
    const client: Client = await connectAs(agent!, controller);
    try {
      const stream = await openProtocol(client);
      stream.send(signedPut(controller, assignment));
      verifyReply(agent!, await stream.next(), 'assignment.ack');
    } finally {
      client.end();
    }
  }

  function replicaIn(
    assignmentId: string,
    state: ReplicaHealth['state'],
    extra: (replica: ReplicaHealth) => boolean = () => true,
  ): Promise<ReplicaHealth> {
    return eventually(
      () => {
        const found = agent!.health().replicas.find((entry) => entry.assignmentId === assignmentId);
        return found !== undefined && found.state === state && extra(found) ? found : undefined;
      },
      30_000,
      `${assignmentId} ${state}`,
    );
  }

  function statesSeen(assignmentId: string): string[] {
    return logs()
      .filter((line) => line['event'] === 'replica_state' && line['assignmentId'] === assignmentId)
      .map((line) => {
        const message = typeof line['message'] === 'string' ? `: ${line['message']}` : '';
        return `${String(line['to'])}${message}`;
      });
  }

  function modelFile(digest: string): string {
    return join(dataDir, 'models', digest.replace(/^sha256:/, ''));
  }

  it('pulls a good S3 artifact (Pulling), verifies it and starts the runtime on it', async () => {
    const bytes = randomBytes(5 * 1024 * 1024 + 11);
    const published = await putS3Object(
      s3.config,
      { bucket: 'models', key: `${modelVersion}/weights` },
      bytes,
      {
        createBucket: true,
      },
    );
    const assignment = assignmentFor(published);
    await push(assignment);
    const ready = await replicaIn(assignment.id, 'Ready');
    expect(
      statesSeen(assignment.id).some((state) => state.startsWith(`Pulling: pulling ${published.uri}`)),
    ).to.equal(true);
    expect(readFileSync(modelFile(published.digest)).equals(bytes)).to.equal(true);
    const argv = readFileSync(`/proc/${ready.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).to.include(modelFile(published.digest));
    expect((await chat(ready.endpointPort as number, modelVersion)).status).to.equal(200);
    expect(
      logs().some((line) => line['event'] === 'artifact_pulled' && line['digest'] === published.digest),
    ).to.equal(true);
  });

  it('refuses a tampered S3 object with DIGEST_MISMATCH and starts no runtime', async () => {
    const key = `${modelVersion}/tampered`;
    const registered = await putS3Object(
      s3.config,
      { bucket: 'models', key },
      Buffer.from('weights as registered'),
      {
        createBucket: true,
      },
    );
    // Replaced in the store after registration: same size, other bytes.
    const replaced = await putS3Object(
      s3.config,
      { bucket: 'models', key },
      Buffer.from('weights swapped in!!!'),
    );
    expect(replaced.sizeBytes).to.equal(registered.sizeBytes);
    const assignment = assignmentFor(registered);
    await push(assignment);
    const failed = await replicaIn(assignment.id, 'Failed');
    expect(failed.message).to.match(/^DIGEST_MISMATCH: /);
    expect(failed.message).to.contain(replaced.digest);
    expect(failed.pid).to.equal(null);
    const observed = agent!.reconciler
      .observedAssignments()
      .find((entry) => entry.assignmentId === assignment.id);
    expect(observed?.state).to.equal('Failed');
    expect(observed?.message).to.match(/^DIGEST_MISMATCH: /);
    // Retried with backoff, and refused every time: nothing ever ran, nothing was kept.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([]);
    expect(logs().some((line) => line['event'] === 'runtime_started')).to.equal(false);
    expect(existsSync(modelFile(registered.digest))).to.equal(false);
  });

  it('pulls and verifies an OCI blob, and refuses one tampered with inside the registry', async () => {
    const target = { registry: oci.registry, repository: 'models/agent-test' };
    const good = await pushOciBlob(storeConfig.oci, target, randomBytes(64 * 1024));
    const assignment = assignmentFor(good);
    await push(assignment);
    await replicaIn(assignment.id, 'Ready');
    expect(sha256(readFileSync(modelFile(good.digest)))).to.equal(good.digest);

    const original = Buffer.from(`oci weights of ${modelVersion}`);
    const tampered = await pushOciBlob(storeConfig.oci, target, original);
    const flipped = Buffer.from(original);
    flipped[0] = (flipped[0] ?? 0) ^ 0x01;
    writeFileSync(oci.blobDataFile(tampered.digest), flipped);
    const second = {
      ...assignmentFor(tampered),
      id: `${assignment.id}-b`,
      deploymentId: `${assignment.deploymentId}-b`,
    };
    await push(second);
    const failed = await replicaIn(second.id, 'Failed');
    expect(failed.message).to.match(/^DIGEST_MISMATCH: /);
    expect(failed.message).to.contain(sha256(flipped));
    expect(failed.pid).to.equal(null);
  });

  it('re-verifies an artifact on disk after an agent restart: a tampered file is refused, set aside and pulled again', async () => {
    const bytes = Buffer.from(`good weights of ${modelVersion}`);
    const published = await putS3Object(s3.config, { bucket: 'models', key: `${modelVersion}/disk` }, bytes, {
      createBucket: true,
    });
    const assignment = assignmentFor(published);
    await push(assignment);
    await replicaIn(assignment.id, 'Ready');
    await agent!.close({ stopRuntimes: true });
    agent = null;

    const file = modelFile(published.digest);
    const tampered = Buffer.from(bytes);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 0x20;
    writeFileSync(file, tampered);
    agent = await startAgent();
    const ready = await replicaIn(assignment.id, 'Ready');
    const seen = statesSeen(assignment.id);
    const refusal = seen.findIndex((state) => state.startsWith('Failed: DIGEST_MISMATCH: '));
    expect(refusal, seen.join('\n')).to.be.greaterThan(-1);
    expect(seen.slice(refusal).some((state) => state.startsWith('Pulling: '))).to.equal(true);
    // The runtime that now serves was started only after the fresh copy verified.
    expect(readFileSync(file).equals(bytes)).to.equal(true);
    expect(readFileSync(`${file}.rejected`).equals(tampered)).to.equal(true);
    expect(readFileSync(`/proc/${ready.pid}/cmdline`, 'utf8').split('\0')).to.include(file);
  });

  // Last: it kills and restarts the S3-compatible server the other tests use.
  it('resumes a pull the store broke off (SIGKILL mid-stream) after the store is back, from the partial file, and starts on verified bytes', async () => {
    const bytes = randomBytes(96 * 1024 * 1024 + 7);
    const published = await putS3Object(s3.config, { bucket: 'models', key: `${modelVersion}/big` }, bytes, {
      createBucket: true,
    });
    const assignment = assignmentFor(published);
    const partial = join(dataDir, 'models', `.${published.digest.replace(/^sha256:/, '')}.partial`);
    await push(assignment);
    // The store dies once a few MiB have reached the node.
    await eventually(
      () => (existsSync(partial) && statSync(partial).size >= 4 * 1024 * 1024 ? true : undefined),
      30_000,
      'a partial file of 4 MiB',
    );
    process.kill(s3.pid, 'SIGKILL');
    const failed = await replicaIn(assignment.id, 'Failed');
    expect(failed.message).to.match(/^DEPENDENCY_UNAVAILABLE: /);
    const kept = statSync(partial).size;
    expect(kept).to.be.greaterThan(0).and.lessThan(bytes.length);

    s3 = await startS3Server({
      dataDir: servers,
      port: Number(new URL(s3.endpoint).port),
      credentials: s3.credentials,
    });
    const ready = await replicaIn(assignment.id, 'Ready');
    const resumed = logs().filter(
      (line) => line['event'] === 'artifact_pull_resumed' && line['digest'] === published.digest,
    );
    expect(resumed.length).to.be.greaterThan(0);
    expect(resumed[0]?.['fromByte']).to.be.a('number').greaterThan(0);
    expect(readFileSync(modelFile(published.digest)).equals(bytes)).to.equal(true);
    expect(existsSync(partial)).to.equal(false);
    expect(readFileSync(`/proc/${ready.pid}/cmdline`, 'utf8').split('\0')).to.include(
      modelFile(published.digest),
    );
  });
});
