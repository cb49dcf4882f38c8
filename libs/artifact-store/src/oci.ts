import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost, type OciCredentials, type OciStoreConfig } from './config';
import { discard, rangedAnswer, readBody, send, statusError, StoreError, type RangedAnswer } from './http';
import { resolveSecretRef, SecretRefError } from './secret-ref';

/**
 * The OCI distribution HTTP API (the parts an artifact needs): blob and
 * manifest reads with the registry token flow, monolithic blob upload and
 * manifest push for publishing.
 */

export const OCI_MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
const DOCKER_MANIFEST_MEDIA_TYPE = 'application/vnd.docker.distribution.manifest.v2+json';
/** The OCI "empty" config ({}), for manifests that carry an artifact rather than an image. */
export const OCI_EMPTY_CONFIG = {
  mediaType: 'application/vnd.oci.empty.v1+json',
  digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  size: 2,
} as const;
export const LUNANEXA_MODEL_ARTIFACT_TYPE = 'application/vnd.lunanexa.model.v1';
export const LUNANEXA_MODEL_LAYER_MEDIA_TYPE = 'application/vnd.lunanexa.model.layer.v1';

const MAX_REDIRECTS = 5;

export interface OciTarget {
  readonly registry: string;
  readonly repository: string;
}

interface CallOptions {
  readonly signal?: AbortSignal;
  readonly idleTimeoutMs: number;
}

/** http for loopback registries and the ones the operator listed as insecure; https for every other. */
export function registryBaseUrl(config: OciStoreConfig, registry: string): URL {
  const insecure =
    isLoopbackHost(registry) ||
    config.insecureRegistries.some((entry) => entry.toLowerCase() === registry.toLowerCase());
  return new URL(`${insecure ? 'http' : 'https'}://${registry}`);
}

function credentialsFor(config: OciStoreConfig, registry: string): OciCredentials | null {
  return config.credentials.find((entry) => entry.registry.toLowerCase() === registry.toLowerCase()) ?? null;
}

