import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  artifactSigningStatement,
  parseEd25519PublicKey,
  signingKeyFingerprint,
} from '@lunanexa/credentials';
import {
  ARCHIVE_ITSELF,
  auditSegmentRanges,
  buildEvidenceBundle,
  chainEvent,
  decodeStoredGzip,
  decodeTar,
  encodeArchive,
  sectionBytes,
  stableStringify,
  verifyEvidenceBundle,
  type ArchiveFile,
  type ChainedAuditEvent,
  type EvidenceSection,
} from '../src';

interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

const controller: KeyPair = generateKeyPairSync('ed25519');
const stranger: KeyPair = generateKeyPairSync('ed25519');
const artifactKey: KeyPair = generateKeyPairSync('ed25519');

function chain(count: number): ChainedAuditEvent[] {
  const events: ChainedAuditEvent[] = [];
  for (let n = 1; n <= count; n += 1) {
    events.push(
      chainEvent(events[events.length - 1] ?? null, {
        id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        occurredAt: new Date(Date.UTC(2026, 11, 6, 10, 0, n)).toISOString(),
        actor: 'user:admin',
        action: n % 2 ? 'rollout.step' : 'deployment.place',
        decision: 'allowed',
        evidence: { n, rolloutId: 'r1' },
        result: 'succeeded',
        correlationId: `corr-${n}`,
        workflowId: 'rollout-r1',
      }),
    );
  }
  return events;
}

function sections(): EvidenceSection[] {
  const digest = `sha256:${'ab'.repeat(32)}`;
  const sizeBytes = 4096;
  const raw = parseEd25519PublicKey(artifactKey.publicKey.export({ format: 'pem', type: 'spki' }).toString());
  if (raw === null) throw new Error('test key');
  const keyId = signingKeyFingerprint(raw);
  const events = chain(6);
  return [
    { name: 'model-version.json', content: { ref: 'demo@v2', state: 'Approved' } },
    {
      name: 'artifact.json',
      content: {
        modelRef: 'demo@v2',
        digest,
        sizeBytes,
        signature: {
          algorithm: 'ed25519',
          keyId,
          value: sign(null, artifactSigningStatement({ digest, sizeBytes }), artifactKey.privateKey).toString(
            'base64',
          ),
        },
        signingKey: { keyId, publicKey: raw.toString('base64') },
      },
    },
    {
      name: 'audit-segment.json',
      content: {
        runs: [
          { anchor: null, events: events.slice(0, 2) },
          { anchor: { seq: 4, hash: events[3].hash }, events: events.slice(4) },
        ],
      },
    },
    { name: 'recommendations.json', content: { available: false, reason: 'none yet' } },
  ];
}

function bundle(content: EvidenceSection[] = sections(), signer: KeyPair = controller): Buffer {
  return buildEvidenceBundle({
    alias: { id: '11111111-1111-4111-8111-111111111111', name: 'chat' },
    revision: 2,
    modelRef: 'demo@v2',
    createdAt: new Date('2026-12-06T12:00:00Z'),
    createdBy: 'user:admin',
    sections: content,
    signer,
  }).bytes;
}

function unpack(bytes: Buffer): ArchiveFile[] {
  const { data } = decodeStoredGzip(bytes);
  if (data === null) throw new Error('not a bundle');
  return decodeTar(data).files.map((file) => ({ name: file.name, bytes: Buffer.from(file.bytes) }));
}

function repack(bytes: Buffer, change: (files: ArchiveFile[]) => ArchiveFile[]): Buffer {
  return encodeArchive(change(unpack(bytes)));
}

function problemFiles(bytes: Buffer, options = {}): string[] {
  return verifyEvidenceBundle(bytes, options).problems.map((problem) => problem.file);
}

