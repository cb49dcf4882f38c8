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
import { TenantDialog, type TenantDialogData } from './tenant-dialog';
import { canChangeTenants, quotaText } from './tenant-rules';
import { TENANTS, type TenantSummary } from './tenants.queries';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, changesTenants, tenantDetailLink } from './tenants-view';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/**
 * Every tenant: the id its requests carry, its quotas and how many of its
 * gateway keys the gateway accepts now. Administrators create tenants here;
 * quotas and keys are on each tenant's page.
 */
@Component({
  selector: 'lnx-tenant-list',
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
  ],
  template: `
    <lnx-live-page-header heading="Tenants" [refreshSeconds]="refreshSeconds" (refresh)="tenants.refresh()">
      @if (canChange()) {
        <button matButton="filled" type="button" (click)="create()">Create tenant</button>
      }
    </lnx-live-page-header>

    <mat-card appearance="outlined" role="region" aria-labelledby="tenants-title">
      <lnx-query-progress [query]="tenants" label="Loading tenants" />
      <mat-card-header>
        <mat-card-title><h2 id="tenants-title">Tenants and quotas</h2></mat-card-title>
        @if (tenants.updatedAt(); as updatedAt) {
          <mat-card-subtitle>Updated {{ updatedAt | date: 'HH:mm:ss' }}</mat-card-subtitle>
        }
      </mat-card-header>
      <mat-card-content>
        <lnx-query-failure [query]="tenants" heading="Could not load tenants" (retry)="tenants.refresh()" />
        @if (rows(); as rows) {
          @if (rows.length === 0) {
            <p class="empty">
              No tenants yet. A tenant is what calls the gateway: create one, then give its applications
              gateway keys.
              @if (!canChange()) {
                Creating tenants needs the {{ adminRoles }} role.
              }
            </p>
          } @else {
            <div lnxTableScroll="Tenants">
              <table class="lnx-table tenants">
                <caption class="lnx-visually-hidden">
                  Tenants
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Tenant</th>
                    <th scope="col">Name</th>
                    <th scope="col" class="numeric">Requests / min</th>
                    <th scope="col" class="numeric">Tokens / min</th>
                    <th scope="col" class="numeric">Concurrent</th>
                    <th scope="col" class="numeric">Keys (active / all)</th>
                  </tr>
                </thead>
                <tbody>
                  @for (tenant of rows; track tenant.id) {
                    <tr>
                      <th scope="row" class="nowrap">
                        <a [routerLink]="link(tenant.id)"
                          ><code>{{ tenant.id }}</code></a
                        >
                      </th>
                      <td>{{ tenant.displayName ?? '—' }}</td>
                      <td class="numeric">{{ quotaText(tenant.quota.requestsPerMinute) }}</td>
                      <td class="numeric">{{ quotaText(tenant.quota.tokensPerMinute) }}</td>
                      <td class="numeric">{{ quotaText(tenant.quota.maxConcurrentRequests) }}</td>
                      <td class="numeric">{{ tenant.activeKeyCount }} / {{ tenant.keyCount }}</td>
                    </tr>
                  }
                </tbody>
              </table>
            </div>
          }
        } @else if (!tenants.error()) {
          <p class="empty">Loading tenants…</p>
        }
      </mat-card-content>
    </mat-card>
  `,
  styleUrl: './tenants.scss',
})
export class TenantList {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly router = inject(Router);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canChange = computed(() => canChangeTenants((p) => this.session.can(p)));
  protected readonly adminRoles = rolesWithPermission('administer').join(' or ');
  protected readonly quotaText = quotaText;
  protected readonly link = tenantDetailLink;

  protected readonly tenants: PolledQuery<readonly TenantSummary[]> = pollQuery(
    (signal) => this.graphql.request(TENANTS, {}, { flow: this.flow, signal }).then((data) => data.tenants),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents).events(['audit']).pipe(filter(changesTenants)),
    },
  );

  protected readonly rows = computed(() =>
    this.tenants
      .value()
      ?.slice()
      .sort((a, b) => a.id.localeCompare(b.id)),
  );

  /** A created tenant opens on its own page, where its keys are issued. */
  protected create(): void {
    openDialog<TenantDialog, TenantDialogData, TenantSummary>(this.dialog, TenantDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: {},
    })
      .afterClosed()
      .subscribe((created) => {
        if (created === undefined) {
          this.tenants.refresh();
          return;
        }
        void this.router.navigate(tenantDetailLink(created.id));
      });
  }
}
