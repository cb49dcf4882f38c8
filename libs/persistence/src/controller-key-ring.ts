import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  ed25519KeyId,
  generateEd25519PrivateKey,
  openSshPublicKey,
  sshFingerprint,
} from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  acceptedKeys,
  ringNotice,
  signingKey,
  signingKeyForNode,
  type ControllerKeyState,
  type RingKeyRecord,
  type RingNotice,
} from '@lunanexa/domain';
import { Client } from 'pg';
import { ControllerKeyError, keyFingerprint, type ControllerKey } from './controller-key';
import type { Queryable } from './fleet';
import { GATEWAY_CREDENTIALS_CHANNEL } from './gateway-credentials';
import { listenTo } from './pg-pool';

// ---------------------------------------------------------------------------
// Rows (migration 1769100000000)

/** One controller key as the ring's table holds it. */
export interface ControllerKeyRow extends RingKeyRecord {
  /** base64url(sha256(raw key)): the session token `kid`, and the key file's name in the ring directory. */
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly stateChangedAt: Date | null;
}

type Raw = Record<string, unknown>;

function toRow(raw: Raw): ControllerKeyRow {
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));
  return {
    fingerprint: raw['fingerprint'] as string,
    publicKeyPem: raw['public_key'] as string,
    keyId: raw['key_id'] as string,
    sshFingerprint: raw['ssh_fingerprint'] as string,
    publicKey: raw['openssh_public_key'] as string,
    state: raw['state'] as ControllerKeyState,
    rotationId: (raw['rotation_id'] as string | null) ?? null,
    acceptUntil: date(raw['accept_until']),
    stateChangedAt: date(raw['state_changed_at']),
  };
}

/** The ring, oldest state change first; keys no process has described yet (pre-ring rows) are left out. */
export async function listControllerKeys(q: Queryable): Promise<ControllerKeyRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT fingerprint, public_key, key_id, ssh_fingerprint, openssh_public_key, state, rotation_id,
            accept_until, state_changed_at
       FROM controller_keys
      WHERE key_id IS NOT NULL
      ORDER BY state_changed_at NULLS FIRST, first_seen_at, fingerprint`,
  );
  return rows.map(toRow);
}

/** What a process knows of a key it holds, to describe it in the ring. */
export interface ControllerKeyDescription {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly keyId: string;
  readonly sshFingerprint: string;
  readonly publicKey: string;
}

export function describeControllerKey(publicKey: KeyObject): ControllerKeyDescription {
  return {
    fingerprint: keyFingerprint(publicKey),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: ed25519KeyId(publicKey),
    sshFingerprint: sshFingerprint(publicKey),
    publicKey: openSshPublicKey(publicKey),
  };
}

/**
 * Records the key a process started with. A ring without a live key (a new
 * installation) makes it current; a key already in the ring is only described
 * (ids filled in, last sighting noted). Any other key is not recorded at all:
 * starting with a key never makes it sign instead of the ring's current one
 * (ControllerKeyRing.open then refuses the process). Two processes starting
 * together on an empty ring race on the one-current index; the loser's insert
 * fails with 23505 and changes nothing.
 */
export async function recordControllerKey(
  q: Queryable,
  key: ControllerKeyDescription,
  at: Date,
): Promise<void> {
  await q.query(
    `UPDATE controller_keys
        SET last_seen_at = $3, key_id = $4, ssh_fingerprint = $5, openssh_public_key = $6
      WHERE fingerprint = $1 AND public_key = $2`,
    [key.fingerprint, key.publicKeyPem, at, key.keyId, key.sshFingerprint, key.publicKey],
  );
  try {
    await q.query(
      `INSERT INTO controller_keys (fingerprint, public_key, first_seen_at, last_seen_at, key_id, ssh_fingerprint,
                                    openssh_public_key, state, state_changed_at)
       SELECT $1, $2, $3, $3, $4, $5, $6, 'current', $3
        WHERE NOT EXISTS (SELECT 1 FROM controller_keys WHERE state <> 'retired')
       ON CONFLICT (fingerprint) DO UPDATE SET state = 'current', state_changed_at = EXCLUDED.state_changed_at
        WHERE controller_keys.public_key = EXCLUDED.public_key`,
      [key.fingerprint, key.publicKeyPem, at, key.keyId, key.sshFingerprint, key.publicKey],
    );
  } catch (error) {
    const code =
      (error as { code?: string; driverError?: { code?: string } }).driverError?.code ??
      (error as { code?: string }).code;
    if (code !== '23505') throw error;
  }
}

/** Announces `key` as the ring's next key (rotation `rotationId`); a retry of the same rotation changes nothing. */
export async function announceControllerKey(
  q: Queryable,
  key: ControllerKeyDescription,
  rotationId: string,
  at: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO controller_keys (fingerprint, public_key, first_seen_at, last_seen_at, key_id, ssh_fingerprint,
                                  openssh_public_key, state, rotation_id, state_changed_at)
     VALUES ($1, $2, $3, $3, $4, $5, $6, 'next', $7, $3)
     ON CONFLICT (fingerprint) DO NOTHING`,
    [key.fingerprint, key.publicKeyPem, at, key.keyId, key.sshFingerprint, key.publicKey, rotationId],
  );
}

