// Finds or installs the pinned Temporal CLI (which also runs the dev server).
//
//   node temporal/install.mjs          prints the path of a usable `temporal`
//   import { ensureTemporalCli } from './temporal/install.mjs'
//
// Order: $LUNANEXA_TEMPORAL_CLI, then <repo>/.tools/bin/temporal, then
// `temporal` on PATH, then `go install` of the pin in temporal/version.json
// into <repo>/.tools/bin. A binary counts as usable when it is the pinned
// version: `temporal --version` says so (release builds), or, for binaries
// built by `go install` (which report 0.0.0-DEV), the Go build info embedded
// in the executable names the pinned module version.
//
// Plain Node ESM with builtins only: it runs before any build step.

import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainModule } from '../scripts/lib/main-module.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_REPO_ROOT = path.resolve(HERE, '..');

/** @returns {{ module: string, version: string }} the pin from temporal/version.json */
export function readTemporalPin() {
  const pin = JSON.parse(readFileSync(path.join(HERE, 'version.json'), 'utf8'));
  if (typeof pin.module !== 'string' || !/^v\d+\.\d+\.\d+/.test(pin.version ?? '')) {
    throw new Error(
      `temporal/version.json must hold { "module": "...", "version": "vX.Y.Z" }, got ${JSON.stringify(pin)}`,
    );
  }
  return pin;
}

/**
 * Returns the path of a `temporal` binary of the pinned version, installing it
 * with `go install` into <repoRoot>/.tools/bin when none is found.
 *
 * @param {{ repoRoot?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {Promise<string>}
 */
export async function ensureTemporalCli({
  repoRoot = DEFAULT_REPO_ROOT,
  env = process.env,
  log = (line) => console.error(line),
} = {}) {
  const pin = readTemporalPin();

  const override = env.LUNANEXA_TEMPORAL_CLI;
  if (override) {
    if (!isExecutable(override)) {
      throw new Error(`LUNANEXA_TEMPORAL_CLI=${override} is not an executable file`);
    }
    return override;
  }

  const toolsBin = path.join(repoRoot, '.tools', 'bin');
  const local = path.join(toolsBin, exeName('temporal'));
  if (await isPinnedCli(local, pin)) return local;

  const onPath = findOnPath(exeName('temporal'), env);
  if (onPath && (await isPinnedCli(onPath, pin))) return onPath;

  const go = findOnPath(exeName('go'), env) ?? firstExisting(['/usr/local/go/bin/go']);
  if (!go) {
    throw new Error(
      `Temporal CLI ${pin.version} not found (looked in ${toolsBin} and on PATH${onPath ? `; ${onPath} is another version` : ''}) ` +
        `and Go is not installed to build it. Either install Go (https://go.dev/dl/) and rerun \`node temporal/install.mjs\`, ` +
        `or put Temporal CLI ${pin.version} on PATH (https://github.com/temporalio/cli/releases/tag/${pin.version}), ` +
        `or set LUNANEXA_TEMPORAL_CLI to the path of a temporal binary.`,
    );
  }

  await withInstallLock(path.join(repoRoot, '.tools'), async () => {
    // Another process may have finished the install while we waited.
    if (await isPinnedCli(local, pin)) return;
    await goInstall({ go, pin, gobin: toolsBin, cwd: repoRoot, env, log });
  });

  if (!(await isPinnedCli(local, pin))) {
    throw new Error(`go install finished but ${local} does not report Temporal CLI ${pin.version}`);
  }
  return local;
}

