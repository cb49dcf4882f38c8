// Opens the console in the operator's browser after `npm start`, the way a
// desktop user expects — but only on an interactive terminal of a machine with
// a display, never in CI, tests or over plain SSH, and never when
// LUNANEXA_OPEN_CONSOLE=0. Failing to open is not an error: the URL is printed.

import { spawn, spawnSync } from 'node:child_process';

/** The command that opens a URL here, or null when this machine has no way (or no display) to show one. */
export function browserOpener(
  env = process.env,
  platform = process.platform,
  interactive = process.stdout.isTTY,
) {
  if (env.LUNANEXA_OPEN_CONSOLE === '0' || env.CI || !interactive) return null;
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return null;
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return spawnSync('sh', ['-c', 'command -v xdg-open'], { encoding: 'utf8' }).status === 0
    ? 'xdg-open'
    : null;
}

/** Returns what it did, for the launcher to print. */
export function openConsole(url, env = process.env) {
  const opener = browserOpener(env);
  if (opener === null) return 'not opened (no display, or LUNANEXA_OPEN_CONSOLE=0)';
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return `opened with ${opener}`;
  } catch {
    return 'not opened';
  }
}
