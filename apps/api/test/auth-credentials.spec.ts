import { expect } from 'chai';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ControllerKeyError,
  keyFingerprint,
  loadOrCreateControllerKey,
  rawEd25519PublicKey,
} from '../src/auth/controller-key';
import { API_TOKEN_PATTERN, generateApiToken, hashApiToken, parseAuthorization } from '@lunanexa/credentials';
import {
  decoyPasswordHash,
  formatPasswordHash,
  hashPassword,
  parsePasswordHash,
  verifyPassword,
} from '../src/auth/password';
import {
  SESSION_ISSUER,
  SESSION_TTL_SECONDS,
  signSessionToken,
  verifySessionToken,
  type SessionClaims,
} from '@lunanexa/credentials';

const OPERATOR_ID = '0b6f7a52-3c1e-4d8e-9a49-7f0c2b1d5e60';

function b64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** A JWS over arbitrary header and claims, signed with `key`: how a forger who has some key would build one. */
function forge(header: unknown, claims: unknown, key: KeyObject): string {
  const signingInput = `${b64(header)}.${b64(claims)}`;
  return `${signingInput}.${sign(null, Buffer.from(signingInput), key).toString('base64url')}`;
}

describe('auth credentials (unit)', function () {
  this.timeout(30_000);

  describe('password hashes (scrypt)', () => {
    const FORMAT = /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/;

    it('stores scrypt$N$r$p$salt$hash with N=2^15, r=8, p=1, a 16-byte salt and a 32-byte key', async () => {
      const stored = await hashPassword('a long enough passphrase');
      expect(stored).to.match(FORMAT);
      const parsed = parsePasswordHash(stored);
      expect(parsed).to.include({ N: 32768, r: 8, p: 1 });
      expect(parsed.salt).to.have.length(16);
      expect(parsed.hash).to.have.length(32);
      expect(formatPasswordHash(parsed)).to.equal(stored);
    });

    it('salts every hash: the same password hashes differently', async () => {
      const [a, b] = await Promise.all([hashPassword('same words here'), hashPassword('same words here')]);
      expect(a).not.to.equal(b);
      expect(parsePasswordHash(a).salt.equals(parsePasswordHash(b).salt)).to.equal(false);
    });

    it('verifies the right password and refuses a wrong one', async () => {
      const stored = await hashPassword('correct horse battery');
      expect(await verifyPassword('correct horse battery', stored)).to.equal(true);
      expect(await verifyPassword('correct horse batterY', stored)).to.equal(false);
      expect(await verifyPassword('', stored)).to.equal(false);
    });

    it('refuses stored values that are not exactly the format', () => {
      const good = `scrypt$32768$8$1$${'A'.repeat(22)}$${'A'.repeat(43)}`;
      expect(() => parsePasswordHash(good)).not.to.throw();
      for (const bad of [
        'plain-text-password',
        good.replace('scrypt$', 'bcrypt$'),
        good.replace('$32768$', '$30000$'), // N not a power of two
        good.replace('$32768$', '$2097152$'), // N above the bound
        good.replace('$8$1$', '$0$1$'),
        `${good}$extra`,
        good.replace(`$${'A'.repeat(22)}$`, `$${'A'.repeat(21)}B$`), // stray bits: not canonical base64url
      ]) {
        expect(() => parsePasswordHash(bad), bad).to.throw();
      }
    });

    it('the decoy hash for unknown users is a real hash no password matches', async () => {
      const decoy = await decoyPasswordHash();
      expect(decoy).to.match(FORMAT);
      expect(await decoyPasswordHash()).to.equal(decoy);
      expect(await verifyPassword('anything at all', decoy)).to.equal(false);
    });
  });

  describe('session tokens (EdDSA JWS)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const key = { privateKey, publicKey, fingerprint: keyFingerprint(publicKey) };
    const other = generateKeyPairSync('ed25519');
    const now = 1_800_000_000;
    const claims: SessionClaims = {
      iss: SESSION_ISSUER,
      sub: OPERATOR_ID,
      role: 'operator',
      epoch: 3,
      iat: now,
      exp: now + SESSION_TTL_SECONDS,
    };
    const header = { alg: 'EdDSA', typ: 'JWT', kid: key.fingerprint };

    it('round-trips: the claims come back exactly', () => {
      const token = signSessionToken(key, claims);
      expect(token.split('.')).to.have.length(3);
      expect(JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString())).to.deep.equal(
        header,
      );
      expect(verifySessionToken(token, key, now + 1)).to.deep.equal({ ok: true, claims });
    });

    it('reports expiry (with the genuine claims) from exp on', () => {
      const token = signSessionToken(key, claims);
      expect(verifySessionToken(token, key, claims.exp - 1).ok).to.equal(true);
      expect(verifySessionToken(token, key, claims.exp)).to.deep.equal({
        ok: false,
        reason: 'expired',
        claims,
      });
    });

    it('refuses tampered payloads and signatures', () => {
      const [h, p, s] = signSessionToken(key, claims).split('.') as [string, string, string];
      const promoted = b64({ ...claims, role: 'admin' });
      expect(verifySessionToken(`${h}.${promoted}.${s}`, key, now)).to.deep.include({
        reason: 'bad-signature',
      });
      const flipped = Buffer.from(s, 'base64url');
      flipped[0] = (flipped[0] ?? 0) ^ 1;
      expect(verifySessionToken(`${h}.${p}.${flipped.toString('base64url')}`, key, now)).to.deep.include({
        reason: 'bad-signature',
      });
    });

    it('refuses a token signed by another key, whatever kid it claims', () => {
      expect(verifySessionToken(forge(header, claims, other.privateKey), key, now)).to.deep.include({
        reason: 'bad-signature',
      });
      const foreignKid = { ...header, kid: keyFingerprint(other.publicKey) };
      expect(verifySessionToken(forge(foreignKid, claims, other.privateKey), key, now)).to.deep.include({
        reason: 'unknown-key',
      });
    });

    it('accepts only the exact header alg EdDSA, typ JWT, kid', () => {
      for (const bad of [
        { ...header, alg: 'none' },
        { ...header, alg: 'HS256' },
        { ...header, alg: 'ES256' },
        { ...header, typ: 'at+jwt' },
        { alg: 'EdDSA', typ: 'JWT' },
        { ...header, jku: 'https://attacker.example/keys' },
      ]) {
        expect(
          verifySessionToken(forge(bad, claims, privateKey), key, now),
          JSON.stringify(bad),
        ).to.deep.include({ ok: false, reason: 'unsupported-header' });
      }
      const unsigned = `${b64({ ...header, alg: 'none' })}.${b64(claims)}.`;
      expect(verifySessionToken(unsigned, key, now).ok).to.equal(false);
    });

    it('accepts only the exact claim set, within the 15-minute lifetime', () => {
      for (const bad of [
        { ...claims, admin: true },
        { ...claims, iss: 'someone-else' },
        { ...claims, role: 'root' },
        { ...claims, sub: 'not-a-uuid' },
        { ...claims, epoch: -1 },
        { ...claims, exp: claims.iat + SESSION_TTL_SECONDS + 1 },
        { ...claims, exp: claims.iat },
        { ...claims, iat: String(claims.iat) },
        { iss: claims.iss, sub: claims.sub, role: claims.role, iat: claims.iat, exp: claims.exp },
        [claims],
      ]) {
        expect(
          verifySessionToken(forge(header, bad, privateKey), key, now),
          JSON.stringify(bad),
        ).to.deep.equal({
          ok: false,
          reason: 'bad-claims',
        });
      }
      const future = { ...claims, iat: now + 120, exp: now + 120 + SESSION_TTL_SECONDS };
      expect(verifySessionToken(forge(header, future, privateKey), key, now)).to.deep.include({
        reason: 'bad-claims',
      });
    });

    it('refuses malformed encodings before touching the signature', () => {
      const token = signSessionToken(key, claims);
      const [h, p, s] = token.split('.') as [string, string, string];
      for (const bad of [
        '',
        'a.b',
        `${token}.x`,
        `${h}=.${p}.${s}`,
        `${h}.${p}.${s}=`,
        `${h}.${p}+.${s}`,
        `${b64('not json')}.${p}.${s}`,
        `${h}.${p}.${s}`.padEnd(5000, 'A'),
      ]) {
        expect(verifySessionToken(bad, key, now).ok, bad.slice(0, 40)).to.equal(false);
      }
      expect(verifySessionToken(`${h}=.${p}.${s}`, key, now)).to.deep.include({ reason: 'malformed' });
    });
  });

  describe('API tokens and the Authorization header', () => {
    it('generates lnx_ tokens with 256 random bits; stores sha256 and a 12-character prefix', () => {
      const a = generateApiToken();
      const b = generateApiToken();
      expect(a.token)
        .to.match(API_TOKEN_PATTERN)
        .and.to.match(/^lnx_[A-Za-z0-9_-]{43}$/);
      expect(a.token).not.to.equal(b.token);
      expect(a.tokenHash).to.equal(createHash('sha256').update(a.token).digest('hex'));
      expect(hashApiToken(a.token)).to.equal(a.tokenHash);
      expect(a.prefix)
        .to.equal(a.token.slice(0, 12))
        .and.to.match(/^lnx_[A-Za-z0-9_-]{8}$/);
    });

    it('routes bearer values by shape: lnx_ → API token, three segments → session, else malformed', () => {
      const { token, prefix } = generateApiToken();
      expect(parseAuthorization(undefined)).to.deep.equal({ kind: 'none' });
      expect(parseAuthorization(`Bearer ${token}`)).to.deep.equal({ kind: 'api-token', token, prefix });
      expect(parseAuthorization(`bearer ${token}`)).to.deep.include({ kind: 'api-token' });
      expect(parseAuthorization('Bearer aaa.bbb.ccc')).to.deep.equal({
        kind: 'session',
        token: 'aaa.bbb.ccc',
      });
      for (const bad of [
        '',
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from('admin:pw').toString('base64')}`,
        `Token ${token}`,
        `Bearer ${token} extra`,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token}x`,
        'Bearer lnx_',
        'Bearer aaa.bbb',
        'Bearer aaa.bbb.ccc.ddd',
        'Bearer aaa.b+b.ccc',
        `Bearer ${'a'.repeat(3000)}.${'b'.repeat(3000)}.c`,
      ]) {
        expect(parseAuthorization(bad), bad.slice(0, 40)).to.deep.equal({ kind: 'malformed' });
      }
      expect(parseAuthorization([`Bearer ${token}`, `Bearer ${token}`])).to.deep.equal({ kind: 'malformed' });
    });
  });

  describe('controller key file', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'lunanexa-key-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('creates an Ed25519 PKCS#8 key with mode 0600 on first start and reads the same key afterwards', () => {
      const file = join(dir, 'controller', 'controller-ed25519.pem');
      const created = loadOrCreateControllerKey(file);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(statSync(join(dir, 'controller')).mode & 0o077).to.equal(0);
      expect(readFileSync(file, 'utf8')).to.match(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(created.privateKey.asymmetricKeyType).to.equal('ed25519');
      const raw = rawEd25519PublicKey(created.publicKey);
      expect(raw).to.have.length(32);
      expect(created.fingerprint).to.equal(createHash('sha256').update(raw).digest('base64url'));
      expect(created.fingerprint).to.match(/^[A-Za-z0-9_-]{43}$/);
      const again = loadOrCreateControllerKey(file);
      expect(again.fingerprint).to.equal(created.fingerprint);
      expect(again.file).to.equal(file);
    });

    it('refuses a key file that group or others can read', () => {
      const file = join(dir, 'k.pem');
      loadOrCreateControllerKey(file);
      chmodSync(file, 0o644);
      expect(() => loadOrCreateControllerKey(file))
        .to.throw(ControllerKeyError)
        .with.property('message')
        .that.matches(/chmod 600/);
    });

    it('refuses keys that are not Ed25519 and files that are not keys', () => {
      const ec = join(dir, 'ec.pem');
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      writeFileSync(ec, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
      expect(() => loadOrCreateControllerKey(ec)).to.throw(ControllerKeyError, /Ed25519 key is required/);
      const junk = join(dir, 'junk.pem');
      writeFileSync(junk, 'not a key\n', { mode: 0o600 });
      expect(() => loadOrCreateControllerKey(junk)).to.throw(ControllerKeyError, /not a readable PEM/);
    });
  });
});
