import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { MatButton } from '@angular/material/button';
import { MatCard, MatCardContent, MatCardHeader, MatCardTitle } from '@angular/material/card';
import { RouterLink } from '@angular/router';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { detailQuery } from '../../shared/detail-page/detail-query';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { AUDIT_EVENT } from './audit.queries';
import { prettyEvidence } from './audit-view';

// An event never changes once written; re-reading only re-checks its chain link.
const REFRESH_INTERVAL_MS = 60_000;

/** One audit event: its evidence, hashes and whether its link to the previous event verifies. */
@Component({
  selector: 'lnx-audit-detail',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    DatePipe,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardTitle,
    RouterLink,
    CopyButton,
    ErrorPanel,
    Icon,
    StatusBadge,
  ],
  templateUrl: './audit-detail.html',
  styleUrl: './audit.scss',
})
export class AuditDetail {
  readonly seq = input.required<number>();

  private readonly graphql = inject(GraphqlClient);
  private readonly flow = this.graphql.startFlow();

  // The router reuses this component when only ?seq changes; the query follows the input.
  protected readonly event = detailQuery({
    key: this.seq,
    load: (seq, signal) =>
      this.graphql.request(AUDIT_EVENT, { seq }, { flow: this.flow, signal }).then((data) => data.auditEvent),
    intervalMs: REFRESH_INTERVAL_MS,
  });

  /** The event for the selected seq, null when there is none, undefined until its answer arrives. */
  protected readonly current = this.event.current;
  protected readonly evidence = computed(() => {
    const event = this.current();
    return event ? prettyEvidence(event.evidenceJson) : '';
  });
}
