import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Paths the API owns; the console never shadows them. */
const API_PREFIXES = ['/graphql', '/health', '/ready', '/metrics', '/version', '/v1/evidence'];

export function consoleAvailable(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * Serves the built Angular console: files by path, and index.html for any
 * other GET that asks for HTML (client-side routes). Hashed bundles are cached
 * for a year; index.html never, so a new build shows up on reload.
 */
export function consoleStaticMiddleware(dir: string) {
  const root = normalize(dir + sep);
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    if (API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return next();
    const candidate = normalize(join(root, path));
    if (!candidate.startsWith(root)) return next();
    let file: string | undefined;
    if (path !== '/' && existsSync(candidate) && statSync(candidate).isFile()) {
      file = candidate;
    } else if ((req.headers.accept ?? '').includes('text/html') || path === '/') {
      file = join(root, 'index.html');
    }
    if (!file) return next();
    const isIndex = file.endsWith(`${sep}index.html`);
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': isIndex ? 'no-cache' : 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  };
}
