import type { ParamMap, Params } from '@angular/router';

import type { AuditEventFilter } from '@lunanexa/sdk/generated/graphql';

/** `/audit?seq=<n>` opens one event; the list stays the page's main address. */
export const AUDIT_SEQ_PARAM = 'seq';

export const AUDIT_PAGE_SIZE = 50;

export const DECISION_CHOICES = ['', 'allowed', 'denied'] as const;
export type DecisionChoice = (typeof DECISION_CHOICES)[number];

/**
 * The list's filters. Each is also a query parameter of the same name
 * (`/audit?correlationId=…`, `/audit?workflowId=…`), so a link or the search
 * box can open the list already filtered.
 */
export interface AuditFilterForm {
  readonly action: string;
  readonly actor: string;
  readonly decision: DecisionChoice;
  readonly correlationId: string;
  readonly workflowId: string;
}

const FILTER_FIELDS = [
  'action',
  'actor',
  'decision',
  'correlationId',
  'workflowId',
] as const satisfies readonly (keyof AuditFilterForm)[];

export const EMPTY_FILTER: AuditFilterForm = {
  action: '',
  actor: '',
  decision: '',
  correlationId: '',
  workflowId: '',
};

export function toDecision(raw: string | null): DecisionChoice {
  return DECISION_CHOICES.find((choice) => choice === raw) ?? '';
}

/** Blank fields mean "any"; the API refuses empty strings, so they are left out rather than sent. */
export function toApiFilter(form: AuditFilterForm): AuditEventFilter {
  const action = form.action.trim();
  const actor = form.actor.trim();
  const correlationId = form.correlationId.trim();
  const workflowId = form.workflowId.trim();
  return {
    ...(action ? { action } : {}),
    ...(actor ? { actor } : {}),
    ...(form.decision ? { decision: form.decision } : {}),
    ...(correlationId ? { correlationId } : {}),
    ...(workflowId ? { workflowId } : {}),
  };
}

/** The filters a URL's query parameters ask for; a missing or unknown value means "any". */
export function filterFromParams(params: Pick<ParamMap, 'get'>): AuditFilterForm {
  const text = (name: keyof AuditFilterForm): string => params.get(name)?.trim() ?? '';
  return {
    action: text('action'),
    actor: text('actor'),
    decision: toDecision(params.get('decision')),
    correlationId: text('correlationId'),
    workflowId: text('workflowId'),
  };
}

/** Query parameters for `filter`. Blank fields are null so that merging them into the URL removes them. */
export function filterParams(filter: AuditFilterForm): Params {
  return Object.fromEntries(FILTER_FIELDS.map((field) => [field, filter[field].trim() || null]));
}

/** Whether two filters select the same events (surrounding blanks do not count). */
export function sameFilter(a: AuditFilterForm, b: AuditFilterForm): boolean {
  return FILTER_FIELDS.every((field) => a[field].trim() === b[field].trim());
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
