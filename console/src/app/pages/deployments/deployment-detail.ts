import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, effect, inject, input } from '@angular/core';
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
import { RouterLink } from '@angular/router';
import { asapScheduler, filter, observeOn } from 'rxjs';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { isBehind, replicaText, stopActionState } from './deployment-rules';
import { DEPLOYMENT, type Deployment } from './deployments.queries';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, changesDeployment } from './deployments-view';
import { StopDeploymentDialog, type StopDeploymentDialogData } from './stop-deployment-dialog';

/** One deployment: state and why, desired against observed per replica, its workflow, and Stop. */
@Component({
  selector: 'lnx-deployment-detail',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    DatePipe,
    RouterLink,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatTooltip,
    CopyButton,
    Icon,
    LivePageHeader,
    QueryFailure,
    QueryProgress,
    StatusBadge,
  ],
  templateUrl: './deployment-detail.html',
  styleUrl: './deployments.scss',
})
export class DeploymentDetail {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  /** Deployment name (or id) from the URL. */
  readonly name = input.required<string>();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;

  protected readonly deployment: PolledQuery<{
    readonly name: string;
    readonly deployment: Deployment | null;
  }> = pollQuery(
    (signal) =>
      this.graphql
        .request(DEPLOYMENT, { deployment: this.name() }, { flow: this.flow, signal })
        .then((data) => ({ name: this.name(), deployment: data.deployment })),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit', 'node'])
        // After the task that built this component, so the router has bound `name` before it is read.
        .pipe(
          observeOn(asapScheduler),
          filter((event) => changesDeployment(event, this.current()?.deployment)),
        ),
    },
  );

  /**
   * The deployment of the current name only: after the URL names another
   * deployment the previous one's answer must not show under the new heading.
   */
  protected readonly current = computed(() => {
    const answer = this.deployment.value();
    return answer?.name === this.name() ? answer : undefined;
  });

  protected readonly stopAction = computed(() => {
    const deployment = this.current()?.deployment;
    return deployment ? stopActionState(deployment, (permission) => this.session.can(permission)) : undefined;
  });

  protected readonly isBehind = isBehind;
  protected readonly replicaText = replicaText;

  constructor() {
    let shown: string | undefined;
    effect(() => {
      const name = this.name();
      // The first load is pollQuery's own; only a change of deployment needs another.
      if (shown !== undefined && shown !== name) {
        this.deployment.refresh();
      }
      shown = name;
    });
  }

  protected stop(deployment: Deployment): void {
    this.dialog
      .open<StopDeploymentDialog, StopDeploymentDialogData>(StopDeploymentDialog, {
        ...DIALOG_SIZE,
        // The heading, not the confirm button: Enter right after opening must not stop anything.
        autoFocus: 'first-heading',
        data: { deployment },
      })
      .afterClosed()
      .subscribe(() => this.deployment.refresh());
  }
}
