import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
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
import { DetailPage } from '../../shared/detail-page/detail-page';
import { type DetailQuery, detailQuery } from '../../shared/detail-page/detail-query';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { Icon } from '../../shared/icon/icon';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import {
  type DeploymentRecoveryRun,
  RECOVERY_EVENTS_READ,
  deploymentRecoveryRuns,
  recoveryOutcomeText,
} from './deployment-recovery-rules';
import { isBehind, replicaText, stopActionState } from './deployment-rules';
import { DEPLOYMENT, DEPLOYMENT_RECOVERIES, type Deployment } from './deployments.queries';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, changesDeployment } from './deployments-view';
import { StopDeploymentDialog, type StopDeploymentDialogData } from './stop-deployment-dialog';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** One deployment: state and why, desired against observed per replica, its workflow, and Stop. */
@Component({
  selector: 'lnx-deployment-detail',
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
    CopyButton,
    DetailPage,
    Icon,
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

  protected readonly deployment: DetailQuery<string, Deployment> = detailQuery({
    key: this.name,
    load: (name, signal) =>
      this.graphql
        .request(DEPLOYMENT, { deployment: name }, { flow: this.flow, signal })
        .then((data) => data.deployment),
    intervalMs: REFRESH_INTERVAL_MS,
    refreshOn: inject(LiveEvents)
      .events(['audit', 'node'])
      // After the task that built this component, so the router has bound `name` before it is read.
      .pipe(
        observeOn(asapScheduler),
        filter((event) => changesDeployment(event, this.deployment.current())),
      ),
  });

  /** NodeRecovery runs that re-placed this deployment's replicas (by deployment id, once it has loaded). */
  private readonly deploymentId = computed(() => this.deployment.current()?.id ?? '');
  protected readonly recoveries: DetailQuery<string, readonly DeploymentRecoveryRun[]> = detailQuery({
    key: this.deploymentId,
    load: (id, signal) =>
      id === ''
        ? Promise.resolve(null)
        : this.graphql
            .request(DEPLOYMENT_RECOVERIES, { first: RECOVERY_EVENTS_READ }, { flow: this.flow, signal })
            .then((data) => deploymentRecoveryRuns(data.auditEvents.events, id, data.nodes)),
    intervalMs: REFRESH_INTERVAL_MS,
    refreshOn: inject(LiveEvents)
      .events(['audit'])
      .pipe(filter((event) => event.dropped > 0 || (event.action ?? '').startsWith('node.recovery.'))),
  });
  protected readonly recoveryOutcomeText = recoveryOutcomeText;

  protected readonly stopAction = computed(() => {
    const deployment = this.deployment.current();
    return deployment ? stopActionState(deployment, (permission) => this.session.can(permission)) : undefined;
  });

  protected readonly isBehind = isBehind;
  protected readonly replicaText = replicaText;

  protected stop(deployment: Deployment): void {
    openDialog<StopDeploymentDialog, StopDeploymentDialogData>(this.dialog, StopDeploymentDialog, {
      ...DIALOG_SIZE,
      // The heading, not the confirm button: Enter right after opening must not stop anything.
      initialFocus: 'first-heading',
      data: { deployment },
    })
      .afterClosed()
      .subscribe(() => this.deployment.refresh());
  }
}