/**
 * The switch: the current key becomes `previous` (accepted until
 * `acceptUntil`), rotation `rotationId`'s next key becomes current. Run in a
 * transaction; true when it switched now, false when it had already.
 */
export async function activateControllerKey(
  q: Queryable,
  rotationId: string,
  acceptUntil: Date,
  at: Date,
): Promise<boolean> {
  const next = await q.query<Raw[]>(
    `SELECT fingerprint FROM controller_keys WHERE state = 'next' AND rotation_id = $1 FOR UPDATE`,
    [rotationId],
  );
  if (next.length === 0) return false;
  await q.query(
    `UPDATE controller_keys SET state = 'previous', accept_until = $1, state_changed_at = $2 WHERE state = 'current'`,
    [acceptUntil, at],
  );
  await q.query(
    `UPDATE controller_keys SET state = 'current', state_changed_at = $2 WHERE state = 'next' AND rotation_id = $1`,
    [rotationId, at],
  );
  return true;
}

/** The end of the overlap: the previous key is retired. True when it retired one now. */
export async function retirePreviousControllerKey(q: Queryable, at: Date): Promise<boolean> {
  // Through a CTE: TypeORM answers a bare UPDATE … RETURNING with [rows, count], not the rows.
  const rows = await q.query<Raw[]>(
    `WITH retired AS (
       UPDATE controller_keys SET state = 'retired', accept_until = NULL, state_changed_at = $1
        WHERE state = 'previous' RETURNING fingerprint)
     SELECT fingerprint FROM retired`,
    [at],
  );
  return rows.length > 0;
}

// ---------------------------------------------------------------------------
// Private keys: the file the controller started with, and the ring directory beside it

/** Where rotated-in private keys live: `<dir of the controller key file>/ring/<fingerprint>.pem`, mode 0600. */
export function controllerKeyRingDir(controllerKeyFile: string): string {
  return join(dirname(controllerKeyFile), 'ring');
}

function readPrivateKey(file: string): KeyObject {
  const mode = statSync(file).mode;
  if ((mode & 0o077) !== 0) {
    throw new ControllerKeyError(
      `controller key ${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${file}`,
    );
  }
  const key = createPrivateKey({ key: readFileSync(file, 'utf8'), format: 'pem' });
  if (key.asymmetricKeyType !== 'ed25519')
    throw new ControllerKeyError(`controller key ${file} is not Ed25519`);
  return key;
}

/**
 * Generates the next controller key into the ring directory (temporary file
 * linked into place, as the first key is) and returns it. Every host that
 * runs an api or worker process needs the file before the switch; one host
 * (or a shared data directory) needs nothing more.
 */
export function createRingKey(controllerKeyFile: string): ControllerKey {
  const dir = controllerKeyRingDir(controllerKeyFile);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const privateKey = generateEd25519PrivateKey();
  const publicKey = createPublicKey(privateKey);
  const fingerprint = keyFingerprint(publicKey);
  const file = join(dir, `${fingerprint}.pem`);
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, file);
  } finally {
    unlinkSync(temporary);
  }
  return { privateKey, publicKey, fingerprint, file };
}

// ---------------------------------------------------------------------------
// The ring a process signs with