/** Parses `Bearer realm="…",service="…",scope="…"` (or `Basic realm=…`). */
export function parseAuthenticateHeader(
  header: string,
): { scheme: string; params: Record<string, string> } | null {
  const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!match) return null;
  const params: Record<string, string> = {};
  const pattern = /([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  for (let found = pattern.exec(match[2] ?? ''); found !== null; found = pattern.exec(match[2] ?? '')) {
    params[(found[1] ?? '').toLowerCase()] = (found[2] ?? found[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return { scheme: (match[1] ?? '').toLowerCase(), params };
}

/**
 * One registry: remembers the Authorization it earned (basic, or a bearer
 * token per scope) so a download does not repeat the token exchange for
 * every request.
 */
export class OciRegistryClient {
  private readonly base: URL;
  private readonly credentials: OciCredentials | null;
  private authorization: string | null;

  constructor(
    config: OciStoreConfig,
    readonly registry: string,
  ) {
    this.base = registryBaseUrl(config, registry);
    this.credentials = credentialsFor(config, registry);
    this.authorization =
      this.credentials !== null && 'token' in this.credentials ? `Bearer ${this.credentials.token}` : null;
  }

  /** `Basic …` from the configured username and password (resolving its reference now), or null. */
  private async basicAuthorization(): Promise<string | null> {
    const credentials = this.credentials;
    if (credentials === null || !('username' in credentials)) return null;
    const password =
      'password' in credentials ? credentials.password : await this.resolve(credentials.passwordRef);
    return `Basic ${Buffer.from(`${credentials.username}:${password}`).toString('base64')}`;
  }

  private async resolve(ref: Parameters<typeof resolveSecretRef>[0]): Promise<string> {
    try {
      return await resolveSecretRef(ref);
    } catch (error: unknown) {
      throw new StoreError(
        'ARTIFACT_UNAUTHORIZED',
        `${this.registry}: ${error instanceof SecretRefError ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Sends a request to the registry, answering one authentication challenge
   * if it comes, and following redirects (blob storage may live elsewhere;
   * the Authorization header stays with the registry's own origin).
   */
  async request(
    method: string,
    path: string,
    options: CallOptions & {
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: Buffer;
      readonly scope: string;
      readonly followRedirects?: boolean;
    },
  ): Promise<IncomingMessage> {
    let url = new URL(path, this.base);
    let challenged = false;
    for (let hop = 0; ; hop++) {
      const sameOrigin = url.origin === this.base.origin;
      const headers: Record<string, string> = { ...options.headers };
      if (sameOrigin && this.authorization !== null) headers['authorization'] = this.authorization;
      if (options.body !== undefined) headers['content-length'] = String(options.body.length);
      const response = await send({
        method,
        url,
        headers,
        ...(options.body === undefined ? {} : { body: options.body }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        idleTimeoutMs: options.idleTimeoutMs,
      });
      const status = response.statusCode ?? 0;
      if (status === 401 && sameOrigin && !challenged) {
        challenged = true;
        if (this.credentials !== null && 'tokenRef' in this.credentials) {
          // A fixed bearer token kept behind a reference: resolved at the first challenge (and again after rotation).
          discard(response);
          this.authorization = `Bearer ${await this.resolve(this.credentials.tokenRef)}`;
          continue;
        }
        const challenge = response.headers['www-authenticate'];
        discard(response);
        await this.answerChallenge(typeof challenge === 'string' ? challenge : '', options);
        continue;
      }
      const location = response.headers.location;
      if (options.followRedirects === true && [301, 302, 303, 307, 308].includes(status) && location) {
        discard(response);
        if (hop >= MAX_REDIRECTS) {
          throw new StoreError(
            'DEPENDENCY_UNAVAILABLE',
            `${this.registry}: more than ${MAX_REDIRECTS} redirects`,
          );
        }
        url = new URL(location, url);
        if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.base.protocol === 'http:')) {
          throw new StoreError('DEPENDENCY_UNAVAILABLE', `${this.registry} redirected to a non-https URL`);
        }
        continue;
      }
      return response;
    }
  }

  private async answerChallenge(
    challenge: string,
    options: CallOptions & { readonly scope: string },
  ): Promise<void> {
    const parsed = parseAuthenticateHeader(challenge);
    const basic = await this.basicAuthorization();
    if (parsed?.scheme === 'basic') {
      if (basic === null) {
        throw new StoreError(
          'ARTIFACT_UNAUTHORIZED',
          `${this.registry} requires credentials and none are configured (LUNANEXA_OCI_AUTH_REGISTRY)`,
          401,
        );
      }
      this.authorization = basic;
      return;
    }
    if (parsed?.scheme !== 'bearer' || parsed.params['realm'] === undefined) {
      throw new StoreError(
        'DEPENDENCY_UNAVAILABLE',
        `${this.registry} answered 401 without a usable challenge`,
        401,
      );
    }
    const realm = new URL(parsed.params['realm']);
    if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && isLoopbackHost(realm.host))) {
      throw new StoreError(
        'DEPENDENCY_UNAVAILABLE',
        `${this.registry} names a non-https token service ${realm.origin}`,
      );
    }
    if (parsed.params['service'] !== undefined) realm.searchParams.set('service', parsed.params['service']);
    realm.searchParams.set('scope', parsed.params['scope'] ?? options.scope);
    const response = await send({
      method: 'GET',
      url: realm,
      headers: basic === null ? {} : { authorization: basic },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      idleTimeoutMs: options.idleTimeoutMs,
    });
    if (response.statusCode !== 200) {
      discard(response);
      throw statusError(response.statusCode ?? 0, `a token from ${realm.origin}`, '');
    }
    const body = JSON.parse((await readBody(response, 256 * 1024)).toString('utf8')) as {
      token?: string;
      access_token?: string;
    };
    const token = body.token ?? body.access_token;
    if (typeof token !== 'string' || token.length === 0) {
      throw new StoreError('DEPENDENCY_UNAVAILABLE', `${realm.origin} answered without a token`);
    }
    this.authorization = `Bearer ${token}`;
  }
}

function pullScope(target: OciTarget): string {
  return `repository:${target.repository}:pull`;
}

async function registryErrorDetail(response: IncomingMessage): Promise<string> {
  try {
    const body = JSON.parse((await readBody(response, 64 * 1024)).toString('utf8')) as {
      errors?: { code?: string; message?: string }[];
    };
    const first = body.errors?.[0];
    return first?.code === undefined ? '' : `: ${first.code}${first.message ? ` — ${first.message}` : ''}`;
  } catch {
    return '';
  }
}

export interface OciBlobStream extends RangedAnswer {
  readonly body: IncomingMessage;
}

/**
 * Opens a blob for reading from `offset` (a Range request when > 0; the
 * distribution API serves ranges of blobs); BLOB_UNKNOWN / NAME_UNKNOWN are
 * NOT_FOUND, a refused or missing login ARTIFACT_UNAUTHORIZED.
 */
export async function getOciBlob(
  client: OciRegistryClient,
  target: OciTarget,
  digest: string,
  options: CallOptions & { readonly offset?: number },
): Promise<OciBlobStream> {
  const offset = options.offset ?? 0;
  const what = `blob ${digest} in ${target.registry}/${target.repository}`;
  const response = await client.request('GET', `/v2/${target.repository}/blobs/${digest}`, {
    ...options,
    scope: pullScope(target),
    followRedirects: true,
    ...(offset > 0 ? { headers: { range: `bytes=${offset}-` } } : {}),
  });
  if (response.statusCode === 416) {
    discard(response);
    throw new StoreError('DEPENDENCY_UNAVAILABLE', `${what} has no bytes from offset ${offset}`, 416);
  }
  if (response.statusCode !== 200 && response.statusCode !== 206) {
    throw statusError(response.statusCode ?? 0, what, await registryErrorDetail(response));
  }
  return { body: response, ...rangedAnswer(response, offset, what) };
}

export interface ResolvedLayer {
  readonly digest: string;
  readonly size: number;
  /** The digest of the manifest bytes the tag pointed at when resolved. */
  readonly manifestDigest: string;
}

/**
 * Resolves `repository:tag` to the one layer of its manifest. A manifest
 * with any other number of layers is not a model artifact; that is reported
 * as NOT_FOUND with a message saying so (there is nothing to verify).
 */
export async function resolveOciTag(
  client: OciRegistryClient,
  target: OciTarget,
  tag: string,
  options: CallOptions,
): Promise<ResolvedLayer> {
  const response = await client.request('GET', `/v2/${target.repository}/manifests/${tag}`, {
    ...options,
    scope: pullScope(target),
    headers: { accept: `${OCI_MANIFEST_MEDIA_TYPE}, ${DOCKER_MANIFEST_MEDIA_TYPE}` },
    followRedirects: true,
  });
  const what = `tag ${tag} of ${target.registry}/${target.repository}`;
  if (response.statusCode !== 200) {
    throw statusError(response.statusCode ?? 0, what, await registryErrorDetail(response));
  }
  const bytes = await readBody(response, 4 * 1024 * 1024);
  let manifest: { layers?: { digest?: unknown; size?: unknown }[] };
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as typeof manifest;
  } catch {
    throw new StoreError('DEPENDENCY_UNAVAILABLE', `${what}: the manifest is not JSON`);
  }
  const layers = Array.isArray(manifest.layers) ? manifest.layers : [];
  const layer = layers[0];
  if (layers.length !== 1 || typeof layer?.digest !== 'string' || typeof layer.size !== 'number') {
    throw new StoreError(
      'NOT_FOUND',
      `${what} is not a model artifact: its manifest must have exactly one layer (it has ${layers.length})`,
    );
  }
  if (!/^sha256:[0-9a-f]{64}$/.test(layer.digest)) {
    throw new StoreError('NOT_FOUND', `${what}: its layer is not addressed by sha256`);
  }
  return {
    digest: layer.digest,
    size: layer.size,
    manifestDigest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
  };
}

export interface PushOciOptions {
  readonly signal?: AbortSignal;
  readonly idleTimeoutMs?: number;
}

/**
 * Uploads a blob (POST for an upload session, then one PUT with the bytes
 * and their digest) unless the registry already has it. Returns the digest
 * and size of the bytes, computed here.
 */
export async function pushOciBlob(
  config: OciStoreConfig,
  target: OciTarget,
  bytes: Buffer,
  options: PushOciOptions = {},
): Promise<{ digest: string; sizeBytes: number; uri: string }> {
  const client = new OciRegistryClient(config, target.registry);
  const call = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    scope: `repository:${target.repository}:pull,push`,
  };
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const uri = `oci://${target.registry}/${target.repository}@${digest}`;
  const head = await client.request('HEAD', `/v2/${target.repository}/blobs/${digest}`, call);
  discard(head);
  if (head.statusCode === 200) return { digest, sizeBytes: bytes.length, uri };
  const started = await client.request('POST', `/v2/${target.repository}/blobs/uploads/`, call);
  const location = started.headers.location;
  if (started.statusCode !== 202 || typeof location !== 'string') {
    throw statusError(
      started.statusCode ?? 0,
      `an upload to ${target.registry}/${target.repository}`,
      await registryErrorDetail(started),
    );
  }
  discard(started);
  const upload = new URL(location, registryBaseUrl(config, target.registry));
  upload.searchParams.set('digest', digest);
  const put = await client.request('PUT', `${upload.pathname}${upload.search}`, {
    ...call,
    body: bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (put.statusCode !== 201) {
    throw statusError(put.statusCode ?? 0, `blob ${digest} upload`, await registryErrorDetail(put));
  }
  discard(put);
  return { digest, sizeBytes: bytes.length, uri };
}

/**
 * Publishes `bytes` as a one-layer OCI artifact manifest under `tag`: the
 * layer blob, the empty config blob, then the manifest. `oci://…:tag` then
 * resolves to this layer. Returns the layer's digest and size (the
 * artifact's) and the tag URI.
 */
export async function pushOciArtifact(
  config: OciStoreConfig,
  target: OciTarget,
  tag: string,
  bytes: Buffer,
  options: PushOciOptions = {},
): Promise<{ digest: string; sizeBytes: number; uri: string; manifestDigest: string }> {
  const layer = await pushOciBlob(config, target, bytes, options);
  await pushOciBlob(config, target, Buffer.from('{}'), options);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST_MEDIA_TYPE,
      artifactType: LUNANEXA_MODEL_ARTIFACT_TYPE,
      config: OCI_EMPTY_CONFIG,
      layers: [{ mediaType: LUNANEXA_MODEL_LAYER_MEDIA_TYPE, digest: layer.digest, size: layer.sizeBytes }],
    }),
  );
  const client = new OciRegistryClient(config, target.registry);
  const response = await client.request('PUT', `/v2/${target.repository}/manifests/${tag}`, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    scope: `repository:${target.repository}:pull,push`,
    body: manifest,
    headers: { 'content-type': OCI_MANIFEST_MEDIA_TYPE },
  });
  if (response.statusCode !== 201) {
    throw statusError(response.statusCode ?? 0, `manifest ${tag} push`, await registryErrorDetail(response));
  }
  discard(response);
  return {
    digest: layer.digest,
    sizeBytes: layer.sizeBytes,
    uri: `oci://${target.registry}/${target.repository}:${tag}`,
    manifestDigest: `sha256:${createHash('sha256').update(manifest).digest('hex')}`,
  };
}
