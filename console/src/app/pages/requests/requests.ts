import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  Injector,
  afterNextRender,
  computed,
  effect,
  inject,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import { MatButtonToggle, MatButtonToggleGroup } from '@angular/material/button-toggle';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatCheckbox } from '@angular/material/checkbox';
import { MatFormField, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import { ActivatedRoute, type Params, Router, RouterLink } from '@angular/router';
import { filter, share } from 'rxjs';

import { TimeSeriesChart } from '../../shared/chart/time-series-chart';
import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { DurationPipe } from '../../shared/format/duration';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { TransportErrorCode } from '../../shared/graphql/graphql-error';
import { LiveEvents } from '../../shared/graphql/live-events';
import { pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { Playground } from './playground';
import {
  EMPTY_REQUEST_FILTER,
  OUTCOME_CHOICES,
  REFRESH_INTERVAL_MS,
  REQUESTS_PARAM,
  REQUEST_PAGE_SIZE,
  type RequestFilter,
  TRAFFIC_WINDOWS,
  type TrafficWindow,
  filterFromParams,
  filterToParams,
  isFiltered,
  refreshUnreachable,
  toApiFilter,
  trafficWindow,
} from './requests-view';
import { REQUESTS_DEPLOYMENTS, REQUESTS_TRAFFIC, REQUEST_RECORDS } from './requests.queries';
import { deploymentTrafficRows, errorRate, formatPercent, trafficCharts } from './traffic-series';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** Deployments change by operator action (audited) or by replicas becoming ready, which polling sees. */
const DEPLOYMENTS_REFRESH_INTERVAL_MS = 10_000;

function sameFilter(a: RequestFilter, b: RequestFilter): boolean {
  return (
    a.deployment === b.deployment &&
    a.outcome === b.outcome &&
    a.errorsOnly === b.errorsOnly &&
    a.requestId === b.requestId &&
    a.correlationId === b.correlationId
  );
}

/** Runs `act` each time what `read` reads changes, but not for the first value (the page's first load does that). */
function onChange(read: () => unknown, act: () => void): void {
  let first = true;
  effect(() => {
    read();
    if (first) {
      first = false;
      return;
    }
    untracked(act);
  });
}

/**
 * What the gateway served: request rate, errors, latency and time to first
 * token over a window, the same per deployment, and the requests themselves
 * (ids, outcome, timings; never prompts or replies), with a playground to
 * send one. Filters live in the URL, so the global search and other views
 * link straight to a request (`/requests?requestId=…`).
 */
@Component({
  selector: 'lnx-requests',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    ProgressSlot,
    DatePipe,
    ReactiveFormsModule,
    RouterLink,
    MatButton,
    MatButtonToggle,
    MatButtonToggleGroup,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatCheckbox,
    MatFormField,
    MatInput,
    MatLabel,
    MatOption,
    MatSelect,
    TimeSeriesChart,
    CopyButton,
    DurationPipe,
    ErrorPanel,
    Icon,
    LivePageHeader,
    Playground,
    QueryFailure,
    QueryProgress,
    StatusBadge,
  ],
  templateUrl: './requests.html',
  styleUrl: './requests.scss',
})
export class Requests {
  private readonly graphql = inject(GraphqlClient);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly injector = inject(Injector);
  /** One correlation id for the whole visit, so every poll of this page is one flow in the logs. */
  private readonly flow = this.graphql.startFlow();
  private readonly playground = viewChild(Playground);
  private readonly listHeading = viewChild<ElementRef<HTMLElement>>('listHeading');

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly pageSize = REQUEST_PAGE_SIZE;
  protected readonly windows = TRAFFIC_WINDOWS;
  protected readonly outcomeChoices = OUTCOME_CHOICES;
  protected readonly formatPercent = formatPercent;
  protected readonly errorRate = errorRate;
  protected readonly auditPath = '/audit';

  private readonly params = toSignal(this.route.queryParamMap, { requireSync: true });
  protected readonly window = computed(() => trafficWindow(this.params().get(REQUESTS_PARAM.window)));
  protected readonly filter = computed(() => filterFromParams(this.params()), { equal: sameFilter });
  /** What the traffic query depends on; the list's filters do not change it. */
  private readonly trafficScope = computed(
    () => ({ window: this.window(), deployment: this.filter().deployment }),
    { equal: (a, b) => a.window === b.window && a.deployment === b.deployment },
  );
  private readonly linkedRequestId = computed(() => this.filter().requestId);

  /** `before` of each page shown so far; the last is the current page (null = newest). */
  private readonly pageStack = signal<readonly (string | null)[]>([null]);
  protected readonly onNewestPage = computed(() => this.pageStack().length === 1);

  protected readonly filterForm = inject(NonNullableFormBuilder).group({
    outcome: '',
    errorsOnly: false,
    requestId: '',
    correlationId: '',
  });

  /** Audited deployment changes (and gaps) can change every part of the page; requests themselves send no events. */
  private readonly deploymentEvents = inject(LiveEvents)
    .events(['audit'])
    .pipe(
      filter((event) => event.dropped > 0 || (event.action?.startsWith('deployment.') ?? false)),
      share(),
    );

  // Each answer carries what it was asked for, so a stale answer is never
  // labelled with the window or filter that replaced it.
  protected readonly traffic = pollQuery(
    (signal) => {
      const window = this.window();
      const deployment = this.filter().deployment;
      return this.graphql
        .request(
          REQUESTS_TRAFFIC,
          {
            windowMinutes: window.minutes,
            bucketSeconds: window.bucketSeconds,
            deployment: deployment || null,
          },
          { flow: this.flow, signal },
        )
        .then((data) => ({ window, deployment, report: data.traffic }));
    },
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.deploymentEvents },
  );

  protected readonly records = pollQuery(
    (signal) => {
      const requestFilter = this.filter();
      const stack = this.pageStack();
      const before = stack[stack.length - 1] ?? null;
      return this.graphql
        .request(
          REQUEST_RECORDS,
          { first: REQUEST_PAGE_SIZE, before, filter: toApiFilter(requestFilter) },
          { flow: this.flow, signal },
        )
        .then((data) => ({ filter: requestFilter, before, page: data.requestRecords }));
    },
    // Older pages only gain a late-finishing request now and then; the newest gains them all the time.
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.deploymentEvents },
  );

  protected readonly deployments = pollQuery(
    (signal) =>
      this.graphql
        .request(REQUESTS_DEPLOYMENTS, {}, { flow: this.flow, signal })
        .then((data) => data.deployments),
    { intervalMs: DEPLOYMENTS_REFRESH_INTERVAL_MS, refreshOn: this.deploymentEvents },
  );

  /** A load the operator is waiting for (first load, new filter, another page), not a background poll. */
  protected readonly listPending = computed(() => {
    if (!this.records.loading()) {
      return false;
    }
    const answer = this.records.value();
    const stack = this.pageStack();
    return (
      answer === undefined ||
      this.records.error() !== undefined ||
      !sameFilter(answer.filter, this.filter()) ||
      answer.before !== (stack[stack.length - 1] ?? null)
    );
  });

  protected readonly charts = computed(() => {
    const answer = this.traffic.value();
    if (answer === undefined) {
      return undefined;
    }
    const now = this.traffic.updatedAt()?.getTime() ?? Date.now();
    return {
      window: answer.window,
      deployment: answer.deployment,
      totals: answer.report.totals,
      inFlightNow: answer.report.inFlightNow,
      queuedNow: answer.report.queuedNow,
      noRequests: answer.report.totals.requests === 0,
      rows: deploymentTrafficRows(answer.report.deployments),
      ...trafficCharts(answer.report, now),
    };
  });

  /** Names to filter by: every deployment, and whatever `?deployment=` names even if it is gone. */
  protected readonly deploymentOptions = computed(() => {
    const names = (this.deployments.value() ?? []).map((deployment) => deployment.name);
    const current = this.filter().deployment;
    return current && !names.includes(current) ? [current, ...names] : names;
  });

  /** Nothing was ever recorded: the page explains where requests come from instead of showing empty charts. */
  protected readonly noRequestsYet = computed(() => {
    const answer = this.records.value();
    return (
      answer !== undefined &&
      answer.before === null &&
      !isFiltered(answer.filter) &&
      answer.page.items.length === 0
    );
  });

  /**
   * The API does not answer: one panel for the page instead of one per
   * section, which keep their last answers meanwhile. The traffic query is
   * the page's probe, as health is the Overview's.
   */
  protected readonly unreachable = computed(() => {
    const error = this.traffic.error();
    return error?.code === TransportErrorCode.API_UNREACHABLE ? error : undefined;
  });

  protected readonly refreshing = computed(
    () => this.traffic.loading() || this.records.loading() || this.deployments.loading(),
  );

  constructor() {
    // The API answers again: sections that failed unreachable ask now rather than at their next poll.
    effect(() => {
      if (this.traffic.updatedAt() !== undefined) {
        untracked(() => refreshUnreachable([this.records, this.deployments]));
      }
    });
    onChange(
      () => this.trafficScope(),
      () => this.traffic.refresh(),
    );
    onChange(
      () => this.filter(),
      () => {
        this.pageStack.set([null]);
        this.records.refresh();
      },
    );
    // The form shows the filter in force, however it was set (this form, a link, the search box).
    effect(() => {
      const { outcome, errorsOnly, requestId, correlationId } = this.filter();
      untracked(() => this.filterForm.reset({ outcome, errorsOnly, requestId, correlationId }));
    });
    // A link to one request (the search box, the playground) lands on the list, not at the top of the page.
    onChange(
      () => this.linkedRequestId(),
      () => {
        if (this.linkedRequestId()) {
          afterNextRender(() => this.listHeading()?.nativeElement.scrollIntoView({ block: 'start' }), {
            injector: this.injector,
          });
        }
      },
    );
  }

  protected unreachableHides(error: { readonly code: string } | undefined): boolean {
    return this.unreachable() !== undefined && error?.code === TransportErrorCode.API_UNREACHABLE;
  }

  protected selectWindow(key: string): void {
    this.navigate({ [REQUESTS_PARAM.window]: key === TRAFFIC_WINDOWS[0].key ? null : key }, true);
  }

  protected selectDeployment(deployment: unknown): void {
    if (typeof deployment !== 'string') {
      return;
    }
    this.navigate({ [REQUESTS_PARAM.deployment]: deployment || null });
  }

  protected applyFilter(): void {
    const raw = this.filterForm.getRawValue();
    const outcome = OUTCOME_CHOICES.find((choice) => choice === raw.outcome) ?? '';
    const next: RequestFilter = { ...raw, outcome, deployment: this.filter().deployment };
    if (sameFilter(next, this.filter())) {
      // Applying the filter in force reloads it: the operator expects an answer.
      this.records.refresh();
      return;
    }
    this.navigate(filterToParams(next));
  }

  protected clearFilter(): void {
    this.navigate(filterToParams({ ...EMPTY_REQUEST_FILTER, deployment: this.filter().deployment }));
  }

  protected older(): void {
    const next = this.records.value()?.page.nextBefore;
    if (next === null || next === undefined) {
      return;
    }
    this.pageStack.update((stack) => [...stack, next]);
    this.records.refresh();
  }

  protected newer(): void {
    if (this.onNewestPage()) {
      return;
    }
    this.pageStack.update((stack) => stack.slice(0, -1));
    this.records.refresh();
  }

  protected refreshAll(): void {
    this.traffic.refresh();
    this.records.refresh();
    this.deployments.refresh();
  }

  protected openPlayground(): void {
    this.playground()?.focus();
  }

  /** A playground request has an outcome now: show it in the charts and the list without waiting for the poll. */
  protected playgroundFinished(): void {
    this.traffic.refresh();
    this.records.refresh();
  }

  protected chartLabel(subject: string, window: TrafficWindow, deployment: string): string {
    return `${subject} over the last ${window.span}${deployment ? `, deployment ${deployment}` : ''}`;
  }

  private navigate(queryParams: Params, replaceUrl = false): void {
    void this.router.navigate([], {
      relativeTo: this.route,
      queryParams,
      queryParamsHandling: 'merge',
      replaceUrl,
    });
  }
}