/** A ring key whose private half this process holds: a ControllerKey, with its envelope key id and its ring row. */
export interface HeldRingKey extends ControllerKey {
  readonly keyId: string;
  readonly record: ControllerKeyRow;
}

/** What an envelope signer needs: the key's id and its private half. */
export interface RingSigningIdentity {
  readonly privateKey: KeyObject;
  readonly keyId: string;
}

/**
 * The controller key ring as one api or worker process holds it: the ring's
 * rows from PostgreSQL and the private keys from the key file and the ring
 * directory. `reload()` re-reads both; processes call it when the ring's
 * NOTIFY arrives (and on reconnect), so a switch reaches every process
 * without anyone polling the table.
 */
export class ControllerKeyRing {
  private rows: ControllerKeyRow[] = [];
  private held = new Map<string, HeldRingKey>();
  /** Notices by signer key id, for the rows loaded now: every heartbeat ack carries one. */
  private notices = new Map<string, RingNotice>();

  private constructor(
    private readonly q: Queryable,
    private readonly fileKey: ControllerKey,
  ) {}

  /**
   * Records the file key (current on a new installation), then loads the
   * ring. Refuses (INVALID_CONFIG) when this host lacks the current key's
   * private half: it could sign nothing any agent accepts.
   */
  static async open(q: Queryable, fileKey: ControllerKey, at = new Date()): Promise<ControllerKeyRing> {
    await recordControllerKey(q, describeControllerKey(fileKey.publicKey), at);
    const ring = new ControllerKeyRing(q, fileKey);
    await ring.reload();
    return ring;
  }

