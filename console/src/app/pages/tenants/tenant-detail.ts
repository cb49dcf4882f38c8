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
import { rolesWithPermission } from '@lunanexa/contracts/roles';
import { asapScheduler, filter, observeOn } from 'rxjs';

import { DetailPage } from '../../shared/detail-page/detail-page';
import { type DetailQuery, detailQuery } from '../../shared/detail-page/detail-query';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { TimeSeriesChart } from '../../shared/chart/time-series-chart';
import { GatewayKeyDialog, type GatewayKeyDialogData } from './gateway-key-dialog';
import { RevokeKeyDialog, type RevokeKeyDialogData } from './revoke-key-dialog';
import { TenantDialog, type TenantDialogData } from './tenant-dialog';
import { SigningDialog, type SigningDialogData } from '../policies/signing-dialog';
import { TENANT_SIGNING_POLICY } from '../policies/policies.queries';
import { PurgePayloadsDialog, type PurgePayloadsDialogData } from './purge-payloads-dialog';
import {
  canChangeTenants,
  canIssueKeys,
  canPurgePayloads,
  canRevokeKeys,
  purgeEffect,
  quotaText,
} from './tenant-rules';
import {
  ALIAS_NAMES,
  GATEWAY_KEYS,
  type GatewayKeySummary,
  TENANT,
  TENANT_USAGE,
  PAYLOAD_CAPTURES,
  type PayloadCaptureSummary,
  type TenantSummary,
} from './tenants.queries';
import {
  USAGE_BUCKET_SECONDS,
  USAGE_WINDOW_MINUTES,
  tenantUsageView,
  type TenantUsageView,
} from './tenant-usage-rules';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, changesTenants } from './tenants-view';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

interface TenantAnswer {
  readonly tenant: TenantSummary;
  readonly keys: readonly GatewayKeySummary[];
  readonly usage: TenantUsageView;
  readonly captures: readonly PayloadCaptureSummary[];
  /** Null when the API has no policy for it (the tenant vanished meanwhile). */
  readonly allowUnsignedVersions: boolean | null;
}

/** Kept payloads listed on the page (newest first); a purge deletes all of them, listed or not. */
const CAPTURES_LISTED = 50;

/**
 * One tenant: its quotas and every gateway key it was issued (never a
 * secret). Administrators edit the quotas, issue keys (the secret is shown
 * once, in the dialog) and revoke them; everyone else reads.
 */
@Component({
  selector: 'lnx-tenant-detail',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    DatePipe,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    DetailPage,
    StatusBadge,
    TimeSeriesChart,
  ],
  templateUrl: './tenant-detail.html',
  styleUrl: './tenants.scss',
})
export class TenantDetail {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  /** Tenant id from the URL. */
  readonly tenantId = input.required<string>();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canChange = computed(() => canChangeTenants((p) => this.session.can(p)));
  protected readonly canIssue = computed(() => canIssueKeys((p) => this.session.can(p)));
  protected readonly canRevoke = computed(() => canRevokeKeys((p) => this.session.can(p)));
  protected readonly canPurge = computed(() => canPurgePayloads((p) => this.session.can(p)));
  protected readonly adminRoles = rolesWithPermission('administer').join(' or ');
  protected readonly quotaText = quotaText;
  protected readonly usageWindowMinutes = USAGE_WINDOW_MINUTES;

  protected readonly answer: DetailQuery<string, TenantAnswer> = detailQuery({
    key: this.tenantId,
    load: async (id, signal) => {
      const { tenant } = await this.graphql.request(TENANT, { id }, { flow: this.flow, signal });
      if (tenant === null) return null;
      const [{ gatewayKeys }, { traffic }, { payloadCaptures }, { tenantSigningPolicy }] = await Promise.all([
        this.graphql.request(GATEWAY_KEYS, { tenantId: id }, { flow: this.flow, signal }),
        this.graphql.request(
          TENANT_USAGE,
          { tenant: id, windowMinutes: USAGE_WINDOW_MINUTES, bucketSeconds: USAGE_BUCKET_SECONDS },
          { flow: this.flow, signal },
        ),
        this.graphql.request(
          PAYLOAD_CAPTURES,
          { tenantId: id, limit: CAPTURES_LISTED },
          { flow: this.flow, signal },
        ),
        this.graphql.request(TENANT_SIGNING_POLICY, { tenantId: id }, { flow: this.flow, signal }),
      ]);
      return {
        tenant,
        keys: gatewayKeys,
        usage: tenantUsageView(traffic, id),
        captures: payloadCaptures,
        allowUnsignedVersions: tenantSigningPolicy?.allowUnsignedVersions ?? null,
      };
    },
    intervalMs: REFRESH_INTERVAL_MS,
    // After the task that built this component, so the router has bound the id before it is read.
    refreshOn: inject(LiveEvents).events(['audit']).pipe(observeOn(asapScheduler), filter(changesTenants)),
  });

  protected editQuotas(tenant: TenantSummary): void {
    openDialog<TenantDialog, TenantDialogData>(this.dialog, TenantDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: { tenant },
    })
      .afterClosed()
      .subscribe(() => this.answer.refresh());
  }

  protected async createKey(tenant: TenantSummary): Promise<void> {
    // The aliases that exist now: a key may only name those (the API checks again).
    const aliases = await this.graphql
      .request(ALIAS_NAMES, {}, { flow: this.flow })
      .then(({ aliases }) => aliases.map((alias) => alias.name).sort())
      .catch(() => null);
    openDialog<GatewayKeyDialog, GatewayKeyDialogData>(this.dialog, GatewayKeyDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-heading',
      // Without the list (the API unreachable) the dialog still opens; the create call reports the failure.
      data: { tenantId: tenant.id, aliases: aliases ?? [] },
    })
      .afterClosed()
      .subscribe(() => this.answer.refresh());
  }

  protected setUnsignedPolicy(tenant: TenantSummary, allow: boolean): void {
    openDialog<SigningDialog, SigningDialogData>(this.dialog, SigningDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-heading',
      data: { action: 'unsignedPolicy', tenantId: tenant.id, allow },
    })
      .afterClosed()
      .subscribe(() => this.answer.refresh());
  }

  protected purgePayloads(tenant: TenantSummary, captures: readonly PayloadCaptureSummary[]): void {
    openDialog<PurgePayloadsDialog, PurgePayloadsDialogData>(this.dialog, PurgePayloadsDialog, {
      ...DIALOG_SIZE,
      // The heading: Enter right after opening must not delete anything.
      initialFocus: 'first-heading',
      data: { tenantId: tenant.id, effect: purgeEffect(tenant.id, captures, CAPTURES_LISTED) },
    })
      .afterClosed()
      .subscribe(() => this.answer.refresh());
  }

  protected revoke(key: GatewayKeySummary): void {
    openDialog<RevokeKeyDialog, RevokeKeyDialogData>(this.dialog, RevokeKeyDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-heading',
      data: { key },
    })
      .afterClosed()
      .subscribe(() => this.answer.refresh());
  }
}
