import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  activateControllerKey,
  announceControllerKey,
  ControllerKeyRing,
  createDataSource,
  createRingKey,
  createScratchDatabase,
  describeControllerKey,
  listControllerKeys,
  loadGatewayCredentials,
  loadOrCreateControllerKey,
  retirePreviousControllerKey,
  runMigrations,
  watchControllerKeyRing,
  type ScratchDatabase,
} from '../src';

const silent = { info: () => undefined, warn: () => undefined };

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the controller key ring in PostgreSQL', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let ds: DataSource;
  const dir = mkdtempSync(join(tmpdir(), 'lunanexa-ring-'));
  const keyFile = join(dir, 'controller', 'controller-ed25519.pem');

  before(async () => {
    db = await createScratchDatabase('controller_key_ring');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'ring-test' });
    await ds.initialize();
  });

  after(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('makes the first key a process starts with current, and only that one', async () => {
    const ring = await ControllerKeyRing.open(ds, loadOrCreateControllerKey(keyFile));
    expect(ring.records().map((k) => k.state)).to.deep.equal(['current']);
    // A second process with the same key changes nothing.
    await ControllerKeyRing.open(ds, loadOrCreateControllerKey(keyFile));
    expect((await listControllerKeys(ds)).map((k) => k.state)).to.deep.equal(['current']);
  });

  it('refuses to start on a host that lacks the current key, naming the file to copy, and changes no state', async () => {
    const otherHost = join(mkdtempSync(join(tmpdir(), 'lunanexa-ring-other-')), 'controller-ed25519.pem');
    let refused: unknown;
    try {
      await ControllerKeyRing.open(ds, loadOrCreateControllerKey(otherHost));
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(LunaNexaError);
    expect((refused as LunaNexaError).code).to.equal(ErrorCode.INVALID_CONFIG);
    expect((refused as LunaNexaError).message).to.contain('ring/');
    // The stranger's key is not recorded: the ring is as it was.
    expect((await listControllerKeys(ds)).map((k) => k.state)).to.deep.equal(['current']);
  });

  it('announces, switches and retires; a watching process follows every step through NOTIFY; gateways drop the retired key', async () => {
    const ring = await ControllerKeyRing.open(ds, loadOrCreateControllerKey(keyFile));
    const stop = watchControllerKeyRing(ring, db.url, 'ring-test-watch', silent);
    try {
      const first = ring.current();
      const next = createRingKey(keyFile);
      expect(readdirSync(join(dir, 'controller', 'ring'))).to.deep.equal([`${next.fingerprint}.pem`]);
      const described = describeControllerKey(next.publicKey);
      await announceControllerKey(ds, described, 'rotation-1', new Date());
      await until('the next key seen', () => ring.records().some((k) => k.state === 'next'));
      expect(ring.current().keyId).to.equal(first.keyId);
      expect(ring.notice(ring.current()).next?.keyId).to.equal(described.keyId);
      expect(ring.holds(next.fingerprint)).to.equal(true);
      // Announcing a second next key at once is refused by the one-per-state index.
      const third = describeControllerKey(createRingKey(keyFile).publicKey);
      let duplicate: string | undefined;
      try {
        await announceControllerKey(ds, third, 'rotation-2', new Date());
      } catch (error) {
        duplicate =
          (error as { driverError?: { code?: string }; code?: string }).driverError?.code ??
          (error as { code?: string }).code;
      }
      expect(duplicate).to.equal('23505');

      await ds.transaction((manager) =>
        activateControllerKey(manager, 'rotation-1', new Date(Date.now() + 60_000), new Date()),
      );
      await until('the switch seen', () => ring.current().keyId === described.keyId);
      expect(ring.candidates().map((k) => k.keyId)).to.deep.equal([described.keyId, first.keyId]);
      expect(ring.forNode([first.keyId]).keyId).to.equal(first.keyId);
      expect(ring.forNode([first.keyId, described.keyId]).keyId).to.equal(described.keyId);
      // Idempotent: the switch again changes nothing.
      expect(
        await ds.transaction((manager) =>
          activateControllerKey(manager, 'rotation-1', new Date(Date.now() + 60_000), new Date()),
        ),
      ).to.equal(false);
      expect((await loadGatewayCredentials(ds)).controllerKeys).to.have.length(2);

      expect(await retirePreviousControllerKey(ds, new Date())).to.equal(true);
      await until('the retirement seen', () => ring.candidates().length === 1);
      expect(ring.notice(ring.current()).retiredKeyIds).to.deep.equal([first.keyId]);
      expect(ring.acceptedByFingerprint(first.fingerprint)).to.equal(undefined);
      expect((await loadGatewayCredentials(ds)).controllerKeys.map((k) => k.fingerprint)).to.deep.equal([
        next.fingerprint,
      ]);
      expect(await retirePreviousControllerKey(ds, new Date())).to.equal(false);
    } finally {
      await stop();
    }
  });
});
