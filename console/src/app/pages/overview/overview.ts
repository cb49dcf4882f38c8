import { DatePipe, SlicePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatProgressBar } from '@angular/material/progress-bar';
import { RouterLink } from '@angular/router';
import { filter, share } from 'rxjs';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { DurationPipe } from '../../shared/format/duration';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { TransportErrorCode } from '../../shared/graphql/graphql-error';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { LiveStatus } from '../../shared/live-status/live-status';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { formatBytes } from '../nodes/node-rules';
import { changesNodes, nodeDetailLink } from '../nodes/nodes-view';
import { STALE_HEARTBEAT_SECONDS, summarizeFleet } from './fleet-summary';
import { FLEET_CAPACITY, type OverviewNode, RECENT_SYSTEM_CHECKS, SYSTEM_HEALTH } from './overview.queries';

const REFRESH_INTERVAL_MS = 10_000;
const RECENT_CHECKS_LIMIT = 10;

/**
 * Is the platform up: the API's health with each dependency, the fleet's
 * capacity and what needs an operator, and the latest end-to-end system checks.
 */
@Component({
  selector: 'lnx-overview',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    DatePipe,
    SlicePipe,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatProgressBar,
    RouterLink,
    CopyButton,
    DurationPipe,
    ErrorPanel,
    Icon,
    LiveStatus,
    StatusBadge,
  ],
  templateUrl: './overview.html',
  styleUrl: './overview.scss',
})
export class Overview {
  private readonly graphql = inject(GraphqlClient);
  /** One correlation id for the whole visit, so every poll of this page is one flow in the logs. */
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly staleHeartbeatSeconds = STALE_HEARTBEAT_SECONDS;
  protected readonly formatBytes = formatBytes;
  protected readonly nodeDetailLink = nodeDetailLink;

  /** One subscription for the page's three queries. */
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

  protected readonly summary = computed(() => {
    const nodes = this.fleet.value();
    return nodes === undefined ? undefined : summarizeFleet(nodes);
  });

  /** When no query gets through, one panel says so instead of three identical ones. */
  protected readonly unreachable = computed(() => {
    const errors = [this.health.error(), this.fleet.error(), this.recentChecks.error()];
    return errors.every((error) => error?.code === TransportErrorCode.API_UNREACHABLE)
      ? errors[0]
      : undefined;
  });

  protected readonly refreshing = computed(
    () => this.health.loading() || this.fleet.loading() || this.recentChecks.loading(),
  );

  protected refreshAll(): void {
    this.health.refresh();
    this.fleet.refresh();
    this.recentChecks.refresh();
  }
}
