// `npm start`: install what is missing, start the whole LunaNexa system on
// embedded defaults, print the URLs, and stop everything cleanly on Ctrl-C or
// SIGTERM. State stays under .data/ (or LUNANEXA_DATA_DIR) between runs.

import { bootstrap } from './lib/bootstrap.mjs';
import { openConsole } from './lib/open-browser.mjs';
import { demoEnabled, demoSnippets, ensureDemo } from './lib/demo.mjs';
import { graphqlAs, preflight, runSystemCheck, startStack } from './lib/stack.mjs';

const log = (line) => console.log(`[lunanexa] ${line}`);

let stack;
let shuttingDown = false;
let startupInterrupted = false;

async function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  if (!stack) {
    startupInterrupted = true;
    log(`${signal}: stopping once startup unwinds…`);
    return;
  }
  log(`${signal}: stopping agents, gateway, api, worker, Temporal and PostgreSQL…`);
  await stack.stop();
  log('stopped. State is kept in ' + stack.settings.dataDir);
  process.exit(0);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

/** The extra processes' addresses, when a service runs as several (LUNANEXA_<SERVICE>_PROCESSES). */
function processLines(processes) {
  return Object.entries(processes)
    .filter(([, urls]) => urls.length > 1)
    .map(([service, urls]) => `\n  ${`${service} ×${urls.length}`.padEnd(12)} ${urls.join(', ')}`)
    .join('');
}

try {
  // Seconds, not minutes, to learn that a port is busy: before npm ci, the Temporal CLI build and tsc.
  await preflight({ log });
  const { temporalCli } = await bootstrap(log, {
    temporalServer: process.env.LUNANEXA_TEMPORAL_MODE === 'server',
  });
  stack = await startStack({ temporalCli, log });
  if (startupInterrupted) {
    await stack.stop();
    process.exit(130);
  }
  const check = await runSystemCheck(stack.urls.api, stack.tokenFile);
  let tryIt = 'Demo         off (LUNANEXA_DEMO=0)';
  if (demoEnabled() && stack.settings.agents > 0) {
    // The stack is up either way: a demo that cannot be prepared is reported, not fatal.
    tryIt = await ensureDemo({
      graphql: (query, variables) => graphqlAs(stack.urls.api, stack.adminTokenFile, query, variables),
      gatewayUrl: stack.urls.gateway,
      dataDir: stack.settings.dataDir,
      log,
    }).then(
      demoSnippets,
      (error) => `Demo         not ready: ${error instanceof Error ? error.message : String(error)}`,
    );
  } else if (demoEnabled()) {
    tryIt = 'Demo         needs at least one simulated agent (LUNANEXA_AGENTS)';
  }
  const agents = stack.urls.agents.map((a) => `${a.nodeName} ${a.url}`).join(', ');
  const opened = openConsole(stack.urls.console);
  console.log(`
LunaNexa is up.
  Console      ${stack.urls.console}  (${opened})
  GraphQL      ${stack.urls.graphql}
  ${
    stack.urls.temporalUi
      ? `Temporal UI  ${stack.urls.temporalUi}`
      : `Temporal     ${stack.urls.temporal}  (temporal-server on PostgreSQL; no web UI)`
  }
  Gateway      ${stack.urls.gateway}  (OpenAI-compatible /v1)${processLines(stack.urls.processes)}
  Agents       ${agents || 'none'}
  Logs         ${stack.logDir}
  CLI token    ${stack.tokenFile}  (export LUNANEXA_TOKEN_FILE=${stack.tokenFile})
  System check ${check.workflowId} → ${check.temporalUiUrl}

${tryIt}

Press Ctrl-C to stop.`);
} catch (error) {
  console.error(`[lunanexa] start failed: ${error instanceof Error ? error.message : String(error)}`);
  if (stack) await stack.stop();
  process.exit(1);
}
