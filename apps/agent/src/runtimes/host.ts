import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { isAbsolute, join } from 'node:path';

/**
 * The little the adapters need from the machine besides spawning: finding an
 * executable, hashing it, and a free port.
 */

/**
 * An absolute path to `executable`: itself when absolute, else the first
 * executable regular file of that name in the absolute directories of
 * `searchPath` (relative entries such as `.` are ignored). Null if none.
 */
export async function resolveExecutable(executable: string, searchPath: string): Promise<string | null> {
  const candidates = isAbsolute(executable)
    ? [executable]
    : searchPath
        .split(':')
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, executable));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not here: try the next directory.
    }
  }
  return null;
}

/** `sha256:<hex>` of a file's bytes, streamed. */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(`sha256:${hash.digest('hex')}`));
  });
}

/**
 * A port the OS reports free on `host`. The runtime binds it after we release
 * it, so another process could take it in between; the runtime then exits and
 * is reported failing, and the next attempt gets a new port.
 */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
