import { readFileSync } from 'node:fs';
import type { Write } from './output';
import { ApiClient } from './api-client';
import { usageError } from './errors';

export const API_URL_ENV = 'LUNANEXA_API_URL';
export const TOKEN_ENV = 'LUNANEXA_TOKEN';
export const TOKEN_FILE_ENV = 'LUNANEXA_TOKEN_FILE';
/** Where `npm start` serves the API on a developer machine. */
export const DEFAULT_API_URL = 'http://127.0.0.1:4000';
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface CliIo {
  readonly stdout: Write;
  readonly stderr: Write;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Global options as commander hands them over, before validation. */
export interface GlobalOptions {
  readonly apiUrl?: string;
  readonly json?: boolean;
  readonly timeout?: string;
  readonly tokenFile?: string;
}

/** What every command receives: validated options, a client and where to write. */
export interface CommandContext {
  readonly api: ApiClient;
  readonly json: boolean;
  readonly io: CliIo;
  readonly cliVersion: string;
  /** The global --timeout in milliseconds, or undefined when the operator left the default. */
  readonly timeoutMs: number | undefined;
  /** The operator credential (API token or session), also what `invoke` calls the gateway with. */
  readonly bearer: string | undefined;
}

/**
 * Request timeout for a call the API answers only once a workflow has
 * finished (approve, drain, deploy stop, …): the operator's --timeout when
 * given, else at least `minimumMs`, because the 10 s default would report a
 * healthy API as unreachable halfway through the operation.
 */
export function waitingTimeoutMs(ctx: CommandContext, minimumMs: number): number {
  return ctx.timeoutMs ?? Math.max(DEFAULT_TIMEOUT_MS, minimumMs);
}

/**
 * The API base URL: absolute http(s), no credentials (they would be printed
 * in every error line), no query or fragment (paths are appended to it).
 * A path prefix is allowed for an API behind a reverse proxy.
 */
export function parseApiUrl(raw: string, source: string): URL {
  return parseBaseUrl(raw, source, DEFAULT_API_URL);
}

/** Same rules as parseApiUrl, for any LunaNexa service; `example` appears in the error. */
export function parseBaseUrl(raw: string, source: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`${source} ${JSON.stringify(raw)} is not an absolute URL (e.g. ${example})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`${source} must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') throw usageError(`${source} must not contain credentials`);
  if (url.search !== '' || url.hash !== '') throw usageError(`${source} must not have a query or fragment`);
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url;
}

export function parseTimeout(raw: string | undefined): number {
  return parseGivenTimeout(raw) ?? DEFAULT_TIMEOUT_MS;
}

function parseGivenTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 600_000) {
    throw usageError(
      `--timeout must be a whole number of milliseconds between 1 and 600000, not ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/**
 * The bearer credential: `--token-file`, else LUNANEXA_TOKEN, else
 * LUNANEXA_TOKEN_FILE, else none (public queries still work). There is no
 * `--token <value>` flag on purpose: a secret on the command line lands in
 * shell history and in every process listing.
 */
export function resolveToken(
  options: GlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | undefined {
  const fromFile = (path: string, source: string): string => {
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
      throw usageError(`${source} ${JSON.stringify(path)} cannot be read (${reason})`);
    }
    const token = text.trim();
    if (token === '' || /\s/.test(token))
      throw usageError(`${source} ${JSON.stringify(path)} does not hold one token`);
    return token;
  };
  if (options.tokenFile !== undefined) return fromFile(options.tokenFile, '--token-file');
  const inline = env[TOKEN_ENV];
  if (inline !== undefined && inline !== '') return inline.trim();
  const file = env[TOKEN_FILE_ENV];
  if (file !== undefined && file !== '') return fromFile(file, TOKEN_FILE_ENV);
  return undefined;
}

export function commandContext(options: GlobalOptions, io: CliIo, cliVersion: string): CommandContext {
  const fromFlag = options.apiUrl;
  const fromEnv = io.env[API_URL_ENV] === '' ? undefined : io.env[API_URL_ENV];
  const baseUrl =
    fromFlag !== undefined
      ? parseApiUrl(fromFlag, '--api-url')
      : fromEnv !== undefined
        ? parseApiUrl(fromEnv, API_URL_ENV)
        : parseApiUrl(DEFAULT_API_URL, 'default API URL');
  const timeoutMs = parseGivenTimeout(options.timeout);
  const bearer = resolveToken(options, io.env);
  const api = new ApiClient(baseUrl, {
    timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
    userAgent: `lunanexa-cli/${cliVersion}`,
    bearer,
  });
  return { api, json: options.json === true, io, cliVersion, timeoutMs, bearer };
}

/** The base URL as operators typed it (without the trailing slash added for joining). */
export function displayUrl(url: URL): string {
  return url.href.endsWith('/') ? url.href.slice(0, -1) : url.href;
}
