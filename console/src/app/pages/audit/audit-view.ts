import type { AuditEventFilter } from '../../shared/graphql/schema-types.generated';

/** `/audit?seq=<n>` opens one event; the list stays the page's main address. */
export const AUDIT_SEQ_PARAM = 'seq';

export const AUDIT_PAGE_SIZE = 50;

export const DECISION_CHOICES = ['', 'allowed', 'denied'] as const;
export type DecisionChoice = (typeof DECISION_CHOICES)[number];

export interface AuditFilterForm {
  readonly action: string;
  readonly actor: string;
  readonly decision: DecisionChoice;
  readonly correlationId: string;
}

export const EMPTY_FILTER: AuditFilterForm = { action: '', actor: '', decision: '', correlationId: '' };

/** Blank fields mean "any"; the API refuses empty strings, so they are left out rather than sent. */
export function toApiFilter(form: AuditFilterForm): AuditEventFilter {
  const action = form.action.trim();
  const actor = form.actor.trim();
  const correlationId = form.correlationId.trim();
  return {
    ...(action ? { action } : {}),
    ...(actor ? { actor } : {}),
    ...(form.decision ? { decision: form.decision } : {}),
    ...(correlationId ? { correlationId } : {}),
  };
}

/** A query parameter that is not a positive integer is no event at all, not event 0 or NaN. */
export function parseSeq(raw: string | null): number | null {
  if (raw === null || !/^[1-9][0-9]{0,15}$/.test(raw)) {
    return null;
  }
  const seq = Number(raw);
  return Number.isSafeInteger(seq) ? seq : null;
}

/** Evidence arrives as compact JSON; an operator reads it indented. Unparseable text is shown as sent. */
export function prettyEvidence(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
