import type { ParamMap, Params } from '@angular/router';
import type { DeploymentState, WorkloadState } from '@lunanexa/contracts/lifecycle';

import { TransportErrorCode } from '../../shared/graphql/graphql-error';
import type { PolledQuery } from '../../shared/graphql/polled-query';
import type { RequestRecordFilter } from '@lunanexa/sdk/generated/graphql';

/** The view's address; `?requestId=…` and the other filter parameters below narrow it. */
export const REQUESTS_PATH = '/requests';

/** Query parameters the view reads (the global search links to `?requestId=…`) and writes when filtering. */
export const REQUESTS_PARAM = {
  window: 'window',
  deployment: 'deployment',
  outcome: 'outcome',
  errorsOnly: 'errorsOnly',
  requestId: 'requestId',
  correlationId: 'correlationId',
} as const;

/** Traffic changes by the second, so the view reads it more often than the fleet views read theirs. */
export const REFRESH_INTERVAL_MS = 5_000;

export const REQUEST_PAGE_SIZE = 50;

export interface TrafficWindow {
  /** The `?window=` value. */
  readonly key: string;
  /** The selector's text. */
  readonly label: string;
  readonly minutes: number;
  readonly bucketSeconds: number;
  /** Completes "… over the last": chart names and the empty message. */
  readonly span: string;
}

/** Each window keeps the series near 30–100 points: readable at 390 px, detailed at 1440 px. */
export const TRAFFIC_WINDOWS: readonly [TrafficWindow, ...TrafficWindow[]] = [
  { key: '15m', label: '15 min', minutes: 15, bucketSeconds: 30, span: '15 minutes' },
  { key: '1h', label: '1 h', minutes: 60, bucketSeconds: 60, span: 'hour' },
  { key: '6h', label: '6 h', minutes: 360, bucketSeconds: 300, span: '6 hours' },
  { key: '24h', label: '24 h', minutes: 1440, bucketSeconds: 900, span: '24 hours' },
];

export function trafficWindow(key: string | null): TrafficWindow {
  return TRAFFIC_WINDOWS.find((window) => window.key === key) ?? TRAFFIC_WINDOWS[0];
}

/**
 * How a request ended, as the gateway records it (`RequestRecord.outcome`).
 * Typed against the contracts' workload states (type-only: no zod in the
 * bundle), so a renamed state fails the build here.
 */
export const OUTCOME_CHOICES = [
  'Completed',
  'Failed',
  'Rejected',
  'TimedOut',
  'Cancelled',
] as const satisfies readonly WorkloadState[];

/** What narrows the request list; blank means "any". The deployment also scopes the charts. */
export interface RequestFilter {
  readonly deployment: string;
  readonly outcome: string;
  readonly errorsOnly: boolean;
  readonly requestId: string;
  readonly correlationId: string;
}

export const EMPTY_REQUEST_FILTER: RequestFilter = {
  deployment: '',
  outcome: '',
  errorsOnly: false,
  requestId: '',
  correlationId: '',
};

export function filterFromParams(params: ParamMap): RequestFilter {
  const text = (name: string): string => params.get(name)?.trim() ?? '';
  return {
    deployment: text(REQUESTS_PARAM.deployment),
    outcome: text(REQUESTS_PARAM.outcome),
    errorsOnly: params.get(REQUESTS_PARAM.errorsOnly) === 'true',
    requestId: text(REQUESTS_PARAM.requestId),
    correlationId: text(REQUESTS_PARAM.correlationId),
  };
}

/** Query parameters for a filter; null removes a parameter, so blank fields leave no trace in the URL. */
export function filterToParams(filter: RequestFilter): Params {
  const text = (value: string): string | null => value.trim() || null;
  return {
    [REQUESTS_PARAM.deployment]: text(filter.deployment),
    [REQUESTS_PARAM.outcome]: text(filter.outcome),
    [REQUESTS_PARAM.errorsOnly]: filter.errorsOnly ? 'true' : null,
    [REQUESTS_PARAM.requestId]: text(filter.requestId),
    [REQUESTS_PARAM.correlationId]: text(filter.correlationId),
  };
}

/** The API refuses nothing blank, but leaving blank fields out keeps the request honest about what it asks. */
export function toApiFilter(filter: RequestFilter): RequestRecordFilter {
  return {
    ...(filter.deployment ? { deployment: filter.deployment } : {}),
    ...(filter.outcome ? { outcome: filter.outcome } : {}),
    ...(filter.errorsOnly ? { errorsOnly: true } : {}),
    ...(filter.requestId ? { requestId: filter.requestId } : {}),
    ...(filter.correlationId ? { correlationId: filter.correlationId } : {}),
  };
}

/** Whether the list shows only part of the requests (so an empty page means "none match", not "none yet"). */
export function isFiltered(filter: RequestFilter): boolean {
  return Object.keys(toApiFilter(filter)).length > 0;
}

/** Query parameters of a link to one request in the list: `/requests?requestId=<id>`. */
export function requestLinkParams(requestId: string): Params {
  return { [REQUESTS_PARAM.requestId]: requestId };
}

/**
 * Deployment states that take requests: Ready, and Degraded (some replicas
 * down, the rest serving). Typed against the contracts' states (type-only).
 */
const SERVING_STATES: ReadonlySet<string> = new Set<DeploymentState>(['Ready', 'Degraded']);

/** Whether the playground can send to a deployment: it serves, with at least one Ready replica. */
export function takesRequests(deployment: {
  readonly state: string;
  readonly readyReplicas: number;
}): boolean {
  return SERVING_STATES.has(deployment.state) && deployment.readyReplicas > 0;
}

/**
 * After the page's probe query answers again, the queries still showing an
 * unreachable API reload at once instead of at their next poll, so the page
 * recovers as a whole. Shared by the Requests view and the Overview.
 */
export function refreshUnreachable(queries: readonly PolledQuery<unknown>[]): void {
  for (const query of queries) {
    if (query.error()?.code === TransportErrorCode.API_UNREACHABLE && !query.loading()) {
      query.refresh();
    }
  }
}
