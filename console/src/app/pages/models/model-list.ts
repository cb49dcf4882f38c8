import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { Router, RouterLink } from '@angular/router';
import { rolesWithPermission } from '@lunanexa/contracts/roles';
import { filter } from 'rxjs';

import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { DIALOG_SIZE } from '../deployments/deployments-view';
import { CreateModelVersionDialog } from './create-model-version-dialog';
import { REFRESH_INTERVAL_MS, canCreateModelVersion, versionDetailLink } from './model-rules';
import { MODELS, type Model } from './models.queries';
import { changesRegistry } from './models-view';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** The registry: each model with its versions, their lifecycle state, license review and evaluation. */
@Component({
  selector: 'lnx-model-list',
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
    LivePageHeader,
    QueryFailure,
    QueryProgress,
    StatusBadge,
  ],
  templateUrl: './model-list.html',
  styleUrl: './models.scss',
})
export class ModelList {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly router = inject(Router);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canCreate = computed(() => canCreateModelVersion((p) => this.session.can(p)));
  protected readonly createRoles = rolesWithPermission('operate').join(' or ');

  protected readonly models: PolledQuery<readonly Model[]> = pollQuery(
    (signal) => this.graphql.request(MODELS, {}, { flow: this.flow, signal }).then((data) => data.models),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents).events(['audit']).pipe(filter(changesRegistry)),
    },
  );

  protected readonly sorted = computed(() =>
    this.models
      .value()
      ?.map((model) => ({
        model,
        versions: [...model.versions].sort((a, b) =>
          a.version.localeCompare(b.version, undefined, { numeric: true }),
        ),
      }))
      .sort((a, b) => a.model.name.localeCompare(b.model.name)),
  );

  protected readonly link = versionDetailLink;

  protected create(): void {
    openDialog(this.dialog, CreateModelVersionDialog, { ...DIALOG_SIZE, initialFocus: 'first-tabbable' })
      .afterClosed()
      .subscribe((ref: unknown) => {
        this.models.refresh();
        if (typeof ref === 'string') {
          void this.router.navigate(versionDetailLink(ref));
        }
      });
  }
}