describe('evidence bundle', () => {
  const pem = controller.publicKey.export({ format: 'pem', type: 'spki' }).toString();

  it('verifies as written: every file hashed, the audit runs recomputed, the artifact signature checked', () => {
    const result = verifyEvidenceBundle(bundle(), { publicKeyPem: pem });
    expect(result.problems).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(result.signerPinned).to.equal(true);
    expect(result.filesChecked).to.equal(4);
    expect(result.auditEventsChecked).to.equal(4);
    expect(result.artifactSignature).to.equal('verified');
    expect(result.manifest?.files.map((file) => file.name)).to.deep.equal([
      'artifact.json',
      'audit-segment.json',
      'model-version.json',
      'recommendations.json',
    ]);
  });

  it('is the same bytes for the same input, and a gzip tar any tool reads', () => {
    const bytes = bundle();
    expect(bundle().equals(bytes)).to.equal(true);
    expect(gunzipSync(bytes).length % 512).to.equal(0);
    const dir = mkdtempSync(join(tmpdir(), 'evidence-'));
    try {
      writeFileSync(join(dir, 'b.tar.gz'), bytes);
      const listing = execFileSync('tar', ['-tzf', join(dir, 'b.tar.gz')], { encoding: 'utf8' });
      expect(listing.trim().split('\n')).to.deep.equal([
        'manifest.json',
        'manifest.sig',
        'artifact.json',
        'audit-segment.json',
        'model-version.json',
        'recommendations.json',
      ]);
      execFileSync('tar', ['-xzf', join(dir, 'b.tar.gz'), '-C', dir]);
      // The signature is plain Ed25519 over manifest.json: openssl checks it without LunaNexa.
      writeFileSync(join(dir, 'controller.pem'), pem);
      const openssl = execFileSync(
        'openssl',
        [
          'pkeyutl',
          '-verify',
          '-rawin',
          '-pubin',
          '-inkey',
          join(dir, 'controller.pem'),
          '-sigfile',
          join(dir, 'manifest.sig'),
          '-in',
          join(dir, 'manifest.json'),
        ],
        { encoding: 'utf8' },
      );
      expect(openssl).to.match(/Signature Verified Successfully/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails naming the file when one byte of any file changes and the archive is packed again', () => {
    const original = bundle();
    for (const target of unpack(original)) {
      for (const at of [0, Math.floor(target.bytes.length / 2), target.bytes.length - 1]) {
        const tampered = repack(original, (files) =>
          files.map((file) => {
            if (file.name !== target.name) return file;
            const bytes = Buffer.from(file.bytes);
            bytes[at] = bytes[at] ^ 0x01;
            return { name: file.name, bytes };
          }),
        );
        const result = verifyEvidenceBundle(tampered);
        expect(result.valid, `${target.name}@${at}`).to.equal(false);
        // manifest.sig cannot tell which of the two signed files changed; its problem names both.
        const named = result.problems[0];
        expect(`${named?.file} ${named?.reason}`, `${target.name}@${at}`).to.contain(target.name);
      }
    }
  });

  it('fails on every single changed byte of the archive file, naming the file the byte is in', () => {
    const original = bundle();
    const tar = decodeStoredGzip(original).data as Buffer;
    const spans = decodeTar(tar).spans;
    // One stored block: the tar starts after the 10-byte gzip header and 5 bytes of block framing.
    expect(tar.length).to.be.below(65_536);
    for (let at = 0; at < original.length; at += 1) {
      const tampered = Buffer.from(original);
      tampered[at] = tampered[at] ^ 0x80;
      const result = verifyEvidenceBundle(tampered);
      expect(result.valid, `byte ${at}`).to.equal(false);
      const span = spans.find((candidate) => at - 15 >= candidate.start && at - 15 < candidate.end);
      if (span !== undefined && at - 15 >= span.start + 100) {
        // Past the name field, so the entry still reads under its own name.
        const text = result.problems.map((problem) => `${problem.file} ${problem.reason}`).join('; ');
        expect(text, `byte ${at}`).to.contain(span.name);
      }
    }
  });

  it('fails naming a removed file and an added one', () => {
    const original = bundle();
    const removed = repack(original, (files) => files.filter((file) => file.name !== 'model-version.json'));
    expect(problemFiles(removed)).to.deep.equal(['model-version.json']);
    const added = repack(original, (files) => [
      ...files,
      { name: 'extra.json', bytes: sectionBytes({ x: 1 }) },
    ]);
    expect(problemFiles(added)).to.deep.equal(['extra.json']);
    const noSignature = repack(original, (files) => files.filter((file) => file.name !== 'manifest.sig'));
    expect(problemFiles(noSignature)).to.deep.equal(['manifest.sig']);
  });

  it('fails when files are reordered, though each is intact', () => {
    const reordered = repack(bundle(), (files) => [...files.slice(0, 2), ...files.slice(2).reverse()]);
    expect(problemFiles(reordered)).to.deep.equal([ARCHIVE_ITSELF]);
  });

  it('refuses a forged manifest signature, and a bundle signed by another key when the controller is pinned', () => {
    const original = bundle();
    // Another key signs the same manifest, but the manifest still names the controller key.
    const forged = repack(original, (files) =>
      files.map((file) =>
        file.name === 'manifest.sig'
          ? { name: file.name, bytes: sign(null, files[0].bytes, stranger.privateKey) }
          : file,
      ),
    );
    expect(problemFiles(forged)).to.deep.equal(['manifest.json']);
    // A bundle honestly signed by some other key verifies on its own, but not against the controller.
    const other = bundle(sections(), stranger);
    expect(verifyEvidenceBundle(other).valid).to.equal(true);
    expect(problemFiles(other, { publicKeyPem: pem })).to.deep.equal(['manifest.sig']);
    const fingerprint = verifyEvidenceBundle(bundle()).manifest?.controllerKey.sshFingerprint as string;
    expect(fingerprint).to.match(/^SHA256:/);
    expect(problemFiles(other, { fingerprint })).to.deep.equal(['manifest.sig']);
    expect(verifyEvidenceBundle(bundle(), { fingerprint }).valid).to.equal(true);
  });

  it('recomputes the audit chain: an event changed and re-signed by the key holder still fails', () => {
    const content = sections();
    const segment = content.find((section) => section.name === 'audit-segment.json') as EvidenceSection;
    const runs = (segment.content as { runs: { anchor: unknown; events: ChainedAuditEvent[] }[] }).runs;
    const second = runs[1];
    second.events = second.events.map((event, index) =>
      index === 0 ? { ...event, actor: 'user:someone-else' } : event,
    );
    const result = verifyEvidenceBundle(bundle(content));
    expect(result.problems).to.deep.equal([
      { file: 'audit-segment.json', reason: 'run 2: the audit chain breaks at seq 5 (hash-mismatch)' },
    ]);
  });

  it("checks artifact.json's signature over its digest and size", () => {
    const content = sections().map((section) =>
      section.name === 'artifact.json'
        ? { ...section, content: { ...(section.content as object), sizeBytes: 4097 } }
        : section,
    );
    const result = verifyEvidenceBundle(bundle(content));
    expect(result.artifactSignature).to.equal('invalid');
    expect(result.problems.map((problem) => problem.file)).to.deep.equal(['artifact.json']);
  });

  it('signs the canonical manifest bytes', () => {
    const { manifest } = buildEvidenceBundle({
      alias: { id: 'a', name: 'chat' },
      revision: 1,
      modelRef: 'demo@v1',
      createdAt: new Date(0),
      createdBy: 'user:admin',
      sections: [],
      signer: controller,
    });
    const files = unpack(
      buildEvidenceBundle({
        alias: { id: 'a', name: 'chat' },
        revision: 1,
        modelRef: 'demo@v1',
        createdAt: new Date(0),
        createdBy: 'user:admin',
        sections: [],
        signer: controller,
      }).bytes,
    );
    expect(files[0].bytes.toString('utf8')).to.equal(stableStringify(manifest));
  });
});

describe('auditSegmentRanges', () => {
  it('joins events closer than the gap into one run and starts a new run after a longer gap', () => {
    expect(auditSegmentRanges([3, 5, 9, 40, 41, 200], 10)).to.deep.equal([
      { from: 3, to: 9 },
      { from: 40, to: 41 },
      { from: 200, to: 200 },
    ]);
    expect(auditSegmentRanges([], 10)).to.deep.equal([]);
  });
});

describe('sectionBytes', () => {
  it('writes dates as ISO strings and sorts keys', () => {
    expect(sectionBytes({ b: new Date(0), a: 1 }).toString('utf8')).to.equal(
      '{\n  "a": 1,\n  "b": "1970-01-01T00:00:00.000Z"\n}\n',
    );
  });
});
