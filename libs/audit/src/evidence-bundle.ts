import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { ed25519KeyId, ed25519PublicKeyRaw, sshFingerprint } from '@lunanexa/agent-protocol';
import { decideArtifactSignature, type ArtifactSignatureClaim } from '@lunanexa/credentials';
import {
  ARCHIVE_ITSELF,
  ARCHIVE_NAME_PATTERN,
  decodeStoredGzip,
  decodeTar,
  encodeArchive,
  encodeTar,
  TAR_BLOCK,
  type ArchiveFile,
  type ArchiveProblem,
} from './evidence-archive';
import { stableStringify, verifyChain, type ChainedAuditEvent } from './hash-chain';

/**
 * An evidence bundle: everything that shows how one alias revision came to
 * serve, in one archive (evidence-archive.ts) that anyone holding it can
 * check without the control plane.
 *
 * Layout, in this order: `manifest.json`, `manifest.sig`, then the section
 * files named in the manifest, by name. `manifest.json` is canonical JSON
 * (stableStringify) naming the alias, the revision, when and by whom it was
 * made, the controller key (public key PEM, OpenSSH SHA256 fingerprint, key
 * id) and every section file with its sha256 and size. `manifest.sig` is the
 * raw 64-byte Ed25519 signature over the exact bytes of `manifest.json` by
 * the controller key, so `openssl pkeyutl -verify -rawin` checks it too.
 */

export const EVIDENCE_FORMAT = 'lunanexa-evidence-v1';
export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.sig';
const SIGNATURE_BYTES = 64;

export interface EvidenceManifestFile {
  readonly name: string;
  readonly sha256: string;
  readonly sizeBytes: number;
}

export interface EvidenceControllerKey {
  /** SPKI PEM of the Ed25519 public key. */
  readonly publicKeyPem: string;
  /** `SHA256:…`, what `ssh-keygen -lf` and ControllerIdentity.sshFingerprint show. */
  readonly sshFingerprint: string;
  /** `ed25519:…`, ControllerIdentity.keyId. */
  readonly keyId: string;
}

export interface EvidenceManifest {
  readonly format: typeof EVIDENCE_FORMAT;
  readonly alias: { readonly id: string; readonly name: string };
  readonly revision: number;
  readonly modelRef: string;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly controllerKey: EvidenceControllerKey;
  readonly files: readonly EvidenceManifestFile[];
}

export interface EvidenceSection {
  /** `<name>.json`; lower case, digits, dots and dashes. */
  readonly name: string;
  readonly content: unknown;
}

/** One contiguous run of the audit chain and the hash it links to (null: it starts the chain). */
export interface AuditSegmentRun {
  readonly anchor: { readonly seq: number; readonly hash: string } | null;
  readonly events: readonly ChainedAuditEvent[];
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Section JSON: what JSON.stringify makes of the content (dates as ISO
 * strings), keys sorted at every depth, indented for people who unpack the
 * archive.
 */
export function sectionBytes(content: unknown): Buffer {
  const plain = JSON.parse(JSON.stringify(content) ?? 'null') as unknown;
  return Buffer.from(`${JSON.stringify(JSON.parse(stableStringify(plain)), null, 2)}\n`, 'utf8');
}

/**
 * The runs of the audit chain a bundle carries for the events at `seqs`
 * (ascending): events closer than `maxGap` share one contiguous run, so the
 * links between them are checked too; farther ones start a new run that is
 * anchored to the hash of the event before it.
 */
export function auditSegmentRanges(seqs: readonly number[], maxGap: number): { from: number; to: number }[] {
  const ranges: { from: number; to: number }[] = [];
  for (const seq of seqs) {
    const last = ranges[ranges.length - 1];
    if (last && seq - last.to <= maxGap) last.to = Math.max(last.to, seq);
    else ranges.push({ from: seq, to: seq });
  }
  return ranges;
}

export function controllerKeyOf(publicKey: KeyObject): EvidenceControllerKey {
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sshFingerprint: sshFingerprint(publicKey),
    keyId: ed25519KeyId(publicKey),
  };
}

