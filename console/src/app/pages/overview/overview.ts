import { DatePipe, SlicePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  signal,
  untracked,
} from '@angular/core';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { RouterLink } from '@angular/router';
import { filter, share } from 'rxjs';

import { formatChartValue } from '../../shared/chart/chart-format';
import { TimeSeriesChart } from '../../shared/chart/time-series-chart';
import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { DurationPipe } from '../../shared/format/duration';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { type GraphqlRequestError, TransportErrorCode } from '../../shared/graphql/graphql-error';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { refreshUnreachable } from '../requests/requests-view';
import { Icon } from '../../shared/icon/icon';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { deploymentDetailLink } from '../deployments/deployments-view';
import { formatBytes } from '../nodes/node-rules';
import { changesNodes, nodeDetailLink } from '../nodes/nodes-view';
import { REQUESTS_PATH, TRAFFIC_WINDOWS } from '../requests/requests-view';
import { summarizeDeployments } from './deployment-summary';
import { STALE_HEARTBEAT_SECONDS, summarizeFleet } from './fleet-summary';
import { type QueueSample, addSample, overviewTrafficChart } from './overview-traffic';
import {
  FLEET_CAPACITY,
  OVERVIEW_DEPLOYMENTS,
  OVERVIEW_TRAFFIC,
  DEMO_ALIAS,
  DEMO_TENANT,
  type OverviewNode,
  RECENT_CHANGES,
  RECENT_SYSTEM_CHECKS,
  SYSTEM_HEALTH,
  TRY_IT,
  WORKFLOW_ALERTS,
} from './overview.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

const REFRESH_INTERVAL_MS = 10_000;
const RECENT_CHECKS_LIMIT = 10;
/** The demo appears once, a minute after a start at most; it needs no closer watch. */
const TRY_IT_INTERVAL_MS = 60_000;
/** The Requests view's shortest window: 15 minutes in 30 s buckets. */
const TRAFFIC_WINDOW = TRAFFIC_WINDOWS[0];
/** Listing closed workflows is a Temporal visibility query; failures are rare and need no second-by-second watch. */
const WORKFLOW_ALERTS_INTERVAL_MS = 30_000;
const WORKFLOW_ALERT_HOURS = 24;
const WORKFLOW_ALERT_LIMIT = 10;
const RECENT_CHANGES_LIMIT = 8;
/** More than this many active deployments are counted here and listed in the Deployments view. */
const DEPLOYMENTS_LISTED = 8;

/** Temporal's closing statuses as an operator says them. */
const WORKFLOW_STATUS_WORDS: Readonly<Record<string, string>> = {
  FAILED: 'failed',
  TIMED_OUT: 'timed out',
  TERMINATED: 'was terminated',
};

/**
 * Is the platform up: the API's health with each dependency, traffic through
 * the gateway, the fleet's capacity, active deployments, what needs an
 * operator (nodes and failed workflows), recent changes and the latest
 * end-to-end system checks.
 */
@Component({
  selector: 'lnx-overview',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    ProgressSlot,
    DatePipe,
    SlicePipe,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    RouterLink,
    CopyButton,
    DurationPipe,
    ErrorPanel,
    Icon,
    LivePageHeader,
    QueryFailure,
    QueryProgress,
    StatusBadge,
    TimeSeriesChart,
  ],
  templateUrl: './overview.html',
  styleUrl: './overview.scss',
})
export class Overview {
  private readonly graphql = inject(GraphqlClient);
  /** One correlation id for the whole visit, so every poll of this page is one flow in the logs. */
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly formatBytes = formatBytes;
  protected readonly nodeDetailLink = nodeDetailLink;
  protected readonly deploymentDetailLink = deploymentDetailLink;
  protected readonly formatChartValue = formatChartValue;
  protected readonly requestsPath = REQUESTS_PATH;
  protected readonly trafficSpan = TRAFFIC_WINDOW.span;
  protected readonly workflowAlertHours = WORKFLOW_ALERT_HOURS;
  protected readonly deploymentsListed = DEPLOYMENTS_LISTED;

  /** One subscription for all the page's queries. */
  private readonly events = inject(LiveEvents).events(['audit', 'node']).pipe(share());
  /** Audited actions are what change health-adjacent state and the system checks; heartbeats never do. */
  private readonly auditEvents = this.events.pipe(
    filter((event) => event.kind === 'audit' || event.dropped > 0),
  );

