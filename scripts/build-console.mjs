#!/usr/bin/env node
// Builds the Angular operator console into console/dist/browser, which the API
// serves at `/`. A production build takes tens of seconds, so it is skipped
// when nothing that feeds it has changed since the last successful build.
//
// Usage: node scripts/build-console.mjs [--force]

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONSOLE_DIR = path.join(ROOT, 'console');
const DIST_DIR = path.join(CONSOLE_DIR, 'dist');
const STAMP_FILE = path.join(DIST_DIR, '.build-stamp');
const INDEX_HTML = path.join(DIST_DIR, 'browser', 'index.html');
const NG = path.join(ROOT, 'node_modules', '.bin', 'ng');

function rel(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every file whose change can change the build output. */
async function buildInputs() {
  const consoleFiles = await readdir(CONSOLE_DIR);
  const files = [
    ...(await filesUnder(path.join(CONSOLE_DIR, 'src'))),
    // The console compiles these contract modules from source (see console/tsconfig.json).
    ...(await filesUnder(path.join(ROOT, 'libs', 'contracts', 'src'))),
    // And the GraphQL operations and schema types the SDK generates.
    ...(await filesUnder(path.join(ROOT, 'libs', 'sdk', 'src', 'generated'))),
    path.join(CONSOLE_DIR, 'angular.json'),
    ...consoleFiles
      .filter((name) => /^tsconfig.*\.json$/.test(name))
      .map((name) => path.join(CONSOLE_DIR, name)),
    // Stands in for node_modules: a changed Angular or Material version changes the output.
    path.join(ROOT, 'package-lock.json'),
  ];
  // Sorted by path so the hash does not depend on directory listing order.
  return files
    .map((file) => ({ file, key: rel(file) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

async function inputsHash() {
  const hash = createHash('sha256');
  for (const { file, key } of await buildInputs()) {
    // The path is hashed too, so renaming or moving a file counts as a change.
    hash
      .update(key)
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex');
}

async function readStampHash() {
  try {
    return JSON.parse(await readFile(STAMP_FILE, 'utf8')).inputsSha256;
  } catch {
    return undefined;
  }
}

function runNgBuild() {
  return new Promise((resolve) => {
    const child = spawn(NG, ['build', '--configuration', 'production'], {
      cwd: CONSOLE_DIR,
      env: { ...process.env, NG_CLI_ANALYTICS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? 1,
        output: Buffer.concat(output).toString('utf8') + (signal ? `\nkilled by ${signal}\n` : ''),
      }),
    );
  });
}

async function main() {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--force');
  if (unknown.length > 0) {
    console.error(
      `build-console: unknown argument ${unknown.join(' ')} (usage: node scripts/build-console.mjs [--force])`,
    );
    return 2;
  }
  const force = args.includes('--force');

  if (!existsSync(NG)) {
    console.error(`build-console: ${rel(NG)} not found; install the root dependencies first (npm ci).`);
    return 1;
  }

  const hash = await inputsHash();
  if (!force && existsSync(INDEX_HTML) && (await readStampHash()) === hash) {
    console.log(
      `console: up to date, build skipped (${rel(path.dirname(INDEX_HTML))}, inputs ${hash.slice(0, 12)})`,
    );
    return 0;
  }

  // A stamp must never outlive the output it vouches for, even if the build dies half way.
  await rm(STAMP_FILE, { force: true });
  const started = performance.now();
  const { code, output } = await runNgBuild();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);

  if (code !== 0 || !existsSync(INDEX_HTML)) {
    process.stderr.write(output);
    console.error(`console: build FAILED after ${seconds} s (ng exited with ${code})`);
    return code === 0 ? 1 : code;
  }

  await writeFile(
    STAMP_FILE,
    `${JSON.stringify({ inputsSha256: hash, builtAt: new Date().toISOString(), buildSeconds: Number(seconds) }, null, 2)}\n`,
  );
  console.log(
    `console: built in ${seconds} s (${rel(path.dirname(INDEX_HTML))}, inputs ${hash.slice(0, 12)})`,
  );
  return 0;
}

process.exitCode = await main();
