import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { decideArtifactSignature, parseEd25519PublicKey, signingKeyFingerprint } from '@lunanexa/credentials';
import { runCli } from '../src/cli';
import { cannedApi, captureIo, json } from './support';

const DIGEST = `sha256:${'5e'.repeat(32)}`;

describe('lunanexa signing-key and sign-artifact', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lunanexa-signing-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generate writes an owner-only private key; sign-artifact signs what the deploy gate verifies', async () => {
    const keyFile = join(dir, 'release.pem');
    const generated = captureIo();
    expect(
      await runCli(['signing-key', 'generate', '--out', keyFile], generated, '0.1.0'),
      generated.err(),
    ).to.equal(0);
    expect(statSync(keyFile).mode & 0o777).to.equal(0o600);
    const raw = parseEd25519PublicKey(generated.out());
    expect(raw).to.not.equal(null);
    const keyId = signingKeyFingerprint(raw as Buffer);
    expect(generated.err()).to.include(keyId);

    const signed = captureIo();
    expect(
      await runCli(
        ['sign-artifact', '--key', keyFile, '--digest', DIGEST, '--size', '1024'],
        signed,
        '0.1.0',
      ),
      signed.err(),
    ).to.equal(0);
    const signature = JSON.parse(signed.out()) as { algorithm: string; keyId: string; value: string };
    expect(signature).to.deep.include({ algorithm: 'ed25519', keyId });
    const trustedKeys = [{ keyId, publicKey: (raw as Buffer).toString('base64'), revoked: false }];
    const decide = (digest: string, sizeBytes: number) =>
      decideArtifactSignature({
        ref: 'm@1',
        artifact: { digest, sizeBytes },
        signature,
        trustedKeys,
        unsignedAllowed: true,
      });
    expect(decide(DIGEST, 1024).ok).to.equal(true);
    expect(decide(DIGEST, 1025).ok).to.equal(false);

    // An existing file is never overwritten.
    const again = captureIo();
    expect(await runCli(['signing-key', 'generate', '--out', keyFile], again, '0.1.0')).to.not.equal(0);
    expect(readFileSync(keyFile, 'utf8')).to.include('PRIVATE KEY');
  });

  it('sign-artifact refuses a malformed digest or size and a missing key without printing a signature', async () => {
    for (const args of [
      ['--key', join(dir, 'absent.pem'), '--digest', DIGEST, '--size', '1'],
      ['--key', join(dir, 'absent.pem'), '--digest', 'sha256:xyz', '--size', '1'],
    ]) {
      const io = captureIo();
      expect(await runCli(['sign-artifact', ...args], io, '0.1.0')).to.equal(64);
      expect(io.out()).to.equal('');
    }
  });

  it('register sends the public key file and label; revoke names the key id', async () => {
    const key = {
      keyId: `ed25519:${'ab'.repeat(16)}`,
      algorithm: 'ed25519',
      publicKey: 'A'.repeat(43) + '=',
      label: 'release-ci',
      createdBy: 'operator:admin',
      createdAt: '2026-12-05T00:00:00.000Z',
      revokedAt: null,
      revokedBy: null,
    };
    const api = await cannedApi({
      'POST /graphql': (request) =>
        json(200, {
          data: request.body.includes('revokeSigningKey')
            ? { revokeSigningKey: { ...key, revokedAt: key.createdAt, revokedBy: 'operator:admin' } }
            : { registerSigningKey: key },
        }),
    });
    try {
      const publicFile = join(dir, 'release.pub');
      const generated = captureIo();
      await runCli(['signing-key', 'generate', '--out', join(dir, 'k.pem')], generated, '0.1.0');
      writeFileSync(publicFile, generated.out());
      const io = captureIo();
      expect(
        await runCli(
          [
            '--api-url',
            api.url,
            'signing-key',
            'register',
            '--public-key',
            publicFile,
            '--label',
            'release-ci',
          ],
          io,
          '0.1.0',
        ),
        io.err(),
      ).to.equal(0);
      const sent = JSON.parse(api.requests[0]?.body ?? '{}') as {
        variables: { input: Record<string, string> };
      };
      expect(sent.variables.input).to.deep.equal({ publicKey: generated.out(), label: 'release-ci' });
      expect(io.out()).to.include(key.keyId);
      const revoke = captureIo();
      expect(
        await runCli(['--api-url', api.url, 'signing-key', 'revoke', key.keyId], revoke, '0.1.0'),
      ).to.equal(0);
      expect(JSON.parse(api.requests[1]?.body ?? '{}')).to.deep.include({ variables: { keyId: key.keyId } });
      expect(revoke.out()).to.match(/revoked\s+2026-12-05/);
    } finally {
      await api.close();
    }
  });
});