async function goInstall({ go, pin, gobin, cwd, env, log }) {
  const target = `${pin.module}/cmd/temporal@${pin.version}`;
  // Same -X the upstream release build uses, so `temporal --version` reports the pin.
  const ldflags = `-s -w -X ${pin.module}/temporalcli.Version=${pin.version.replace(/^v/, '')}`;
  log(
    `Installing Temporal CLI ${pin.version} with \`go install ${target}\` into ${gobin} (this takes a few minutes the first time)...`,
  );
  mkdirSync(gobin, { recursive: true });
  const tail = [];
  const code = await new Promise((resolve, reject) => {
    const child = spawn(go, ['install', `-ldflags=${ldflags}`, target], {
      cwd,
      env: { ...env, GOBIN: gobin },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk) => {
      process.stderr.write(chunk);
      tail.push(chunk.toString());
      if (tail.length > 40) tail.shift();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) {
    throw new Error(
      `go install ${target} failed (exit ${code}). Fix the error below and rerun, put Temporal CLI ${pin.version} on PATH, ` +
        `or set LUNANEXA_TEMPORAL_CLI.\n${tail.join('').trim()}`,
    );
  }
}

/** Serialises concurrent installs (two `npm start`s, e2e plus a dev shell) with an atomic mkdir. */
async function withInstallLock(toolsDir, fn) {
  mkdirSync(toolsDir, { recursive: true });
  const lock = path.join(toolsDir, 'temporal-install.lock');
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const holder = Number(readFileIfExists(path.join(lock, 'pid')));
      if (holder && !isAlive(holder)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${lock} (held by pid ${holder || 'unknown'})`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** True when `binary` exists and is the pinned Temporal CLI version. */
export async function isPinnedCli(binary, pin = readTemporalPin()) {
  if (!isExecutable(binary)) return false;
  const wanted = pin.version.replace(/^v/, '');
  const reported = reportedVersion(binary);
  if (reported === wanted) return true;
  if (reported !== '0.0.0-DEV') return false;
  // Built by `go install` without -X: trust the module version Go recorded.
  const mod = await readGoMainModule(binary).catch(() => null);
  return mod?.path === pin.module && mod.version === pin.version;
}

/** The version `temporal --version` prints ("temporal version 1.5.1 (Server ...)"), or null. */
function reportedVersion(binary) {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return null;
  return /temporal version v?(\S+)/.exec(result.stdout)?.[1] ?? null;
}

const BUILDINFO_MAGIC = Buffer.from('\xff Go buildinf:', 'latin1');

/**
 * Reads the main module path and version from the build info Go (1.18+)
 * embeds in every executable, like `go version -m` does, without needing Go.
 * ELF binaries are read by section; other formats are scanned.
 *
 * @returns {Promise<{ path: string, version: string } | null>}
 */
export async function readGoMainModule(binary) {
  const file = await open(binary, 'r');
  try {
    const offset = (await findElfSection(file, '.go.buildinfo')) ?? (await scanForMagic(file));
    if (offset === null) return null;
    const { buffer, bytesRead } = await file.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, offset);
    const data = buffer.subarray(0, bytesRead);
    if (!data.subarray(0, BUILDINFO_MAGIC.length).equals(BUILDINFO_MAGIC)) return null;
    const flagsVersionInline = 0x2;
    if ((data[15] & flagsVersionInline) === 0) return null; // pre-1.18 pointer format
    let pos = 32;
    const readString = () => {
      let length = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = data[pos++];
        length |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
      }
      const value = data.subarray(pos, pos + length).toString('utf8');
      pos += length;
      return value;
    };
    readString(); // Go toolchain version
    const modinfo = readString();
    const line = modinfo.split('\n').find((l) => l.startsWith('mod\t'));
    if (!line) return null;
    const [, modPath, version] = line.split('\t');
    return { path: modPath, version };
  } finally {
    await file.close();
  }
}

async function findElfSection(file, name) {
  const header = Buffer.alloc(64);
  await file.read(header, 0, 64, 0);
  if (header.readUInt32BE(0) !== 0x7f454c46) return null;
  const is64 = header[4] === 2;
  const le = header[5] === 1;
  const u16 = (buf, at) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (buf, at) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const word = (buf, at) =>
    is64 ? Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)) : u32(buf, at);
  const shoff = word(header, is64 ? 0x28 : 0x20);
  const shentsize = u16(header, is64 ? 0x3a : 0x2e);
  const shnum = u16(header, is64 ? 0x3c : 0x30);
  const shstrndx = u16(header, is64 ? 0x3e : 0x32);
  if (!shoff || !shnum) return null;
  const table = Buffer.alloc(shentsize * shnum);
  await file.read(table, 0, table.length, shoff);
  const section = (i) => {
    const at = i * shentsize;
    return {
      name: u32(table, at),
      offset: word(table, at + (is64 ? 24 : 16)),
      size: word(table, at + (is64 ? 32 : 20)),
    };
  };
  const strtab = section(shstrndx);
  const names = Buffer.alloc(strtab.size);
  await file.read(names, 0, names.length, strtab.offset);
  for (let i = 0; i < shnum; i++) {
    const s = section(i);
    const end = names.indexOf(0, s.name);
    if (names.subarray(s.name, end).toString('latin1') === name) return s.offset;
  }
  return null;
}

async function scanForMagic(file) {
  const chunk = 8 * 1024 * 1024;
  const buffer = Buffer.alloc(chunk + BUILDINFO_MAGIC.length);
  for (let position = 0; ; position += chunk) {
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    if (bytesRead < BUILDINFO_MAGIC.length) return null;
    for (
      let at = buffer.indexOf(BUILDINFO_MAGIC);
      at !== -1 && at < bytesRead;
      at = buffer.indexOf(BUILDINFO_MAGIC, at + 1)
    ) {
      if ((position + at) % 16 === 0) return position + at;
    }
    if (bytesRead < buffer.length) return null;
  }
}

function findOnPath(name, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function firstExisting(candidates) {
  return candidates.find((candidate) => isExecutable(candidate)) ?? null;
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return existsSync(file);
  } catch {
    return false;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function readFileIfExists(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function exeName(name) {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

if (isMainModule(import.meta.url)) {
  ensureTemporalCli().then(
    (cli) => console.log(cli),
    (error) => {
      console.error(error.message);
      process.exitCode = 1;
    },
  );
}
