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
import { RouterLink } from '@angular/router';
import { rolesWithPermission } from '@lunanexa/contracts/roles';
import { filter } from 'rxjs';

import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { CreateAliasDialog } from './create-alias-dialog';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS } from './deployments-view';
import { ALIASES, type AliasSummary } from './rollouts.queries';
import { aliasDetailLink, changesRollouts } from './rollouts-view';
import { StartRolloutDialog, type StartRolloutDialogData } from './start-rollout-dialog';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/**
 * The aliases callers invoke, on the Deployments page: what each serves
 * (current revision), the canary's share and the rollout in progress, with
 * "Create alias" and "Start rollout" for operators. Each alias links to its
 * page with the live rollout and the revision history.
 */
@Component({
  selector: 'lnx-alias-list',
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
    ErrorPanel,
    QueryProgress,
    StatusBadge,
  ],
  template: `
    <mat-card appearance="outlined" role="region" aria-labelledby="aliases-title">
      <lnx-query-progress [query]="aliases" label="Loading aliases" />
      <mat-card-header>
        <mat-card-title><h2 id="aliases-title">Aliases and rollouts</h2></mat-card-title>
        <mat-card-subtitle>The names callers invoke, and the version each one serves</mat-card-subtitle>
      </mat-card-header>
      <mat-card-content>
        @if (canOperate()) {
          <div class="card-actions">
            <button matButton="tonal" type="button" (click)="createAlias()">Create alias</button>
            <button
              matButton="filled"
              type="button"
              [disabled]="(aliases.value()?.length ?? 0) === 0"
              (click)="startRollout()"
            >
              Start rollout
            </button>
          </div>
        }
        @if (aliases.error(); as error) {
          <lnx-error-panel
            heading="Could not load aliases"
            [error]="error"
            [busy]="aliases.loading()"
            (retry)="aliases.refresh()"
          />
        }
        @if (rows(); as rows) {
          @if (rows.length === 0) {
            <p class="empty">
              No aliases yet.
              @if (canOperate()) {
                Create one, then start a rollout to make it serve a model version.
              } @else {
                Creating aliases needs the {{ operateRoles }} role.
              }
            </p>
          } @else {
            <div lnxTableScroll="Aliases">
              <table class="lnx-table aliases">
                <caption class="lnx-visually-hidden">
                  Aliases: current revision, canary and rollout in progress
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Alias</th>
                    <th scope="col">Serves</th>
                    <th scope="col">Data class</th>
                    <th scope="col">Rollout in progress</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  @for (row of rows; track row.alias.id) {
                    <tr>
                      <th scope="row">
                        <a [routerLink]="row.link">{{ row.alias.name }}</a>
                      </th>
                      <td>
                        @if (row.alias.current; as current) {
                          <code>{{ current.modelRef }}</code>
                          <span class="secondary"> (revision {{ current.revision }})</span>
                        } @else {
                          <span class="none">nothing yet</span>
                        }
                      </td>
                      <td>{{ row.alias.dataClass }}</td>
                      <td>
                        @if (row.alias.activeRollout; as rollout) {
                          <lnx-status-badge [status]="rollout.state" />
                          <span class="secondary">
                            <code>{{ rollout.modelRef }}</code> at {{ row.alias.canaryWeight }} %</span
                          >
                        } @else {
                          <span class="none">none</span>
                        }
                      </td>
                      <td class="nowrap">
                        <time [attr.datetime]="row.alias.updatedAt">{{
                          row.alias.updatedAt | date: 'yyyy-MM-dd HH:mm'
                        }}</time>
                      </td>
                    </tr>
                  }
                </tbody>
              </table>
            </div>
          }
        } @else if (!aliases.error()) {
          <p class="empty">Loading aliases…</p>
        }
      </mat-card-content>
    </mat-card>
  `,
  styleUrl: './deployments.scss',
})
export class AliasList {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  protected readonly canOperate = computed(() => this.session.can('operate'));
  protected readonly operateRoles = rolesWithPermission('operate').join(' or ');

  protected readonly aliases: PolledQuery<readonly AliasSummary[]> = pollQuery(
    (signal) => this.graphql.request(ALIASES, {}, { flow: this.flow, signal }).then((data) => data.aliases),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents).events(['audit']).pipe(filter(changesRollouts)),
    },
  );

  protected readonly rows = computed(() =>
    this.aliases.value()?.map((alias) => ({ alias, link: aliasDetailLink(alias.name) })),
  );

  protected createAlias(): void {
    openDialog(this.dialog, CreateAliasDialog, { ...DIALOG_SIZE, initialFocus: 'first-tabbable' })
      .afterClosed()
      .subscribe(() => this.aliases.refresh());
  }

  protected startRollout(): void {
    openDialog<StartRolloutDialog, StartRolloutDialogData>(this.dialog, StartRolloutDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: {},
    })
      .afterClosed()
      .subscribe(() => this.aliases.refresh());
  }
}
