import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  linkedSignal,
  untracked,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import { MatCard, MatCardContent } from '@angular/material/card';
import { MatFormField, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { ActivatedRoute, Router, RouterLink } from '@angular/router';
import { filter } from 'rxjs';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { AuditDetail } from './audit-detail';
import { AUDIT_CHAIN_STATUS, AUDIT_EVENTS } from './audit.queries';
import {
  AUDIT_PAGE_SIZE,
  AUDIT_SEQ_PARAM,
  DECISION_CHOICES,
  EMPTY_FILTER,
  type AuditFilterForm,
  filterFromParams,
  filterParams,
  parseSeq,
  sameFilter,
  toApiFilter,
  toDecision,
} from './audit-view';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

const REFRESH_INTERVAL_MS = 15_000;
// Walking the chain reads every row, so it is checked far less often than the list is refreshed.
const CHAIN_REFRESH_INTERVAL_MS = 60_000;

/**
 * The audit log: who did what, allowed or refused, with the correlation id
 * to find it in logs and workflows, and whether the hash chain still holds.
 */
@Component({
  selector: 'lnx-audit',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    ProgressSlot,
    DatePipe,
    ReactiveFormsModule,
    MatButton,
    MatCard,
    MatCardContent,
    MatFormField,
    MatInput,
    MatLabel,
    RouterLink,
    AuditDetail,
    CopyButton,
    ErrorPanel,
    Icon,
    StatusBadge,
  ],
  templateUrl: './audit.html',
  styleUrl: './audit.scss',
})
export class Audit {
  private readonly graphql = inject(GraphqlClient);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly flow = this.graphql.startFlow();

  protected readonly seqParam = AUDIT_SEQ_PARAM;
  protected readonly decisionChoices = DECISION_CHOICES;

  private readonly queryParams = toSignal(this.route.queryParamMap, { requireSync: true });
  protected readonly selectedSeq = computed(() => parseSeq(this.queryParams().get(AUDIT_SEQ_PARAM)));
  /**
   * The filters the list shows: the URL's, so a link (the search box's
   * `?correlationId=…`), Back and Forward all set them. Opening an event
   * changes only `?seq` and leaves this value, and the list, as they are.
   */
  protected readonly applied = computed(() => filterFromParams(this.queryParams()), { equal: sameFilter });
  /** The filter the list was last loaded for; another one in the URL reloads it. */
  private listedFilter = this.applied();

  protected readonly form = inject(NonNullableFormBuilder).group({ ...this.applied() });
  /** `before` of each page shown so far; the last is the current page (null = newest). A new filter starts over. */
  private readonly pageStack = linkedSignal<AuditFilterForm, readonly (number | null)[]>({
    source: this.applied,
    computation: () => [null],
  });
  protected readonly onNewestPage = computed(() => this.pageStack().length === 1);
  protected readonly filtered = computed(() => Object.keys(toApiFilter(this.applied())).length > 0);

  private readonly newEvents = inject(LiveEvents)
    .events(['audit'])
    .pipe(filter(() => this.onNewestPage()));

  protected readonly events = pollQuery(
    (signal) => {
      const applied = this.applied();
      const stack = this.pageStack();
      return this.graphql
        .request(
          AUDIT_EVENTS,
          {
            filter: toApiFilter(applied),
            first: AUDIT_PAGE_SIZE,
            before: stack[stack.length - 1] ?? null,
          },
          { flow: this.flow, signal },
        )
        .then((data) => ({ filter: applied, page: data.auditEvents }));
    },
    // Older pages never change (the log is append-only); only the newest page gains rows.
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.newEvents },
  );

  /**
   * The page for the filters in force, undefined until it arrives: an answer
   * for other filters must not be shown as theirs, least of all as "no match".
   */
  protected readonly page = computed(() => {
    const answer = this.events.value();
    return answer?.filter === this.applied() ? answer.page : undefined;
  });

  protected readonly chain = pollQuery(
    (signal) =>
      this.graphql
        .request(AUDIT_CHAIN_STATUS, {}, { flow: this.flow, signal })
        .then((data) => data.auditChainStatus),
    { intervalMs: CHAIN_REFRESH_INTERVAL_MS },
  );

  constructor() {
    // URL → form and list, whoever changed the URL: Apply, a link, Back or the search box.
    effect(() => {
      const applied = this.applied();
      untracked(() => {
        this.form.setValue({ ...applied });
        if (applied !== this.listedFilter) {
          this.listedFilter = applied;
          this.events.refresh();
        }
      });
    });
  }

  /** Puts the form's filters in the URL, which reloads the list; the open event (`?seq`) stays open. */
  protected applyFilter(): void {
    const raw = this.form.getRawValue();
    const wanted: AuditFilterForm = { ...raw, decision: toDecision(raw.decision) };
    if (sameFilter(wanted, this.applied())) {
      // Nothing to change in the URL: Apply still means "show me the newest events for these".
      this.form.setValue({ ...this.applied() });
      this.pageStack.set([null]);
      this.events.refresh();
      return;
    }
    void this.router.navigate([], {
      relativeTo: this.route,
      queryParams: filterParams(wanted),
      queryParamsHandling: 'merge',
    });
  }

  protected clearFilter(): void {
    this.form.reset({ ...EMPTY_FILTER });
    this.applyFilter();
  }

  protected older(): void {
    const next = this.page()?.nextBefore;
    if (next === null || next === undefined) {
      return;
    }
    this.pageStack.update((stack) => [...stack, next]);
    this.events.refresh();
  }

  protected newer(): void {
    if (this.onNewestPage()) {
      return;
    }
    this.pageStack.update((stack) => stack.slice(0, -1));
    this.events.refresh();
  }

  protected refreshAll(): void {
    this.events.refresh();
    this.chain.refresh();
  }
}
