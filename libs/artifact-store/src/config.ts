import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseSecretRef, resolveSecretRefSync, SecretRefError, type SecretRef } from './secret-ref';

/** Credentials for signed (SigV4, by @aws-sdk/client-s3) S3 requests; without them requests go unsigned (public buckets). */
export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials (STS) carry a session token too. */
  readonly sessionToken?: string;
}

export interface S3StoreConfig {
  /** `https://…` (or `http://` on loopback, or with allowHttp); requests go to `<endpoint>/<bucket>/<key>` when path-style. */
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: S3Credentials | null;
  /** Path-style (`endpoint/bucket/key`, what self-hosted stores expect) or virtual-hosted (`bucket.endpoint/key`). */
  readonly pathStyle: boolean;
}

/**
 * Credentials for one registry: HTTP basic (also used to obtain bearer
 * tokens) or a fixed bearer token; the secret half either given as is or as a
 * reference (`env:NAME`, `file:/path`) resolved at every login.
 */
export type OciCredentials =
  | { readonly registry: string; readonly username: string; readonly password: string }
  | { readonly registry: string; readonly username: string; readonly passwordRef: SecretRef }
  | { readonly registry: string; readonly token: string }
  | { readonly registry: string; readonly tokenRef: SecretRef };

export interface HttpsStoreConfig {
  /** PEM certificates trusted for https:// artifacts in addition to the system's roots (a private CA). */
  readonly extraCaPem: string | null;
  /** The largest https:// artifact read at all: a larger declared size is refused before any request. */
  readonly maxBytes: number;
}

export interface OciStoreConfig {
  /** `host:port` of registries spoken to over plain http. Loopback registries always may be. */
  readonly insecureRegistries: readonly string[];
  /** Sent only to the registry they name (and its token service). */
  readonly credentials: readonly OciCredentials[];
}

