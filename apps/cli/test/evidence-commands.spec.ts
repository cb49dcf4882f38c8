import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildEvidenceBundle, decodeStoredGzip, decodeTar, encodeArchive } from '@lunanexa/audit';
import { runCli } from '../src/cli';
import { cannedApi, captureIo, json } from './support';

const controller = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');

function bundle(signer = controller): Buffer {
  return buildEvidenceBundle({
    alias: { id: '11111111-1111-4111-8111-111111111111', name: 'chat' },
    revision: 3,
    modelRef: 'demo@v3',
    createdAt: new Date('2026-12-06T12:00:00Z'),
    createdBy: 'operator:alice',
    sections: [
      { name: 'model-version.json', content: { ref: 'demo@v3' } },
      { name: 'audit-segment.json', content: { runs: [] } },
    ],
    signer,
  }).bytes;
}

describe('evidence commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lunanexa-evidence-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, bytes: Buffer | string): string => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const pem = controller.publicKey.export({ type: 'spki', format: 'pem' }).toString();

  it('verify: exit 0 with a summary; pinned to the key or its fingerprint', async () => {
    const file = write('good.tar.gz', bundle());
    const io = captureIo();
    expect(await runCli(['evidence', 'verify', file], io, '0.1.0')).to.equal(0);
    expect(io.out()).to.match(/^alias +chat revision 3 \(demo@v3\)$/m);
    expect(io.out()).to.match(/^signer pinned +no/m);
    expect(io.out()).to.match(/verified\n$/);
    const pinned = captureIo();
    expect(
      await runCli(
        ['evidence', 'verify', file, '--public-key', write('controller.pem', pem)],
        pinned,
        '0.1.0',
      ),
    ).to.equal(0);
    expect(pinned.out()).to.match(/^signer pinned +yes$/m);
    const fingerprint = /controller key (SHA256:\S+)/.exec(io.out())?.[1] as string;
    expect(
      await runCli(['evidence', 'verify', file, '--fingerprint', fingerprint], captureIo(), '0.1.0'),
    ).to.equal(0);
  });

  it('verify: a changed byte exits 1 with error[EVIDENCE_INVALID] naming the file it is in', async () => {
    const { data } = decodeStoredGzip(bundle());
    const files = decodeTar(data as Buffer).files.map((f) => ({ name: f.name, bytes: Buffer.from(f.bytes) }));
    const target = files.find((f) => f.name === 'model-version.json');
    if (!target) throw new Error('no model-version.json');
    target.bytes[5] = (target.bytes[5] ?? 0) ^ 0x01;
    const io = captureIo();
    expect(
      await runCli(['evidence', 'verify', write('bad.tar.gz', encodeArchive(files))], io, '0.1.0'),
    ).to.equal(1);
    expect(io.err()).to.match(
      /^error\[EVIDENCE_INVALID\]: .*bad\.tar\.gz: model-version\.json: its sha256 differs/m,
    );
  });

  it('verify: another signer fails when the controller key is pinned', async () => {
    const io = captureIo();
    const file = write('other.tar.gz', bundle(other));
    expect(
      await runCli(['evidence', 'verify', file, '--public-key', write('controller2.pem', pem)], io, '0.1.0'),
    ).to.equal(1);
    expect(io.err()).to.match(/manifest\.sig: signed by the controller key SHA256:\S+, not by the key given/);
    expect(
      await runCli(['evidence', 'verify', file, '--fingerprint', 'nope'], captureIo(), '0.1.0'),
    ).to.equal(64);
  });

  it('export: downloads, verifies and writes the bundle under the name the API gives, never overwriting', async () => {
    const bytes = bundle();
    const api = await cannedApi({
      'GET /v1/evidence/chat?revision=3': () => ({
        status: 200,
        contentType: 'application/gzip',
        body: bytes,
      }),
      'GET /v1/evidence/nope': () =>
        json(
          404,
          {
            type: 'urn:lunanexa:error:not-found',
            title: 'Not Found',
            status: 404,
            code: 'NOT_FOUND',
            detail: 'alias nope does not exist',
          },
          'application/problem+json',
        ),
    });
    try {
      const out = join(dir, 'export.tar.gz');
      const io = captureIo();
      expect(
        await runCli(
          ['--api-url', api.url, 'evidence', 'export', 'chat', '--revision', '3', '--out', out],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(readFileSync(out).equals(bytes)).to.equal(true);
      expect(io.out()).to.contain(`wrote ${bytes.length} bytes to ${out}`);
      const again = captureIo();
      expect(
        await runCli(
          ['--api-url', api.url, 'evidence', 'export', 'chat', '--revision', '3', '--out', out],
          again,
          '0.1.0',
        ),
      ).to.equal(64);
      const missing = captureIo();
      expect(await runCli(['--api-url', api.url, 'evidence', 'export', 'nope'], missing, '0.1.0')).to.equal(
        1,
      );
      expect(missing.err()).to.match(/^error\[NOT_FOUND\]: alias nope does not exist/);
      expect(existsSync(join(process.cwd(), 'evidence-nope.tar.gz'))).to.equal(false);
      expect(await runCli(['evidence', 'export', 'chat', '--revision', '0'], captureIo(), '0.1.0')).to.equal(
        64,
      );
    } finally {
      await api.close();
    }
  });
});
