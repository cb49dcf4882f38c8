import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { MatTooltip } from '@angular/material/tooltip';
import { ActivatedRoute, RouterLink } from '@angular/router';
import { asapScheduler, filter, map, observeOn, tap } from 'rxjs';

import { DetailPage } from '../../shared/detail-page/detail-page';
import { type DetailQuery, detailQuery } from '../../shared/detail-page/detail-query';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { Session } from '../../shared/session/session';
import { Toasts } from '../../shared/toasts/toasts';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { EvidenceDownload } from './evidence-download';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, deploymentDetailLink } from './deployments-view';
import { PacedLoad } from './paced-load';
import { RolloutPanel } from './rollout-panel';
import { ROLLOUT_PROGRESS_INTERVAL_MS, isRolloutActive } from './rollout-rules';
import { ALIAS, type Alias, type RolloutSummary } from './rollouts.queries';
import { ALIAS_NAME_PARAM, changesRollouts } from './rollouts-view';
import { StartRolloutDialog, type StartRolloutDialogData } from './start-rollout-dialog';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** Rollouts listed under an alias; older ones stay in the audit log. */
const ROLLOUT_HISTORY_LIMIT = 20;

interface AliasAnswer {
  readonly alias: Alias;
  readonly rollouts: readonly RolloutSummary[];
}

/**
 * One alias: what it serves now, the rollout moving it (live, with its
 * signals) or the last one, every revision with why it was made (promote,
 * rollback and what it restored), and its rollouts.
 */
@Component({
  selector: 'lnx-alias-detail',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    DatePipe,
    RouterLink,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatTooltip,
    DetailPage,
    RolloutPanel,
    StatusBadge,
  ],
  templateUrl: './alias-detail.html',
  styleUrl: './deployments.scss',
})
export class AliasDetail {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly evidence = inject(EvidenceDownload);
  private readonly toasts = inject(Toasts);
  protected readonly flow = this.graphql.startFlow();
  protected readonly exporting = signal(false);

  readonly name = input.required<string>();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canOperate = computed(() => this.session.can('operate'));

  private readonly pace = new PacedLoad(REFRESH_INTERVAL_MS);

  protected readonly answer: DetailQuery<string, AliasAnswer> = detailQuery({
    key: this.name,
    load: (name, signal, shown) => {
      // Quick while a rollout moves the alias (its revision changes at promotion or rollback), slow otherwise.
      if (shown && this.pace.mayReuse(shown.alias.activeRollout !== null)) {
        return Promise.resolve(shown);
      }
      this.pace.fetching();
      return this.graphql
        .request(ALIAS, { alias: name, limit: ROLLOUT_HISTORY_LIMIT }, { flow: this.flow, signal })
        .then((data) => (data.alias === null ? null : { alias: data.alias, rollouts: data.rollouts }));
    },
    keyChanged: () => {
      this.picked.set(undefined);
      this.pace.force();
    },
    intervalMs: ROLLOUT_PROGRESS_INTERVAL_MS,
    refreshOn: inject(LiveEvents)
      .events(['audit'])
      .pipe(
        observeOn(asapScheduler),
        filter(changesRollouts),
        tap(() => this.pace.force()),
      ),
  });

  /** The rollout the operator picked from the history; otherwise the active one, else the newest. */
  protected readonly picked = signal<string | undefined>(undefined);
  protected readonly shownRolloutId = computed(() => {
    const answer = this.answer.current();
    const picked = this.picked();
    if (picked !== undefined && answer?.rollouts.some((rollout) => rollout.id === picked)) {
      return picked;
    }
    return answer?.alias.activeRollout?.id ?? answer?.rollouts[0]?.id;
  });

  protected readonly isRolloutActive = isRolloutActive;
  protected readonly deploymentLink = deploymentDetailLink;

  /** Loads now, whatever the pace: the operator asked, or something here changed the alias. */
  protected reload(): void {
    this.pace.force();
    this.answer.refresh();
  }

  /** Downloads the revision's evidence bundle; a refusal is toasted with its ids. */
  protected exportEvidence(alias: string, revision: number): void {
    this.exporting.set(true);
    this.evidence
      .download(alias, revision)
      .catch((failure: unknown) => this.toasts.error('Evidence export failed', failure))
      .finally(() => this.exporting.set(false));
  }

  protected show(rollout: RolloutSummary): void {
    this.picked.set(rollout.id);
  }

  protected startRollout(alias: Alias): void {
    openDialog<StartRolloutDialog, StartRolloutDialogData>(this.dialog, StartRolloutDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: { alias: alias.name },
    })
      .afterClosed()
      .subscribe((rolloutId: unknown) => {
        if (typeof rolloutId === 'string') {
          this.picked.set(rolloutId);
        }
        this.reload();
      });
  }
}

/** `/deployments/aliases/<alias>`, following the name in the URL as the deployment route does. */
@Component({
  selector: 'lnx-alias-detail-route',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [AliasDetail],
  template: `<lnx-alias-detail [name]="name()" />`,
})
export class AliasDetailRoute {
  protected readonly name = toSignal(
    inject(ActivatedRoute).paramMap.pipe(map((params) => params.get(ALIAS_NAME_PARAM) ?? '')),
    { requireSync: true },
  );
}
