import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import { MatCard, MatCardContent } from '@angular/material/card';
import { MatFormField, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatProgressBar } from '@angular/material/progress-bar';
import { ActivatedRoute, RouterLink } from '@angular/router';
import { filter, map } from 'rxjs';

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
  parseSeq,
  toApiFilter,
} from './audit-view';

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
    DatePipe,
    ReactiveFormsModule,
    MatButton,
    MatCard,
    MatCardContent,
    MatFormField,
    MatInput,
    MatLabel,
    MatProgressBar,
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
  private readonly flow = this.graphql.startFlow();

  protected readonly seqParam = AUDIT_SEQ_PARAM;
  protected readonly decisionChoices = DECISION_CHOICES;
  protected readonly selectedSeq = toSignal(
    inject(ActivatedRoute).queryParamMap.pipe(map((params) => parseSeq(params.get(AUDIT_SEQ_PARAM)))),
    { initialValue: null },
  );

  protected readonly form = inject(NonNullableFormBuilder).group({ ...EMPTY_FILTER });
  private readonly applied = signal<AuditFilterForm>(EMPTY_FILTER);
  /** `before` of each page shown so far; the last is the current page (null = newest). */
  private readonly pageStack = signal<readonly (number | null)[]>([null]);
  protected readonly onNewestPage = computed(() => this.pageStack().length === 1);
  protected readonly filtered = computed(() => Object.keys(toApiFilter(this.applied())).length > 0);

  private readonly newEvents = inject(LiveEvents)
    .events(['audit'])
    .pipe(filter(() => this.onNewestPage()));

  protected readonly events = pollQuery(
    (signal) => {
      const stack = this.pageStack();
      return this.graphql
        .request(
          AUDIT_EVENTS,
          {
            filter: toApiFilter(this.applied()),
            first: AUDIT_PAGE_SIZE,
            before: stack[stack.length - 1] ?? null,
          },
          { flow: this.flow, signal },
        )
        .then((data) => data.auditEvents);
    },
    // Older pages never change (the log is append-only); only the newest page gains rows.
    { intervalMs: REFRESH_INTERVAL_MS, refreshOn: this.newEvents },
  );

  protected readonly chain = pollQuery(
    (signal) =>
      this.graphql
        .request(AUDIT_CHAIN_STATUS, {}, { flow: this.flow, signal })
        .then((data) => data.auditChainStatus),
    { intervalMs: CHAIN_REFRESH_INTERVAL_MS },
  );

  protected applyFilter(): void {
    const raw = this.form.getRawValue();
    const decision = DECISION_CHOICES.find((choice) => choice === raw.decision) ?? '';
    this.applied.set({ ...raw, decision });
    this.pageStack.set([null]);
    this.events.refresh();
  }

  protected clearFilter(): void {
    this.form.reset({ ...EMPTY_FILTER });
    this.applyFilter();
  }

  protected older(): void {
    const next = this.events.value()?.nextBefore;
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
