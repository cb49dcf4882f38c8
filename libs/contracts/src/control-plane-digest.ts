/**
 * The `<dump>.digest` file infra/backup/backup.sh writes beside a
 * control-plane dump (libs/persistence/sql/control-plane-digest.sql, read in
 * the dumped snapshot): `key=value` lines. The CLI's `digest --compare` and
 * the backup test read it with this one parser.
 */
export interface RecordedControlPlaneDigest {
  readonly registry: string;
  readonly desiredState: string;
  readonly auditEvents: number;
  /** Null for an empty chain (backup.sh writes the key with no value). */
  readonly auditHeadHash: string | null;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Parses a `.digest` file; throws an Error naming the first line or key that is not what backup.sh writes. */
export function parseControlPlaneDigestFile(text: string): RecordedControlPlaneDigest {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const equals = line.indexOf('=');
    if (equals < 0) throw new Error(`${JSON.stringify(line)} is not key=value`);
    fields.set(line.slice(0, equals), line.slice(equals + 1));
  }
  const hash = (key: string): string => {
    const value = fields.get(key);
    if (value === undefined || !SHA256_HEX.test(value))
      throw new Error(`${key} must be a sha256 in hex (is it a digest backup.sh wrote?)`);
    return value;
  };
  const events = fields.get('audit_events');
  if (events === undefined || !/^\d{1,15}$/.test(events))
    throw new Error('audit_events must be a whole number');
  const head = fields.get('audit_head_hash');
  if (head === undefined || (head !== '' && !SHA256_HEX.test(head)))
    throw new Error('audit_head_hash must be a sha256 in hex, or empty for an empty chain');
  return {
    registry: hash('registry'),
    desiredState: hash('desired_state'),
    auditEvents: Number(events),
    auditHeadHash: head === '' ? null : head,
  };
}
