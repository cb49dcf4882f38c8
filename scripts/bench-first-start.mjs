#!/usr/bin/env node
// Time to "LunaNexa is up." for a first `npm start` on a fresh clone (npm ci,
// the Temporal CLI built with Go, the TypeScript and console builds, a fresh
// data directory with its demo) and for the starts after it, recorded in
// bench/results/first-start.json under a label.
//
// Usage: npm run bench:first-start -- [--label <label>] [--clone-dir /tmp/lunanexa-first-start]
//                                     [--later-starts 2] [--cold-go-build-cache]
//
// The clone is of this checkout's HEAD. Caches outside the clone (npm's
// download cache, Go's module cache and, unless --cold-go-build-cache, Go's
// build cache) stay as they are; the result notes which were warm.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(REPO_ROOT, 'bench', 'results', 'first-start.json');
const TARGET = 'first start <= 240 s, later starts <= 60 s to "LunaNexa is up." (issue 20)';

const { values: options } = parseArgs({
  options: {
    label: { type: 'string', default: 'latest' },
    'clone-dir': { type: 'string', default: path.join(os.tmpdir(), 'lunanexa-first-start') },
    'later-starts': { type: 'string', default: '2' },
    'cold-go-build-cache': { type: 'boolean', default: false },
  },
});

const log = (line) => console.log(`[bench] ${line}`);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function goEnv(name) {
  try {
    return execFileSync('go', ['env', name], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function dirHasEntries(dir) {
  try {
    return (
      Boolean(dir) && existsSync(dir) && execFileSync('ls', ['-A', dir], { encoding: 'utf8' }).trim() !== ''
    );
  } catch {
    return false;
  }
}

/**
 * Runs `npm start` in the clone until its banner, answering the seconds it took and when each
 * launcher line appeared; then Ctrl-C, and waits for it to stop.
 */
async function timedStart(cloneDir, env) {
  const started = Date.now();
  const child = spawn('npm', ['start'], {
    cwd: cloneDir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const phases = [];
  let output = '';
  let pending = '';
  const onData = (chunk) => {
    output += chunk.toString('utf8');
    pending += chunk.toString('utf8');
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      // The first admin's generated password is printed once: never into a result file.
      if (
        line.startsWith('[lunanexa]') &&
        !/password|token/i.test(line) &&
        !/^\[lunanexa\]\s{2,}/.test(line)
      ) {
        phases.push({ atSeconds: Number(((Date.now() - started) / 1000).toFixed(1)), line: line.slice(11) });
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode;
  void exited.then((code) => (exitCode = code));
  while (!output.includes('LunaNexa is up.')) {
    if (exitCode !== undefined) throw new Error(`npm start exited ${exitCode} before it was up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
  // npm runs the launcher as its child: Ctrl-C reaches both through the group.
  process.kill(-child.pid, 'SIGINT');
  await exited;
  return { seconds, demo: /Try it \(tenant demo/.test(output), phases };
}

/** Wall times on a machine busy with other work measure that work as much as this one: say so in the result. */
function loadNote(cpus, loadAverages) {
  const highest = Math.max(...loadAverages);
  return highest > cpus * 2
    ? `shared machine: load average up to ${highest} on ${cpus} CPUs, so each step waited for a CPU most of the time; compare runs at similar load only`
    : null;
}

async function main() {
  const cloneDir = path.resolve(options['clone-dir']);
  const laterStarts = Number(options['later-starts']);
  const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  }).trim();
  rmSync(cloneDir, { recursive: true, force: true });
  log(`cloning ${REPO_ROOT} (${commit}) into ${cloneDir}`);
  execFileSync('git', ['clone', '--quiet', REPO_ROOT, cloneDir]);

  const goBuildCache = options['cold-go-build-cache']
    ? mkdtempSync(path.join(os.tmpdir(), 'lunanexa-gocache-'))
    : goEnv('GOCACHE');
  const env = {
    ...process.env,
    LUNANEXA_OPEN_CONSOLE: '0',
    // The ports a user types, on free ones so the bench never meets a developer's stack; internal ones are the launcher's.
    LUNANEXA_API_PORT: String(await freePort()),
    LUNANEXA_GATEWAY_PORT: String(await freePort()),
    LUNANEXA_TEMPORAL_UI_PORT: String(await freePort()),
    ...(options['cold-go-build-cache'] ? { GOCACHE: goBuildCache } : {}),
  };
  for (const name of Object.keys(env)) {
    if (
      name.startsWith('LUNANEXA_') &&
      ![
        'LUNANEXA_OPEN_CONSOLE',
        'LUNANEXA_API_PORT',
        'LUNANEXA_GATEWAY_PORT',
        'LUNANEXA_TEMPORAL_UI_PORT',
      ].includes(name)
    ) {
      delete env[name];
    }
  }
  delete env.DATABASE_URL;
  const caches = {
    npmDownloadCache: dirHasEntries(path.join(os.homedir(), '.npm', '_cacache')) ? 'warm' : 'cold',
    goModuleCache: dirHasEntries(goEnv('GOMODCACHE')) ? 'warm' : 'cold',
    goBuildCache: options['cold-go-build-cache']
      ? 'cold (fresh GOCACHE)'
      : dirHasEntries(goBuildCache)
        ? 'warm'
        : 'cold',
  };
  const loadAverageStart = os.loadavg().map((v) => Number(v.toFixed(2)));

  log('first start (fresh clone: npm ci, Temporal CLI, builds, fresh data directory)…');
  const first = await timedStart(cloneDir, env);
  log(`first start: ${first.seconds} s`);
  const later = [];
  for (let i = 1; i <= laterStarts; i++) {
    const run = await timedStart(cloneDir, env);
    log(`later start ${i}: ${run.seconds} s`);
    later.push(run);
  }
  const loadAverageEnd = os.loadavg().map((v) => Number(v.toFixed(2)));
  if (options['cold-go-build-cache']) rmSync(goBuildCache, { recursive: true, force: true });
  rmSync(cloneDir, { recursive: true, force: true });

  const existing = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { runs: {} };
  const result = {
    benchmark: 'first-start',
    command: 'npm run bench:first-start -- --label <label>',
    target: TARGET,
    runs: {
      ...existing.runs,
      [options.label]: {
        label: options.label,
        commit,
        generatedAt: new Date().toISOString(),
        settings: {
          clone:
            'git clone of the checkout, then `npm start` in it with the api, gateway and Temporal UI on free ports',
          clock: 'from spawning `npm start` to the "LunaNexa is up." line',
          caches,
        },
        machine: {
          cpus: os.cpus().length,
          node: process.version,
          loadAverageStart,
          loadAverageEnd,
          note: loadNote(os.cpus().length, [...loadAverageStart, ...loadAverageEnd]),
        },
        summary: {
          firstStartSeconds: first.seconds,
          laterStartSeconds: later.map((run) => run.seconds),
          demoReady: [first, ...later].every((run) => run.demo),
        },
        firstStartPhases: first.phases,
        laterStartPhases: later[0]?.phases ?? [],
      },
    },
  };
  writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${path.relative(REPO_ROOT, RESULTS)}`);
}

await main();
