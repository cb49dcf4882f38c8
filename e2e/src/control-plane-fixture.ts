import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities, SouthboundClient } from '@lunanexa/activities';
import { ed25519KeyId } from '@lunanexa/agent-protocol';
import {
  createDataSource,
  createScratchDatabase,
  loadOrCreateControllerKey,
  runMigrations,
  type ControllerKey,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { startTestTemporal } from './temporal-test-env';

/**
 * The control plane's back half for one integration test file: a real
 * Temporal dev server, a migrated scratch database on real PostgreSQL, and a
 * worker running LunaNexa's workflows and activities on a task queue of its
 * own.
 */
export interface ControlPlaneFixture {
  readonly env: TestWorkflowEnvironment;
  readonly db: ScratchDatabase;
  /** The worker's connection pool; tests may read and write through it. */
  readonly ds: DataSource;
  readonly taskQueue: string;
  /** The controller key the worker signs with (created in a temp directory, as the API creates its own on first start). */
  readonly controllerKey: ControllerKey;
  readonly controllerKeyFile: string;
  stop(): Promise<void>;
}

export async function startControlPlaneFixture(
  name: string,
  workflowsPath: string = require.resolve('@lunanexa/workflows'),
): Promise<ControlPlaneFixture> {
  const taskQueue = `${name}-${randomUUID()}`;
  const [env, db] = await Promise.all([startTestTemporal(), createScratchDatabase(name)]);
  await runMigrations(db.url);
  const ds = createDataSource({ url: db.url, applicationName: `${name}-test` });
  await ds.initialize();
  const controllerKeyFile = join(
    mkdtempSync(join(tmpdir(), `${name}-controller-`)),
    'controller-ed25519.pem',
  );
  const controllerKey = loadOrCreateControllerKey(controllerKeyFile);
  const controller = { privateKey: controllerKey.privateKey, keyId: ed25519KeyId(controllerKey.publicKey) };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowsPath,
    activities: createActivities({ db: ds, controller, southbound: new SouthboundClient(controller) }),
  });
  const running = worker.run();
  return {
    env,
    db,
    ds,
    taskQueue,
    controllerKey,
    controllerKeyFile,
    async stop() {
      worker.shutdown();
      await running;
      await ds.destroy();
      await db.drop();
      await env.teardown();
    },
  };
}
