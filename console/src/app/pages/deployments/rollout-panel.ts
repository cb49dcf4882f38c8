import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, input, output } from '@angular/core';
import { MatButton } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatProgressBar } from '@angular/material/progress-bar';
import { MatTooltip } from '@angular/material/tooltip';
import { filter, tap } from 'rxjs';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, type GraphqlFlow } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS } from './deployments-view';
import { PacedLoad } from './paced-load';
import {
  ROLLOUT_PROGRESS_INTERVAL_MS,
  type RolloutActionView,
  isBaking,
  isRolloutMoving,
  millisecondsText,
  percentText,
  revisionText,
  rolloutActions,
  rolloutSteps,
  scoreText,
} from './rollout-rules';
import { RolloutSignalDialog, type RolloutSignalDialogData } from './rollout-signal-dialog';
import { ROLLOUT, type AliasRevision, type Rollout, type WorkflowEnd } from './rollouts.queries';
import { changesRollouts } from './rollouts-view';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/**
 * One rollout, live: the canary steps as a progress track with the weight in
 * effect, each step's analysis (canary against stable), the operator's
 * signals (each destructive one behind a confirmation naming its effect) and
 * the workflow's receipts. Polls every 2 s while the rollout can still move
 * on its own, every 10 s once it has ended, and at once on rollout events.
 */
@Component({
  selector: 'lnx-rollout-panel',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    ProgressSlot,
    DatePipe,
    MatButton,
    MatProgressBar,
    MatTooltip,
    CopyButton,
    ErrorPanel,
    Icon,
    StatusBadge,
  ],
  templateUrl: './rollout-panel.html',
  styleUrl: './rollout-panel.scss',
})
export class RolloutPanel {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);

  readonly rolloutId = input.required<string>();
  /** The alias's revisions, to name the one a rollback returns to. */
  readonly revisions = input<readonly AliasRevision[]>([]);
  readonly flow = input<GraphqlFlow>();
  /** After a signal was sent, so the alias around the panel reloads too. */
  readonly signalled = output();

  private readonly pace = new PacedLoad(REFRESH_INTERVAL_MS);

  protected readonly watched: PolledQuery<{
    readonly id: string;
    readonly rollout: Rollout | null;
    /** Set when Temporal reports the rollout's workflow closed without success. */
    readonly workflowEnd: WorkflowEnd | undefined;
  }> = pollQuery(
    (signal) => {
      const id = this.rolloutId();
      const shown = this.watched.value();
      // An ended rollout changes only on an operator's signal (which forces a load): the slow pace is enough.
      if (
        shown?.id === id &&
        shown.rollout !== null &&
        this.pace.mayReuse(isRolloutMoving(shown.rollout) && shown.workflowEnd === undefined)
      ) {
        return Promise.resolve(shown);
      }
      this.pace.fetching();
      return this.graphql.request(ROLLOUT, { id }, { flow: this.flow(), signal }).then((data) => ({
        id,
        rollout: data.rollout,
        workflowEnd: data.workflowAlerts.find((alert) => alert.workflowId === data.rollout?.workflowId),
      }));
    },
    {
      intervalMs: ROLLOUT_PROGRESS_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit'])
        .pipe(
          filter(changesRollouts),
          tap(() => this.pace.force()),
        ),
    },
  );

  /** Only the answer about the rollout asked for now, not the previous one's. */
  protected readonly rollout = computed((): Rollout | null | undefined => {
    const answer = this.watched.value();
    return answer?.id === this.rolloutId() ? answer.rollout : undefined;
  });

  /** The workflow ended badly while the record still says the rollout moves: its state is stale. */
  protected readonly workflowEnd = computed(() => {
    const answer = this.watched.value();
    return answer?.id === this.rolloutId() && answer.rollout && isRolloutMoving(answer.rollout)
      ? answer.workflowEnd
      : undefined;
  });

  protected readonly steps = computed(() => {
    const rollout = this.rollout();
    return rollout ? rolloutSteps(rollout) : [];
  });

  protected readonly moving = computed(() => {
    const rollout = this.rollout();
    return rollout ? isRolloutMoving(rollout) && this.workflowEnd() === undefined : false;
  });

  protected readonly baking = computed(() => {
    const rollout = this.rollout();
    return rollout ? isBaking(rollout) : false;
  });

  protected readonly actions = computed(() => {
    const rollout = this.rollout();
    if (!rollout) {
      return [];
    }
    const actions = rolloutActions(rollout, (permission) => this.session.can(permission));
    // A signal to an ended workflow has nobody to act on it; the API would refuse it.
    return this.workflowEnd() === undefined
      ? actions
      : actions.map((action) => ({ ...action, enabled: false, reason: 'the rollout workflow has ended' }));
  });

  protected readonly anyActionOffered = computed(() => this.actions().some((action) => action.offered));

  protected readonly baseText = computed(() => {
    const rollout = this.rollout();
    return rollout ? revisionText(rollout.baseRevision, this.revisions()) : '';
  });

  protected readonly percentText = percentText;
  protected readonly millisecondsText = millisecondsText;
  protected readonly scoreText = scoreText;

  protected refresh(): void {
    this.pace.force();
    this.watched.refresh();
  }

  /** "a1b2c3d4…" of a receipt hash: enough to recognise it; the copy button gives the whole. */
  protected shortHash(hash: string): string {
    return `${hash.slice(0, 12)}…`;
  }

  protected signal(rollout: Rollout, action: RolloutActionView): void {
    openDialog<RolloutSignalDialog, RolloutSignalDialogData, boolean>(this.dialog, RolloutSignalDialog, {
      ...DIALOG_SIZE,
      // The heading: Enter right after opening must not promote or roll back anything.
      initialFocus: 'first-heading',
      data: { rollout, action, revisions: this.revisions(), flow: this.flow() },
    })
      .afterClosed()
      .subscribe((sent) => {
        this.refresh();
        if (sent === true) {
          this.signalled.emit();
        }
      });
  }
}
