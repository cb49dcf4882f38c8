import { createHash } from 'node:crypto';

/**
 * The hash chain that makes the audit log tamper-evident: each event's hash
 * covers its own content and the previous event's hash, so changing, removing
 * or reordering any row breaks every hash after it.
 */
export const GENESIS_HASH = '0'.repeat(64);

export type AuditDecision = 'allowed' | 'denied' | 'not-applicable';
export type AuditResult = 'succeeded' | 'failed' | 'refused';

/** What a caller supplies; the chain adds seq, prevHash and hash. */
export interface AuditEventDraft {
  readonly id: string;
  readonly occurredAt: string;
  readonly actor: string;
  readonly action: string;
  readonly decision: AuditDecision;
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly result: AuditResult;
  readonly correlationId: string;
  readonly workflowId: string | null;
}

export interface ChainedAuditEvent extends AuditEventDraft {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
}

/** Deterministic JSON for hashing: object keys sorted at every depth. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError('non-finite numbers cannot be hashed');
    }
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      throw new TypeError(`${typeof value} cannot be hashed`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => stableStringify(item)).join(',')}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

function hashedFields(draft: AuditEventDraft): Record<string, unknown> {
  return {
    id: draft.id,
    occurredAt: draft.occurredAt,
    actor: draft.actor,
    action: draft.action,
    decision: draft.decision,
    evidence: draft.evidence,
    result: draft.result,
    correlationId: draft.correlationId,
    workflowId: draft.workflowId,
  };
}

export function computeEventHash(seq: number, prevHash: string, draft: AuditEventDraft): string {
  const material = stableStringify({ seq, prevHash, ...hashedFields(draft) });
  return createHash('sha256').update(material).digest('hex');
}

/**
 * The hashed material of an event with its two chain positions left open:
 * `head + JSON.stringify(prevHash) + middle + String(seq) + tail` is exactly
 * what computeEventHash hashes. It lets PostgreSQL link an event into the
 * chain at commit (the trigger of audit_pending) without JSON of its own,
 * whose key order and spacing would differ from stableStringify's.
 */
export interface ChainMaterialParts {
  readonly head: string;
  readonly middle: string;
  readonly tail: string;
}

export function chainMaterialParts(draft: AuditEventDraft): ChainMaterialParts {
  const entries = Object.entries({ ...hashedFields(draft), prevHash: null, seq: null })
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => {
      const prefix = `${JSON.stringify(key)}:`;
      return key === 'prevHash' || key === 'seq'
        ? { key, text: prefix }
        : { key, text: prefix + stableStringify(value) };
    });
  const prev = entries.findIndex((e) => e.key === 'prevHash');
  const seq = entries.findIndex((e) => e.key === 'seq');
  if (prev < 0 || seq <= prev) throw new Error('prevHash must sort before seq');
  const join = (from: number, to: number) =>
    entries
      .slice(from, to)
      .map((e) => e.text)
      .join(',');
  const head = `{${join(0, prev + 1)}`;
  const middle = `,${join(prev + 1, seq + 1)}`;
  const afterSeq = join(seq + 1, entries.length);
  const tail = `${afterSeq ? `,${afterSeq}` : ''}}`;
  return { head, middle, tail };
}

export function chainEvent(
  previous: { seq: number; hash: string } | null,
  draft: AuditEventDraft,
): ChainedAuditEvent {
  const seq = previous ? previous.seq + 1 : 1;
  const prevHash = previous ? previous.hash : GENESIS_HASH;
  return { ...draft, seq, prevHash, hash: computeEventHash(seq, prevHash, draft) };
}

export interface ChainVerification {
  readonly valid: boolean;
  readonly checked: number;
  /** First event whose link or content does not verify, when invalid. */
  readonly brokenAt?: {
    readonly seq: number;
    readonly reason: 'hash-mismatch' | 'link-mismatch' | 'sequence-gap';
  };
}

/**
 * Verifies a contiguous run of events. `anchor` is the event just before the
 * run (null when the run starts at the beginning of the chain).
 */
export function verifyChain(
  events: readonly ChainedAuditEvent[],
  anchor: { seq: number; hash: string } | null = null,
): ChainVerification {
  let previous = anchor;
  let checked = 0;
  for (const event of events) {
    const expectedSeq = previous ? previous.seq + 1 : 1;
    if (event.seq !== expectedSeq) {
      return { valid: false, checked, brokenAt: { seq: event.seq, reason: 'sequence-gap' } };
    }
    const expectedPrev = previous ? previous.hash : GENESIS_HASH;
    if (event.prevHash !== expectedPrev) {
      return { valid: false, checked, brokenAt: { seq: event.seq, reason: 'link-mismatch' } };
    }
    if (computeEventHash(event.seq, event.prevHash, event) !== event.hash) {
      return { valid: false, checked, brokenAt: { seq: event.seq, reason: 'hash-mismatch' } };
    }
    previous = event;
    checked += 1;
  }
  return { valid: true, checked };
}
