import { fileURLToPath } from 'node:url';

/**
 * Where an artifact's bytes live, parsed from its URI (libs/contracts
 * artifact.ts). Supported:
 *
 * - `s3://bucket/key` — an object in the configured S3-compatible store; the
 *   key is percent-decoded (`a%20b` names the key `a b`).
 * - `oci://host[:port]/repository@sha256:<hex>` — a blob in an OCI
 *   distribution registry, addressed by its digest.
 * - `oci://host[:port]/repository:tag` — the tag resolves to an image
 *   manifest with exactly one layer, and that layer's blob is the artifact.
 *   Tags move, so the layer's bytes are still hashed and compared with the
 *   artifact's digest: a moved tag is a DIGEST_MISMATCH, not a new version.
 * - `file:///absolute/path` — a local file under one of the configured roots.
 * - `https://host[:port]/path[?query]` — a plain download, trusted only
 *   through the artifact's pinned sha256 and declared size (like every
 *   store); no credentials in the URI, no fragment. `http://` is refused:
 *   the bytes would be readable and replaceable on the way.
 *
 * `hf://` is a valid artifact URI in the contracts but no store adapter reads
 * it yet: it parses to an UnsupportedArtifactUri.
 */
export type ArtifactLocation =
  | { readonly store: 's3'; readonly bucket: string; readonly key: string }
  | {
      readonly store: 'oci';
      /** `host` or `host:port`, as written in the URI. */
      readonly registry: string;
      readonly repository: string;
      readonly reference: { readonly digest: string } | { readonly tag: string };
    }
  | { readonly store: 'file'; readonly path: string }
  | { readonly store: 'https'; readonly url: string };

export type ArtifactStoreKind = ArtifactLocation['store'];

/** Why a URI names nothing this library can read. */
export class UnsupportedArtifactUri extends Error {
  constructor(
    readonly uri: string,
    reason: string,
  ) {
    super(`artifact URI ${JSON.stringify(uri.slice(0, 256))} ${reason}`);
    this.name = 'UnsupportedArtifactUri';
  }
}

/** S3 bucket names: 3-63 of lower-case letters, digits, dots and hyphens, starting and ending alphanumeric. */
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** The distribution spec's repository name grammar. */
const OCI_REPOSITORY = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;
/** A DNS name or IPv4 address, optionally with a port; IPv6 literals in brackets. */
const REGISTRY_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export function parseArtifactUri(uri: string): ArtifactLocation {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//.exec(uri)?.[1];
  switch (scheme) {
    case 's3':
      return parseS3(uri);
    case 'oci':
      return parseOci(uri);
    case 'file':
      return parseFile(uri);
    case 'https':
      return parseHttps(uri);
    case 'http':
      throw new UnsupportedArtifactUri(
        uri,
        'uses plain http://; artifacts are downloaded over https:// only',
      );
    case undefined:
      throw new UnsupportedArtifactUri(uri, 'has no scheme (expected s3://, oci://, https:// or file://)');
    default:
      throw new UnsupportedArtifactUri(
        uri,
        `uses ${scheme}://, which no artifact store reads yet (supported: s3://, oci://, https://, file://)`,
      );
  }
}

function parseS3(uri: string): ArtifactLocation {
  const rest = uri.slice('s3://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw new UnsupportedArtifactUri(uri, 'must be s3://bucket/key');
  const bucket = rest.slice(0, slash);
  if (!S3_BUCKET.test(bucket)) {
    throw new UnsupportedArtifactUri(uri, `names an invalid S3 bucket ${JSON.stringify(bucket)}`);
  }
  if (/[?#]/.test(rest)) throw new UnsupportedArtifactUri(uri, 'must not carry a query or fragment');
  let key: string;
  try {
    key = decodeURIComponent(rest.slice(slash + 1));
  } catch {
    throw new UnsupportedArtifactUri(uri, 'has a key with invalid percent-encoding');
  }
  if (key.length === 0 || key.endsWith('/')) {
    throw new UnsupportedArtifactUri(uri, 'must name an object key, not a bucket or a prefix');
  }
  if (Buffer.byteLength(key, 'utf8') > 1024)
    throw new UnsupportedArtifactUri(uri, 'has a key over 1024 bytes');
  return { store: 's3', bucket, key };
}

function parseOci(uri: string): ArtifactLocation {
  const rest = uri.slice('oci://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw new UnsupportedArtifactUri(uri, 'must be oci://host[:port]/repository@sha256:<hex>');
  const registry = rest.slice(0, slash);
  if (!REGISTRY_HOST.test(registry)) {
    throw new UnsupportedArtifactUri(uri, `names an invalid registry host ${JSON.stringify(registry)}`);
  }
  const path = rest.slice(slash + 1);
  const at = path.indexOf('@');
  if (at !== -1) {
    const repository = path.slice(0, at);
    const digest = path.slice(at + 1);
    if (!OCI_REPOSITORY.test(repository)) {
      throw new UnsupportedArtifactUri(uri, `names an invalid repository ${JSON.stringify(repository)}`);
    }
    if (!SHA256_DIGEST.test(digest)) {
      throw new UnsupportedArtifactUri(uri, 'must pin the blob as @sha256:<64 lower-case hex digits>');
    }
    return { store: 'oci', registry, repository, reference: { digest } };
  }
  const colon = path.lastIndexOf(':');
  if (colon === -1 || path.indexOf('/', colon) !== -1) {
    throw new UnsupportedArtifactUri(
      uri,
      'must end in @sha256:<hex> (a blob) or :<tag> (a one-layer manifest)',
    );
  }
  const repository = path.slice(0, colon);
  const tag = path.slice(colon + 1);
  if (!OCI_REPOSITORY.test(repository)) {
    throw new UnsupportedArtifactUri(uri, `names an invalid repository ${JSON.stringify(repository)}`);
  }
  if (!OCI_TAG.test(tag))
    throw new UnsupportedArtifactUri(uri, `names an invalid tag ${JSON.stringify(tag)}`);
  return { store: 'oci', registry, repository, reference: { tag } };
}

function parseHttps(uri: string): ArtifactLocation {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new UnsupportedArtifactUri(uri, 'is not a valid https URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsupportedArtifactUri(uri, 'must not carry credentials');
  }
  if (url.hash !== '') throw new UnsupportedArtifactUri(uri, 'must not carry a fragment');
  if (url.pathname === '/' || url.pathname.endsWith('/')) {
    throw new UnsupportedArtifactUri(uri, 'must name a file, not a directory');
  }
  return { store: 'https', url: url.toString() };
}

function parseFile(uri: string): ArtifactLocation {
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch (error: unknown) {
    throw new UnsupportedArtifactUri(
      uri,
      `is not a local file URL (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return { store: 'file', path };
}

/** The URI that names a location; the inverse of parseArtifactUri for what it returns. */
export function formatArtifactUri(location: ArtifactLocation): string {
  switch (location.store) {
    case 's3':
      return `s3://${location.bucket}/${location.key.split('/').map(encodeURIComponent).join('/')}`;
    case 'oci':
      return 'digest' in location.reference
        ? `oci://${location.registry}/${location.repository}@${location.reference.digest}`
        : `oci://${location.registry}/${location.repository}:${location.reference.tag}`;
    case 'file':
      return `file://${location.path.split('/').map(encodeURIComponent).join('/')}`;
    case 'https':
      return location.url;
  }
}
