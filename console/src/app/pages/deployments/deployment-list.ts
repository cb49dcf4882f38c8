import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { MatSort, MatSortHeader, type Sort } from '@angular/material/sort';
import { RouterLink } from '@angular/router';
import { rolesWithPermission } from '@lunanexa/contracts/roles';
import { filter } from 'rxjs';

import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { AliasList } from './alias-list';
import { DeployDialog } from './deploy-dialog';
import { canCreateDeployment, isBehind, replicaText } from './deployment-rules';
import { DEPLOYMENTS, type Deployment } from './deployments.queries';
import {
  DIALOG_SIZE,
  REFRESH_INTERVAL_MS,
  changesDeployments,
  deploymentDetailLink,
} from './deployments-view';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

interface DeploymentRow {
  readonly deployment: Deployment;
  readonly link: readonly string[];
  readonly replicas: string;
  readonly behind: boolean;
}

type SortKey = 'name' | 'model' | 'state' | 'replicas' | 'generation' | 'created';

const SORT_VALUE: Readonly<Record<SortKey, (row: DeploymentRow) => string | number>> = {
  name: (row) => row.deployment.name,
  model: (row) => row.deployment.modelRef,
  state: (row) => row.deployment.state,
  // Fewest ready first when ascending: the ones that need a look.
  replicas: (row) => row.deployment.readyReplicas,
  // How far the agents lag behind, so converging deployments sort together.
  generation: (row) => row.deployment.generation - row.deployment.observedGeneration,
  created: (row) => Date.parse(row.deployment.createdAt),
};

function isSortKey(key: string): key is SortKey {
  return Object.hasOwn(SORT_VALUE, key);
}

/** Every deployment at a glance: model, state, replicas, convergence, who created it and its workflow. */
@Component({
  selector: 'lnx-deployment-list',
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
    MatSort,
    MatSortHeader,
    Icon,
    LivePageHeader,
    QueryFailure,
    QueryProgress,
    StatusBadge,
    AliasList,
  ],
  templateUrl: './deployment-list.html',
  styleUrl: './deployments.scss',
})
export class DeploymentList {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  /** One correlation id for the whole visit, so every poll of this page is one flow in the logs. */
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canDeploy = computed(() => canCreateDeployment((p) => this.session.can(p)));
  protected readonly deployRoles = rolesWithPermission('operate').join(' or ');

  protected readonly deployments: PolledQuery<readonly Deployment[]> = pollQuery(
    (signal) =>
      this.graphql.request(DEPLOYMENTS, {}, { flow: this.flow, signal }).then((data) => data.deployments),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit', 'node'])
        .pipe(filter((event) => changesDeployments(event, this.deployments.value()))),
    },
  );

  protected readonly sort = signal<Sort>({ active: 'name', direction: 'asc' });

  protected readonly rows = computed((): readonly DeploymentRow[] | undefined => {
    const deployments = this.deployments.value();
    if (deployments === undefined) {
      return undefined;
    }
    const rows = deployments.map((deployment): DeploymentRow => ({
      deployment,
      link: deploymentDetailLink(deployment.name),
      replicas: replicaText(deployment),
      behind: isBehind(deployment),
    }));
    const { active, direction } = this.sort();
    if (direction === '' || !isSortKey(active)) {
      return rows;
    }
    const value = SORT_VALUE[active];
    const sign = direction === 'asc' ? 1 : -1;
    return [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order =
        typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      // Ties keep name order, so equal rows do not swap places between polls.
      return sign * order || a.deployment.name.localeCompare(b.deployment.name);
    });
  });

  protected deploy(): void {
    openDialog(this.dialog, DeployDialog, {
      ...DIALOG_SIZE,
      // The name field: nothing happens before the form is submitted, so typing can start at once.
      initialFocus: 'first-tabbable',
    })
      .afterClosed()
      .subscribe(() => this.deployments.refresh());
  }
}