/** The bundle's archive bytes and its manifest. Sections are written in name order. */
export function buildEvidenceBundle(input: {
  readonly alias: { readonly id: string; readonly name: string };
  readonly revision: number;
  readonly modelRef: string;
  readonly createdAt: Date;
  readonly createdBy: string;
  readonly sections: readonly EvidenceSection[];
  readonly signer: { readonly privateKey: KeyObject; readonly publicKey: KeyObject };
}): { bytes: Buffer; manifest: EvidenceManifest } {
  const files: ArchiveFile[] = [...input.sections]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((section) => {
      if (!ARCHIVE_NAME_PATTERN.test(section.name) || section.name.startsWith('manifest.')) {
        throw new Error(`section name ${section.name} is not allowed`);
      }
      return { name: section.name, bytes: sectionBytes(section.content) };
    });
  const seen = new Set(files.map((file) => file.name));
  if (seen.size !== files.length) throw new Error('section names must be unique');
  const manifest: EvidenceManifest = {
    format: EVIDENCE_FORMAT,
    alias: { id: input.alias.id, name: input.alias.name },
    revision: input.revision,
    modelRef: input.modelRef,
    createdAt: input.createdAt.toISOString(),
    createdBy: input.createdBy,
    controllerKey: controllerKeyOf(input.signer.publicKey),
    files: files.map((file) => ({
      name: file.name,
      sha256: sha256(file.bytes),
      sizeBytes: file.bytes.length,
    })),
  };
  const manifestBytes = Buffer.from(stableStringify(manifest), 'utf8');
  const signature = sign(null, manifestBytes, input.signer.privateKey);
  const bytes = encodeArchive([
    { name: MANIFEST_FILE, bytes: manifestBytes },
    { name: SIGNATURE_FILE, bytes: signature },
    ...files,
  ]);
  return { bytes, manifest };
}

export interface EvidenceVerifyOptions {
  /** Require the bundle to be signed by this key (SPKI PEM, as the controller records it). */
  readonly publicKeyPem?: string;
  /** Require the signer's OpenSSH fingerprint to be this `SHA256:…`. */
  readonly fingerprint?: string;
}

