// Helpers shared by the installers that find or `go install` pinned Go tools
// into <repo>/.tools/bin (temporal/install.mjs, temporal/install-server.mjs,
// infra/artifact-stores/install.mjs).
//
// Plain Node ESM with builtins only: it runs before any build step.

import { spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';

/**
 * Runs `go install <target>` with GOBIN=<gobin> and throws when it fails, with
 * the last lines of Go's output in the error so the cause is visible.
 *
 * @param {{
 *   go: string,
 *   target: string,
 *   ldflags: string,
 *   gobin: string,
 *   cwd: string,
 *   env: NodeJS.ProcessEnv,
 *   echoToStderr?: boolean,
 *   remedy: string,
 * }} options `target` is `<package>@<version>`; `remedy` is the sentence the
 *   error gives after "go install <target> failed (exit N)."; `echoToStderr`
 *   streams Go's output as it runs, which only reads well when one build runs at a time.
 * @returns {Promise<void>}
 */
export async function goInstall({ go, target, ldflags, gobin, cwd, env, echoToStderr = false, remedy }) {
  mkdirSync(gobin, { recursive: true });
  const tail = [];
  const code = await new Promise((resolve, reject) => {
    const child = spawn(go, ['install', `-ldflags=${ldflags}`, target], {
      cwd,
      env: { ...env, GOBIN: gobin },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk) => {
      if (echoToStderr) process.stderr.write(chunk);
      tail.push(chunk.toString());
      if (tail.length > 40) tail.shift();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) {
    throw new Error(`go install ${target} failed (exit ${code}). ${remedy}\n${tail.join('').trim()}`);
  }
}

/**
 * @typedef {{ module: string, package: string, version: string, binary: string, env: string }} GoBinaryPin
 *   `package` (inside `module`) builds the binary installed as `binary`; the variable `env` overrides the path.
 */

/**
 * Reads pins of that shape from a JSON file of `{ key: pin }`, checking every one.
 *
 * @param {string} file
 * @param {string[]} keys
 * @returns {Record<string, GoBinaryPin>}
 */
export function readGoBinaryPins(file, keys) {
  const pins = JSON.parse(readFileSync(file, 'utf8'));
  for (const key of keys) {
    const pin = pins[key];
    if (
      typeof pin?.module !== 'string' ||
      typeof pin.package !== 'string' ||
      !pin.package.startsWith(pin.module) ||
      !/^v\d+\.\d+\.\d+/.test(pin.version ?? '') ||
      !/^[a-z0-9-]+$/.test(pin.binary ?? '') ||
      !/^LUNANEXA_[A-Z0-9_]+$/.test(pin.env ?? '')
    ) {
      throw new Error(
        `${file}: ${key} must hold { module, package, version: "vX.Y.Z", binary, env }, got ${JSON.stringify(pin)}`,
      );
    }
  }
  return pins;
}

/**
 * The path of the pinned binary: `$<pin.env>`, else <repoRoot>/.tools/bin/<binary> when the Go build info in it
 * names the pinned module version, else (with `searchPath`) such a binary on PATH, else `go install` of the pin
 * into .tools/bin (built in a private directory and renamed, so a half-written file never has the real name).
 *
 * @param {{ pin: GoBinaryPin, repoRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void,
 *   installer: string, searchPath?: boolean }} options `installer` is the command that reruns the install
 * @returns {Promise<string>}
 */
export async function ensurePinnedGoBinary({ pin, repoRoot, env, log, installer, searchPath = false }) {
  const override = env[pin.env];
  if (override) {
    if (!isExecutable(override)) throw new Error(`${pin.env}=${override} is not an executable file`);
    return override;
  }
  const toolsDir = path.join(repoRoot, '.tools');
  const local = path.join(toolsDir, 'bin', exeName(pin.binary));
  if (await isPinnedGoBinary(local, pin)) return local;
  if (searchPath) {
    const onPath = findOnPath(exeName(pin.binary), env);
    if (onPath && (await isPinnedGoBinary(onPath, pin))) return onPath;
  }

  const go = findOnPath(exeName('go'), env) ?? firstExisting(['/usr/local/go/bin/go']);
  if (!go) {
    throw new Error(
      `${pin.binary} ${pin.version} not found in ${path.dirname(local)}${searchPath ? ' or on PATH' : ''} and Go is not ` +
        `installed to build it. Install Go (https://go.dev/dl/) and rerun \`${installer}\`, ` +
        `or set ${pin.env} to the path of a ${pin.binary} binary.`,
    );
  }
  await withInstallLock(toolsDir, pin.binary, async () => {
    if (await isPinnedGoBinary(local, pin)) return;
    const target = `${pin.package}@${pin.version}`;
    log(
      `Installing ${pin.binary} with \`go install ${target}\` into ${path.dirname(local)} (a few minutes the first time)...`,
    );
    const started = Date.now();
    const staging = mkdtempSync(path.join(toolsDir, `${pin.binary}-build-`));
    try {
      await goInstall({
        go,
        target,
        // -s -w: no symbol tables; the build info the pin check reads stays.
        ldflags: '-s -w',
        gobin: staging,
        cwd: repoRoot,
        env,
        remedy: `Fix the error below and rerun, or set ${pin.env}.`,
      });
      mkdirSync(path.dirname(local), { recursive: true });
      renameSync(path.join(staging, exeName(path.basename(pin.package))), local);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    log(`${pin.binary} ${pin.version} installed in ${Math.round((Date.now() - started) / 1000)} s`);
  });
  if (!(await isPinnedGoBinary(local, pin))) {
    throw new Error(`go install finished but ${local} is not ${pin.module} ${pin.version}`);
  }
  return local;
}

/** True when `binary` exists and its embedded Go build info names the pinned module version. */
export async function isPinnedGoBinary(binary, pin) {
  if (!isExecutable(binary)) return false;
  const mod = await readGoMainModule(binary).catch(() => null);
  return mod?.path === pin.module && mod.version === pin.version;
}

/**
 * Runs `fn` holding <toolsDir>/<name>-install.lock, so concurrent installs of
 * one tool (two `npm start`s, e2e plus a dev shell) build it once while
 * different tools still build in parallel. The lock is an atomic mkdir; one
 * left by a process that died is taken over.
 *
 * @param {string} toolsDir
 * @param {string} name
 * @param {() => Promise<void>} fn
 * @returns {Promise<void>}
 */
export async function withInstallLock(toolsDir, name, fn) {
  mkdirSync(toolsDir, { recursive: true });
  const lock = path.join(toolsDir, `${name}-install.lock`);
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

const BUILDINFO_MAGIC = Buffer.from('\xff Go buildinf:', 'latin1');

/**
 * Reads the main module path and version from the build info Go (1.18+)
 * embeds in every executable, like `go version -m` does, without needing Go.
 * ELF binaries are read by section; other formats are scanned.
 *
 * @param {string} binary
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

/**
 * @param {string} name an executable's file name, e.g. from `exeName`
 * @param {NodeJS.ProcessEnv} env
 * @returns {string | null} the first executable `name` in env.PATH
 */
export function findOnPath(name, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/**
 * @param {string[]} candidates
 * @returns {string | null} the first of `candidates` that is an executable file
 */
export function firstExisting(candidates) {
  return candidates.find((candidate) => isExecutable(candidate)) ?? null;
}

/**
 * @param {string} file
 * @returns {boolean} whether `file` exists and may be executed
 */
export function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return existsSync(file);
  } catch {
    return false;
  }
}

/**
 * @param {number} pid
 * @returns {boolean} whether process `pid` exists (EPERM means it does, owned by someone else)
 */
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * @param {string} file
 * @returns {string} the contents of `file`, or '' when it cannot be read
 */
export function readFileIfExists(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * @param {string} name
 * @returns {string} `name` with the .exe suffix Windows needs on executables
 */
export function exeName(name) {
  return process.platform === 'win32' ? `${name}.exe` : name;
}