export interface ArtifactStoreConfig {
  /** Null when no S3-compatible store is configured: s3:// artifacts then fail DEPENDENCY_UNAVAILABLE. */
  readonly s3: S3StoreConfig | null;
  readonly oci: OciStoreConfig;
  /** https:// artifacts (digest-pinned like every artifact). */
  readonly https: HttpsStoreConfig;
  /** Absolute directories file:// artifacts may be read from; empty refuses every file:// artifact. */
  readonly fileRoots: readonly string[];
  /** How long a store may stay silent (connect, headers, between body chunks) before it counts as unavailable. */
  readonly idleTimeoutMs: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** 64 GiB: larger than any single-file model LunaNexa serves today. */
export const DEFAULT_HTTPS_MAX_BYTES = 64 * 1024 ** 3;

/** Reads no store at all: every s3:// artifact is unavailable, file:// refused, oci:// over TLS only. */
export const EMPTY_ARTIFACT_STORE_CONFIG: ArtifactStoreConfig = Object.freeze({
  s3: null,
  oci: Object.freeze({ insecureRegistries: [], credentials: [] }),
  https: Object.freeze({ extraCaPem: null, maxBytes: DEFAULT_HTTPS_MAX_BYTES }),
  fileRoots: [],
  idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
});

/** One problem per variable, in the shape of the processes' ConfigError (exit 78 at boot). */
export class ArtifactStoreConfigError extends Error {
  readonly code = 'INVALID_CONFIG';
  constructor(readonly problems: readonly { readonly variable: string; readonly message: string }[]) {
    super(
      `invalid artifact store configuration\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ArtifactStoreConfigError';
  }
}

/** The variables artifactStoreConfigFromEnv reads, without their prefix. */
export const ARTIFACT_STORE_ENV_VARIABLES = [
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_SESSION_TOKEN',
  'S3_PATH_STYLE',
  'S3_ALLOW_HTTP',
  'OCI_INSECURE_REGISTRIES',
  'OCI_AUTH_REGISTRY',
  'OCI_USERNAME',
  'OCI_PASSWORD',
  'OCI_PASSWORD_REF',
  'OCI_TOKEN',
  'OCI_TOKEN_REF',
  'ARTIFACT_FILE_ROOTS',
  'ARTIFACT_IDLE_TIMEOUT_MS',
  'ARTIFACT_HTTPS_CA_FILE',
  'ARTIFACT_HTTPS_MAX_BYTES',
] as const;

const REGION = /^[a-z0-9-]{1,64}$/;
const HOST_PORT = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$|^[A-Za-z0-9.-]+$/;

export function isLoopbackHost(host: string): boolean {
  const name = host
    .replace(/:[0-9]+$/, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(name);
}

/**
 * The artifact store configuration from environment variables
 * (`<prefix>S3_ENDPOINT`, … see ARTIFACT_STORE_ENV_VARIABLES and
 * docs/OPERATIONS.md). Every problem is collected and thrown together as an
 * ArtifactStoreConfigError naming the variables; secrets never appear in it.
 */
export function artifactStoreConfigFromEnv(
  env: Readonly<Record<string, unknown>>,
  prefix = 'LUNANEXA_',
): ArtifactStoreConfig {
  const problems: { variable: string; message: string }[] = [];
  const read = (name: (typeof ARTIFACT_STORE_ENV_VARIABLES)[number]): string | undefined => {
    const raw = env[`${prefix}${name}`];
    const value = typeof raw === 'string' ? raw.trim() : undefined;
    return value === undefined || value === '' ? undefined : value;
  };
  const problem = (name: string, message: string): void => {
    problems.push({ variable: `${prefix}${name}`, message });
  };
  const flag = (name: 'S3_PATH_STYLE' | 'S3_ALLOW_HTTP', fallback: boolean): boolean => {
    const value = read(name);
    if (value === undefined) return fallback;
    if (/^(1|true|yes)$/i.test(value)) return true;
    if (/^(0|false|no)$/i.test(value)) return false;
    problem(name, 'must be true or false');
    return fallback;
  };

  let s3: S3StoreConfig | null = null;
  const endpoint = read('S3_ENDPOINT');
  const accessKeyId = read('S3_ACCESS_KEY_ID');
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY');
  const sessionToken = read('S3_SESSION_TOKEN');
  const region = read('S3_REGION') ?? 'us-east-1';
  const pathStyle = flag('S3_PATH_STYLE', true);
  const allowHttp = flag('S3_ALLOW_HTTP', false);
  if (!REGION.test(region)) problem('S3_REGION', 'must be a region name such as us-east-1');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problem(
      accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with the other half of the key pair (or neither, for unsigned requests)',
    );
  }
  if (sessionToken !== undefined && accessKeyId === undefined) {
    problem('S3_SESSION_TOKEN', 'needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  }
  if (endpoint === undefined) {
    if (accessKeyId !== undefined) problem('S3_ENDPOINT', 'must be set when S3 credentials are');
  } else {
    const checked = checkS3Endpoint(endpoint, allowHttp);
    if (typeof checked === 'string') problem('S3_ENDPOINT', checked);
    else {
      s3 = {
        endpoint: checked.toString().replace(/\/$/, ''),
        region,
        pathStyle,
        credentials:
          accessKeyId !== undefined && secretAccessKey !== undefined
            ? { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) }
            : null,
      };
    }
  }

  const insecureRegistries = (read('OCI_INSECURE_REGISTRIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const entry of insecureRegistries) {
    if (!HOST_PORT.test(entry))
      problem('OCI_INSECURE_REGISTRIES', `${JSON.stringify(entry)} is not host[:port]`);
  }
  const credentials: OciCredentials[] = [];
  const authRegistry = read('OCI_AUTH_REGISTRY');
  const username = read('OCI_USERNAME');
  const password = read('OCI_PASSWORD');
  const token = read('OCI_TOKEN');
  let unusableRef = false;
  /** A secret reference, checked now (it must resolve) and resolved again at every login. */
  const secretRef = (name: 'OCI_PASSWORD_REF' | 'OCI_TOKEN_REF'): SecretRef | undefined => {
    const text = read(name);
    if (text === undefined) return undefined;
    const ref = parseSecretRef(text);
    if (typeof ref === 'string') {
      problem(name, ref);
      unusableRef = true;
      return undefined;
    }
    try {
      resolveSecretRefSync(ref, env);
    } catch (error: unknown) {
      problem(name, error instanceof SecretRefError ? error.message : String(error));
    }
    return ref;
  };
  const passwordRef = secretRef('OCI_PASSWORD_REF');
  const tokenRef = secretRef('OCI_TOKEN_REF');
  const secrets = [password, passwordRef, token, tokenRef].filter((value) => value !== undefined).length;
  if (unusableRef) {
    // Already reported; the credentials are not judged further.
  } else if (authRegistry === undefined) {
    if (username !== undefined || secrets > 0) {
      problem('OCI_AUTH_REGISTRY', 'must name the registry (host[:port]) the OCI credentials are for');
    }
  } else if (!HOST_PORT.test(authRegistry)) {
    problem('OCI_AUTH_REGISTRY', 'must be host[:port]');
  } else if (secrets > 1) {
    problem(
      'OCI_PASSWORD',
      'set one of OCI_PASSWORD, OCI_PASSWORD_REF, OCI_TOKEN or OCI_TOKEN_REF, not several',
    );
  } else if (token !== undefined || tokenRef !== undefined) {
    if (username !== undefined) problem('OCI_USERNAME', 'is not used with a bearer token; unset it');
    else if (token !== undefined) credentials.push({ registry: authRegistry, token });
    else if (tokenRef !== undefined) credentials.push({ registry: authRegistry, tokenRef });
  } else if (username !== undefined && password !== undefined) {
    credentials.push({ registry: authRegistry, username, password });
  } else if (username !== undefined && passwordRef !== undefined) {
    credentials.push({ registry: authRegistry, username, passwordRef });
  } else {
    problem(
      username === undefined ? 'OCI_USERNAME' : 'OCI_PASSWORD',
      'must be set (with its partner, the password directly or as OCI_PASSWORD_REF) or OCI_TOKEN(_REF) must be, when OCI_AUTH_REGISTRY is',
    );
  }

  const fileRoots = (read('ARTIFACT_FILE_ROOTS') ?? '')
    .split(':')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const root of fileRoots) {
    if (!isAbsolute(root)) problem('ARTIFACT_FILE_ROOTS', `${JSON.stringify(root)} is not an absolute path`);
  }

  let idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  const idle = read('ARTIFACT_IDLE_TIMEOUT_MS');
  if (idle !== undefined) {
    const value = Number(idle);
    if (!Number.isInteger(value) || value < 100 || value > 3_600_000) {
      problem('ARTIFACT_IDLE_TIMEOUT_MS', 'must be an integer between 100 and 3600000');
    } else idleTimeoutMs = value;
  }

  let extraCaPem: string | null = null;
  const caFile = read('ARTIFACT_HTTPS_CA_FILE');
  if (caFile !== undefined) {
    if (!isAbsolute(caFile)) problem('ARTIFACT_HTTPS_CA_FILE', 'must be an absolute path');
    else {
      try {
        extraCaPem = readFileSync(caFile, 'utf8');
        if (!extraCaPem.includes('-----BEGIN CERTIFICATE-----')) {
          problem('ARTIFACT_HTTPS_CA_FILE', 'holds no PEM certificate');
        }
      } catch (error: unknown) {
        problem(
          'ARTIFACT_HTTPS_CA_FILE',
          `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        );
      }
    }
  }
  let httpsMaxBytes = DEFAULT_HTTPS_MAX_BYTES;
  const maxBytes = read('ARTIFACT_HTTPS_MAX_BYTES');
  if (maxBytes !== undefined) {
    const value = Number(maxBytes);
    if (!Number.isSafeInteger(value) || value < 1) {
      problem('ARTIFACT_HTTPS_MAX_BYTES', 'must be a positive integer (bytes)');
    } else httpsMaxBytes = value;
  }

  if (problems.length > 0) throw new ArtifactStoreConfigError(problems);
  return {
    s3,
    oci: { insecureRegistries, credentials },
    https: { extraCaPem, maxBytes: httpsMaxBytes },
    fileRoots: fileRoots.map((root) => resolve(root)),
    idleTimeoutMs,
  };
}

function checkS3Endpoint(endpoint: string, allowHttp: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an absolute http(s) URL such as https://s3.example.internal:9000';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (use S3_ACCESS_KEY_ID)';
  if (url.search !== '' || url.hash !== '') return 'must not carry a query or fragment';
  if (url.pathname !== '/' && url.pathname !== '') return 'must not carry a path';
  if (url.protocol === 'http:' && !allowHttp && !isLoopbackHost(url.host)) {
    return 'must use https unless it is a loopback address or S3_ALLOW_HTTP=true';
  }
  return url;
}