export interface EvidenceVerification {
  readonly valid: boolean;
  /** Every problem found, each naming the file it is in (`(archive)` for the container itself). */
  readonly problems: readonly ArchiveProblem[];
  /** The manifest when its signature verified, else null. */
  readonly manifest: EvidenceManifest | null;
  /** Whether the signer was checked against a key or fingerprint the verifier supplied. */
  readonly signerPinned: boolean;
  readonly filesChecked: number;
  readonly auditEventsChecked: number;
  /** `verified` when artifact.json carries a signature that verifies over its digest and size. */
  readonly artifactSignature: 'verified' | 'unsigned' | 'invalid' | 'absent';
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function readManifest(value: unknown): EvidenceManifest | null {
  if (!isRecord(value) || value['format'] !== EVIDENCE_FORMAT) return null;
  const key = value['controllerKey'];
  const files = value['files'];
  if (!isRecord(key) || typeof key['publicKeyPem'] !== 'string' || !Array.isArray(files)) return null;
  const fileOk = (file: unknown): boolean =>
    isRecord(file) &&
    typeof file['name'] === 'string' &&
    typeof file['sha256'] === 'string' &&
    typeof file['sizeBytes'] === 'number';
  if (!files.every(fileOk)) return null;
  return value as unknown as EvidenceManifest;
}

function publicKeyFromPem(pem: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}

/** Recomputes the audit segment's hash chain, run by run. */
function checkAuditSegment(content: unknown, problems: ArchiveProblem[]): number {
  const file = 'audit-segment.json';
  const runs = isRecord(content) ? content['runs'] : undefined;
  if (!Array.isArray(runs)) {
    problems.push({ file, reason: 'has no runs of audit events to verify' });
    return 0;
  }
  let checked = 0;
  runs.forEach((run: unknown, index) => {
    if (!isRecord(run) || !Array.isArray(run['events'])) {
      problems.push({ file, reason: `run ${index + 1} is not a run of audit events` });
      return;
    }
    const segment = run as unknown as AuditSegmentRun;
    let result;
    try {
      result = verifyChain(segment.events, segment.anchor ?? null);
    } catch (error) {
      problems.push({
        file,
        reason: `run ${index + 1} cannot be hashed (${error instanceof Error ? error.message : String(error)})`,
      });
      return;
    }
    checked += result.checked;
    if (!result.valid && result.brokenAt) {
      problems.push({
        file,
        reason: `run ${index + 1}: the audit chain breaks at seq ${result.brokenAt.seq} (${result.brokenAt.reason})`,
      });
    }
  });
  return checked;
}

/** Checks artifact.json's provenance signature against the signing key it carries. */
function checkArtifactSignature(
  content: unknown,
  problems: ArchiveProblem[],
): EvidenceVerification['artifactSignature'] {
  if (!isRecord(content)) return 'absent';
  const signature = content['signature'] as ArtifactSignatureClaim | null | undefined;
  if (signature === null || signature === undefined) return 'unsigned';
  const key = content['signingKey'];
  if (!isRecord(key) || typeof key['keyId'] !== 'string' || typeof key['publicKey'] !== 'string') {
    problems.push({ file: 'artifact.json', reason: 'is signed but carries no signing key to check it with' });
    return 'invalid';
  }
  const decision = decideArtifactSignature({
    ref: typeof content['modelRef'] === 'string' ? content['modelRef'] : '(artifact)',
    artifact: {
      digest: typeof content['digest'] === 'string' ? content['digest'] : '',
      sizeBytes: typeof content['sizeBytes'] === 'number' ? content['sizeBytes'] : -1,
    },
    signature,
    trustedKeys: [{ keyId: key['keyId'], publicKey: key['publicKey'], revoked: false }],
    unsignedAllowed: true,
  });
  if (decision.ok) return 'verified';
  problems.push({ file: 'artifact.json', reason: decision.reason });
  return 'invalid';
}

/**
 * Verifies a bundle offline: the container re-encodes to exactly the bytes
 * read, the manifest's signature verifies with the controller key it names
 * (and that key is the pinned one, when one is given), every listed file is
 * there with its size and sha256 and nothing else is, the entries are in
 * bundle order, the audit segment's hash chain recomputes, and a signed
 * artifact's signature verifies.
 */
export function verifyEvidenceBundle(
  bytes: Buffer,
  options: EvidenceVerifyOptions = {},
): EvidenceVerification {
  const problems: ArchiveProblem[] = [];
  const result = (
    manifest: EvidenceManifest | null,
    extra: Partial<EvidenceVerification> = {},
  ): EvidenceVerification => {
    const unique = problems.filter(
      (problem, index) =>
        problems.findIndex((other) => other.file === problem.file && other.reason === problem.reason) ===
        index,
    );
    // A damaged file is the finding; the container checksums that it also breaks come after it.
    unique.sort((a, b) => Number(a.file === ARCHIVE_ITSELF) - Number(b.file === ARCHIVE_ITSELF));
    return {
      valid: unique.length === 0,
      problems: unique,
      manifest,
      signerPinned: options.publicKeyPem !== undefined || options.fingerprint !== undefined,
      filesChecked: 0,
      auditEventsChecked: 0,
      artifactSignature: 'absent',
      ...extra,
    };
  };

  const gzip = decodeStoredGzip(bytes);
  problems.push(...gzip.problems);
  if (gzip.data === null) return result(null);
  const tar = decodeTar(gzip.data);
  problems.push(...tar.problems);

  // Headers and padding must be exactly what the writer produces.
  for (const [index, span] of tar.spans.entries()) {
    const file = tar.files[index];
    const expected = encodeArchiveEntry(file);
    const actual = gzip.data.subarray(span.start, span.end);
    if (expected === null) {
      problems.push({ file: span.name, reason: 'is not a name a bundle file may have' });
    } else if (!expected.equals(actual)) {
      problems.push({ file: span.name, reason: 'its tar header or padding was changed' });
    }
  }

  const byName = new Map<string, ArchiveFile>();
  for (const file of tar.files) {
    if (byName.has(file.name)) problems.push({ file: file.name, reason: 'appears more than once' });
    else byName.set(file.name, file);
  }

  const manifestFile = byName.get(MANIFEST_FILE);
  const signatureFile = byName.get(SIGNATURE_FILE);
  if (!manifestFile) problems.push({ file: MANIFEST_FILE, reason: 'is missing' });
  if (!signatureFile) problems.push({ file: SIGNATURE_FILE, reason: 'is missing' });
  if (!manifestFile || !signatureFile) return result(null);

  const manifest = readManifest(parseJson(manifestFile.bytes));
  const key = manifest ? publicKeyFromPem(manifest.controllerKey.publicKeyPem) : null;
  let signed = false;
  if (manifest && key && signatureFile.bytes.length === SIGNATURE_BYTES) {
    try {
      signed = verify(null, manifestFile.bytes, key, signatureFile.bytes);
    } catch {
      signed = false;
    }
  }
  if (!signed) {
    problems.push({
      file: MANIFEST_FILE,
      reason: `${SIGNATURE_FILE} does not verify it with the controller key it names: ${MANIFEST_FILE} or ${SIGNATURE_FILE} was changed`,
    });
    // Nothing a forged or damaged manifest lists can be trusted to check the other files against.
    return result(null);
  }
  const trusted = manifest as EvidenceManifest;
  const signer = key as KeyObject;

  const actualFingerprint = sshFingerprint(signer);
  if (trusted.controllerKey.sshFingerprint !== actualFingerprint) {
    problems.push({
      file: MANIFEST_FILE,
      reason: 'its controller key fingerprint does not belong to its public key',
    });
  }
  if (options.fingerprint !== undefined && options.fingerprint.trim() !== actualFingerprint) {
    problems.push({
      file: SIGNATURE_FILE,
      reason: `signed by the controller key ${actualFingerprint}, not by ${options.fingerprint.trim()}`,
    });
  }
  if (options.publicKeyPem !== undefined) {
    const pinned = publicKeyFromPem(options.publicKeyPem);
    if (pinned === null) {
      problems.push({
        file: SIGNATURE_FILE,
        reason: 'the public key given to check it with is not an Ed25519 PEM key',
      });
    } else if (!ed25519PublicKeyRaw(pinned).equals(ed25519PublicKeyRaw(signer))) {
      problems.push({
        file: SIGNATURE_FILE,
        reason: `signed by the controller key ${actualFingerprint}, not by the key given (${sshFingerprint(pinned)})`,
      });
    }
  }

  let filesChecked = 0;
  const listed = new Set<string>([MANIFEST_FILE, SIGNATURE_FILE]);
  for (const entry of trusted.files) {
    listed.add(entry.name);
    const file = byName.get(entry.name);
    if (!file) {
      problems.push({ file: entry.name, reason: 'is listed in the manifest but missing' });
      continue;
    }
    filesChecked += 1;
    if (file.bytes.length !== entry.sizeBytes) {
      problems.push({
        file: entry.name,
        reason: `is ${file.bytes.length} bytes, the manifest says ${entry.sizeBytes}`,
      });
    } else if (sha256(file.bytes) !== entry.sha256) {
      problems.push({ file: entry.name, reason: 'its sha256 differs from the manifest' });
    }
  }
  for (const name of byName.keys()) {
    if (!listed.has(name)) problems.push({ file: name, reason: 'is not listed in the manifest' });
  }
  const expectedOrder = [MANIFEST_FILE, SIGNATURE_FILE, ...trusted.files.map((entry) => entry.name)];
  const actualOrder = tar.files.map((file) => file.name);
  if (
    expectedOrder.length === actualOrder.length &&
    expectedOrder.some((name, index) => actualOrder[index] !== name)
  ) {
    problems.push({
      file: ARCHIVE_ITSELF,
      reason: 'its files are not in bundle order (manifest.json, manifest.sig, then as listed)',
    });
  }

  const intact = (name: string): unknown => {
    const file = byName.get(name);
    const entry = trusted.files.find((candidate) => candidate.name === name);
    return file && entry && sha256(file.bytes) === entry.sha256 ? parseJson(file.bytes) : undefined;
  };
  let auditEventsChecked = 0;
  if (trusted.files.some((entry) => entry.name === 'audit-segment.json')) {
    const segment = intact('audit-segment.json');
    if (segment !== undefined) auditEventsChecked = checkAuditSegment(segment, problems);
  }
  const artifact = intact('artifact.json');
  const artifactSignature = artifact === undefined ? 'absent' : checkArtifactSignature(artifact, problems);
  return result(trusted, { filesChecked, auditEventsChecked, artifactSignature });
}

/** One entry as the writer lays it out (header, data, padding); null for a name no bundle uses. */
function encodeArchiveEntry(file: ArchiveFile): Buffer | null {
  if (!ARCHIVE_NAME_PATTERN.test(file.name)) return null;
  const tar = encodeTar([file]);
  return tar.subarray(0, tar.length - 2 * TAR_BLOCK);
}