  // Two independent queries: when PostgreSQL is down the health answer is
  // exactly what the operator needs, and must not be lost with the
  // recent-checks query that fails for the same reason.
  protected readonly health = pollQuery(
    (signal) =>
      this.graphql.request(SYSTEM_HEALTH, {}, { flow: this.flow, signal }).then((data) => data.health),
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.auditEvents },
  );

  protected readonly recentChecks = pollQuery(
    (signal) =>
      this.graphql
        .request(RECENT_SYSTEM_CHECKS, { limit: RECENT_CHECKS_LIMIT }, { flow: this.flow, signal })
        .then((data) => data.recentPings),
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.auditEvents },
  );

  protected readonly fleet: PolledQuery<readonly OverviewNode[]> = pollQuery(
    (signal) =>
      this.graphql.request(FLEET_CAPACITY, {}, { flow: this.flow, signal }).then((data) => data.nodes),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: this.events.pipe(filter((event) => changesNodes(event, this.fleet.value()))),
    },
  );

  /** Queue depth at each traffic refresh, for the last window's worth of time. */
  private readonly queueSamples = signal<readonly QueueSample[]>([]);

  protected readonly traffic = pollQuery(
    (signal) =>
      this.graphql
        .request(
          OVERVIEW_TRAFFIC,
          { windowMinutes: TRAFFIC_WINDOW.minutes, bucketSeconds: TRAFFIC_WINDOW.bucketSeconds },
          { flow: this.flow, signal },
        )
        .then((data) => {
          const sample = { at: Date.now(), inFlight: data.traffic.inFlightNow };
          this.queueSamples.update((samples) => addSample(samples, sample, TRAFFIC_WINDOW.minutes * 60_000));
          return data.traffic;
        }),
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.auditEvents },
  );

  protected readonly deployments = pollQuery(
    (signal) =>
      this.graphql
        .request(OVERVIEW_DEPLOYMENTS, {}, { flow: this.flow, signal })
        .then((data) => data.deployments),
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.auditEvents },
  );

  // Its own query: when Temporal is down it fails alone, in the Alerts card, and the rest of the page stays.
  protected readonly workflowAlerts = pollQuery(
    (signal) =>
      this.graphql
        .request(
          WORKFLOW_ALERTS,
          { hours: WORKFLOW_ALERT_HOURS, limit: WORKFLOW_ALERT_LIMIT },
          { flow: this.flow, signal },
        )
        .then((data) => data.workflowAlerts),
    { intervalMs: WORKFLOW_ALERTS_INTERVAL_MS },
  );

  /**
   * The first call a fresh `npm start` leaves ready (the demo alias behind the
   * demo tenant's key), or null. Not one of the page's watched queries: without
   * the demo, or without the right to read tenants, the card is simply absent.
   */
  protected readonly tryIt = pollQuery(
    (signal) =>
      this.graphql.request(TRY_IT, {}, { flow: this.flow, signal }).then((data) =>
        (data.alias?.currentRevision ?? 0) > 0 && data.tenant
          ? {
              alias: DEMO_ALIAS,
              tenant: DEMO_TENANT,
              curl: [
                `curl -N ${data.gatewayEndpoint}/v1/chat/completions \\`,
                `  -H "authorization: Bearer $(cat .data/controller/demo.key)" -H 'content-type: application/json' \\`,
                `  -d '{"model":"${DEMO_ALIAS}","stream":true,"messages":[{"role":"user","content":"Hello!"}]}'`,
              ].join('\n'),
            }
          : null,
      ),
    { intervalMs: TRY_IT_INTERVAL_MS },
  );

  protected readonly recentChanges = pollQuery(
    (signal) =>
      this.graphql
        .request(RECENT_CHANGES, { first: RECENT_CHANGES_LIMIT }, { flow: this.flow, signal })
        .then((data) => data.auditEvents.events),
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.auditEvents },
  );

  protected readonly trafficChart = computed(() => {
    const traffic = this.traffic.value();
    if (traffic === undefined) {
      return undefined;
    }
    const now = this.traffic.updatedAt()?.getTime() ?? Date.now();
    return { traffic, ...overviewTrafficChart(traffic, this.queueSamples(), now) };
  });

  protected readonly deploymentSummary = computed(() => {
    const deployments = this.deployments.value();
    return deployments === undefined ? undefined : summarizeDeployments(deployments);
  });

  /** Node alerts and failed workflows in one list; undefined until either has answered. */
  protected readonly alerts = computed(() => {
    const nodes = this.summary()?.alerts;
    const workflows = this.workflowAlerts.value();
    if (nodes === undefined && workflows === undefined) {
      return undefined;
    }
    return {
      nodes: nodes ?? [],
      workflows: (workflows ?? []).map((alert) => ({
        ...alert,
        message: `${alert.workflowType} ${WORKFLOW_STATUS_WORDS[alert.status] ?? alert.status}`,
      })),
      /** What "no alerts" vouches for: only the sources that answered. */
      none: `None: ${[
        ...(nodes === undefined
          ? []
          : [`every node is approved and has sent a heartbeat within ${STALE_HEARTBEAT_SECONDS} s`]),
        ...(workflows === undefined
          ? []
          : [`no workflow failed, timed out or was terminated in the last ${WORKFLOW_ALERT_HOURS} h`]),
      ].join(', and ')}.`,
    };
  });

  protected readonly summary = computed(() => {
    const nodes = this.fleet.value();
    return nodes === undefined ? undefined : summarizeFleet(nodes);
  });

  private readonly queries: readonly PolledQuery<unknown>[] = [
    this.health,
    this.traffic,
    this.fleet,
    this.workflowAlerts,
    this.deployments,
    this.recentChanges,
    this.recentChecks,
  ];

  /**
   * When the API does not answer, one panel says so instead of one per card.
   * Health is the page's probe: its dependency checks are bounded well below
   * the client's timeout, so its failing unreachable means the API is. Cards
   * keep their last answers meanwhile, without panels of their own.
   */
  protected readonly unreachable = computed(() => {
    const error = this.health.error();
    return error?.code === TransportErrorCode.API_UNREACHABLE ? error : undefined;
  });

  protected readonly refreshing = computed(() => this.queries.some((query) => query.loading()));

  constructor() {
    // The API answers again: cards that failed unreachable ask now rather than at their next poll.
    effect(() => {
      if (this.health.updatedAt() !== undefined) {
        untracked(() => refreshUnreachable(this.queries));
      }
    });
  }

  /** Whether the page-wide panel already says what this card's error would. */
  protected coveredByPagePanel(error: GraphqlRequestError | undefined): boolean {
    return this.unreachable() !== undefined && error?.code === TransportErrorCode.API_UNREACHABLE;
  }

  protected refreshAll(): void {
    for (const query of this.queries) {
      query.refresh();
    }
  }
}
