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

import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { DurationPipe } from '../../shared/format/duration';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { TransportErrorCode } from '../../shared/graphql/graphql-error';
import { pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { RECENT_SYSTEM_CHECKS, SYSTEM_HEALTH } from './overview.queries';

const REFRESH_INTERVAL_MS = 10_000;
const RECENT_CHECKS_LIMIT = 10;

/** Is the platform up: the API's health with each dependency, and the latest end-to-end system checks. */
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
    CopyButton,
    DurationPipe,
    ErrorPanel,
    Icon,
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

  // Two independent queries: when PostgreSQL is down the health answer is
  // exactly what the operator needs, and must not be lost with the
  // recent-checks query that fails for the same reason.
  protected readonly health = pollQuery(
    (signal) =>
      this.graphql.request(SYSTEM_HEALTH, {}, { flow: this.flow, signal }).then((data) => data.health),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  protected readonly recentChecks = pollQuery(
    (signal) =>
      this.graphql
        .request(RECENT_SYSTEM_CHECKS, { limit: RECENT_CHECKS_LIMIT }, { flow: this.flow, signal })
        .then((data) => data.recentPings),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  /** When neither query gets through, one panel says so instead of two identical ones. */
  protected readonly unreachable = computed(() => {
    const healthError = this.health.error();
    const checksError = this.recentChecks.error();
    return healthError?.code === TransportErrorCode.API_UNREACHABLE &&
      checksError?.code === TransportErrorCode.API_UNREACHABLE
      ? healthError
      : undefined;
  });

  protected readonly refreshing = computed(() => this.health.loading() || this.recentChecks.loading());

  protected refreshAll(): void {
    this.health.refresh();
    this.recentChecks.refresh();
  }
}