  /** Re-reads the ring and the private keys of its live states. Keeps the old view if the new one cannot sign. */
  async reload(): Promise<void> {
    const rows = await listControllerKeys(this.q);
    const held = new Map<string, HeldRingKey>();
    const dir = controllerKeyRingDir(this.fileKey.file);
    for (const row of rows) {
      if (row.state === 'retired') continue;
      let privateKey: KeyObject | undefined;
      let file = this.fileKey.file;
      if (row.fingerprint === this.fileKey.fingerprint) {
        privateKey = this.fileKey.privateKey;
      } else {
        file = join(dir, `${row.fingerprint}.pem`);
        try {
          privateKey = readPrivateKey(file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      if (privateKey === undefined) continue;
      const publicKey = createPublicKey(privateKey);
      if (keyFingerprint(publicKey) !== row.fingerprint) {
        throw new ControllerKeyError(`${file} does not hold controller key ${row.fingerprint}`);
      }
      held.set(row.fingerprint, {
        privateKey,
        publicKey,
        fingerprint: row.fingerprint,
        file,
        keyId: row.keyId,
        record: row,
      });
    }
    const current = signingKey(rows) as ControllerKeyRow;
    if (!held.has(current.fingerprint)) {
      throw new LunaNexaError(
        ErrorCode.INVALID_CONFIG,
        `this host does not hold the private key of the current controller key ${current.sshFingerprint}: ` +
          `copy ${join(dir, `${current.fingerprint}.pem`)} from the host that rotated it (mode 0600)`,
      );
    }
    this.rows = rows;
    this.held = held;
    this.notices = new Map();
  }

  /** The ring's records (every state), oldest change first. */
  records(): readonly ControllerKeyRow[] {
    return this.rows;
  }

  /** Whether this process holds the private half of `fingerprint` (the switch waits until the worker does). */
  holds(fingerprint: string): boolean {
    return this.held.has(fingerprint);
  }

  private heldOf(record: RingKeyRecord): HeldRingKey {
    const key = this.held.get((record as ControllerKeyRow).fingerprint);
    if (key === undefined) throw new LunaNexaError(ErrorCode.INTERNAL, `no private key for ${record.keyId}`);
    return key;
  }

  /** A live (not retired) key by its envelope key id, when this process holds its private half. */
  heldByKeyId(keyId: string): HeldRingKey | undefined {
    for (const key of this.held.values()) if (key.keyId === keyId) return key;
    return undefined;
  }

  /** The key that signs now. */
  current(): HeldRingKey {
    return this.heldOf(signingKey(this.rows));
  }

  /** The key to sign a node's answers with, given the key ids its heartbeat reported (see signingKeyForNode). */
  forNode(trustedKeyIds: readonly string[] | null | undefined): HeldRingKey {
    const chosen = signingKeyForNode(this.rows, trustedKeyIds);
    return this.held.has((chosen as ControllerKeyRow).fingerprint) ? this.heldOf(chosen) : this.current();
  }

  /**
   * The keys to offer a node over SSH, in order: the current key, then during
   * the overlap the previous one (for a node that has not added the current
   * key yet). The notice each signs with is `notice(identity)`.
   */
  candidates(): HeldRingKey[] {
    const previous = this.rows.find((row) => row.state === 'previous');
    const keys = [this.current()];
    if (previous !== undefined && this.held.has(previous.fingerprint)) keys.push(this.heldOf(previous));
    return keys;
  }

  /** The ring notice an envelope signed by `signer` carries. */
  notice(signer: { readonly keyId: string }): RingNotice {
    let notice = this.notices.get(signer.keyId);
    if (notice === undefined) {
      const record = this.rows.find((row) => row.keyId === signer.keyId) ?? signingKey(this.rows);
      notice = ringNotice(this.rows, record);
      this.notices.set(signer.keyId, notice);
    }
    return notice;
  }

  /** A live key by its session token `kid` (base64url fingerprint), for verifying what the controller signed. */
  acceptedByFingerprint(fingerprint: string): { publicKey: KeyObject; fingerprint: string } | undefined {
    const held = this.held.get(fingerprint);
    if (held !== undefined) return held;
    const row = (acceptedKeys(this.rows) as ControllerKeyRow[]).find(
      (key) => key.fingerprint === fingerprint,
    );
    return row === undefined ? undefined : { publicKey: createPublicKey(row.publicKeyPem), fingerprint };
  }

  /**
   * The current key as an always-current signing identity: its getters read
   * the ring at each use, so what was handed to a signer at start signs with
   * the new key after a switch.
   */
  get signingIdentity(): RingSigningIdentity {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const ring = this;
    return {
      get privateKey() {
        return ring.current().privateKey;
      },
      get keyId() {
        return ring.current().keyId;
      },
    };
  }
}

/** What the ring watcher logs. */
export interface RingWatchLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

const RING_LISTEN_RETRY_MS = 1000;

/**
 * Keeps `ring` current: LISTENs on the credentials channel (the ring's table
 * notifies it on every state change) and reloads on a `controller_keys`
 * notice, and after every reconnect (a switch may have happened while the
 * connection was down). Returns the function that stops it.
 */
export function watchControllerKeyRing(
  ring: ControllerKeyRing,
  databaseUrl: string,
  applicationName: string,
  logger: RingWatchLogger,
): () => Promise<void> {
  let stopped = false;
  let client: Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const reload = (why: string) =>
    ring.reload().then(
      () => logger.info({ why, signingKeyId: ring.current().keyId }, 'controller key ring reloaded'),
      (error: unknown) =>
        logger.warn({ err: error, why }, 'controller key ring not reloaded; keeping the last view'),
    );
  const connect = async (first: boolean): Promise<void> => {
    if (stopped) return;
    const next = new Client({ connectionString: databaseUrl, application_name: applicationName });
    client = next;
    const retry = () => {
      if (client !== next) return;
      client = undefined;
      next.removeAllListeners();
      void next.end().catch(() => undefined);
      if (stopped) return;
      timer = setTimeout(() => void connect(false), RING_LISTEN_RETRY_MS);
      timer.unref();
    };
    next.on('error', (error) => {
      logger.warn({ err: error }, 'controller key ring listener lost; reconnecting');
      retry();
    });
    next.on('end', retry);
    next.on('notification', (message) => {
      if (message.payload === 'controller_keys') void reload('notified');
    });
    try {
      await next.connect();
      await listenTo(next, GATEWAY_CREDENTIALS_CHANNEL);
      await reload(first ? 'listening' : 'reconnected');
    } catch (error) {
      logger.warn({ err: error }, 'controller key ring listener could not connect; retrying');
      retry();
    }
  };
  void connect(true);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const open = client;
    client = undefined;
    open?.removeAllListeners();
    await open?.end().catch(() => undefined);
  };
}
