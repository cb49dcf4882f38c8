import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `data` so that a crash at any moment leaves either the
 * old file or the new one, never a torn mix: write a temporary file in the
 * same directory, fsync it, rename it over the target, fsync the directory
 * (so the rename itself survives a power cut). The file gets `mode`.
 */
export async function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const directory = dirname(path);
  const temporary = join(
    directory,
    `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const file = await open(temporary, 'wx', mode);
  try {
    try {
      await file.writeFile(data);
      // The mode argument is filtered by the umask; set it explicitly.
      await file.chmod(mode);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error: unknown) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  const dir = await open(directory, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
