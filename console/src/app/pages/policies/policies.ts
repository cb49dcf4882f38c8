/*
 * Accessible names for browser tests:
 *   heading 'Policies' (level 1); regions 'Tenant data policies' (button 'Set data policy' for admins;
 *   table 'Tenant data policies' whose rowheaders are tenant ids, each row with a button
 *   'Edit policy of <tenant>'; empty: text 'No data policy is set.') and 'Runtime allowlist' (table
 *   'Runtimes and whether they are on the allowlist'; per row a switch 'Allow <name> <version>' for
 *   admins, which opens dialog 'Allow runtime …' / 'Disallow runtime …' with 'Confirm allow' /
 *   'Confirm disallow'). Failure: an alert 'Could not load policies: …' and 'Retry'.
 */
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
import { MatSlideToggle } from '@angular/material/slide-toggle';
import { rolesWithPermission } from '@lunanexa/contracts/roles';
import { filter } from 'rxjs';

import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { DIALOG_SIZE } from '../deployments/deployments-view';
import { REFRESH_INTERVAL_MS } from '../models/model-rules';
import { DataPolicyDialog, type DataPolicyDialogData } from './data-policy-dialog';
import { type AllowlistRuntime, type DataPolicy, POLICIES, type SigningKey } from './policies.queries';
import { canManageSigningKeys, canSetDataPolicy, canSetRuntimeAllowed, retentionText } from './policy-rules';
import { RuntimeAllowlistDialog, type RuntimeAllowlistDialogData } from './runtime-allowlist-dialog';
import { SigningDialog, type SigningDialogData } from './signing-dialog';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

interface PoliciesAnswer {
  readonly dataPolicies: readonly DataPolicy[];
  readonly runtimes: readonly AllowlistRuntime[];
  readonly trustedSigningKeys: readonly SigningKey[];
}

/**
 * Policies that gate what the fleet does with data and code: each tenant's
 * data policy (data class, payload retention, evaluation-capture consent)
 * and the runtime allowlist (only versions on an allowed runtime roll out).
 * Both are administrators' decisions; everyone else reads them.
 */
@Component({
  selector: 'lnx-policies',
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
    MatSlideToggle,
    LivePageHeader,
    QueryFailure,
    QueryProgress,
  ],
  templateUrl: './policies.html',
  styleUrl: './policies.scss',
})
export class Policies {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canSetPolicy = computed(() => canSetDataPolicy((p) => this.session.can(p)));
  protected readonly canSetAllowed = computed(() => canSetRuntimeAllowed((p) => this.session.can(p)));
  protected readonly canManageKeys = computed(() => canManageSigningKeys((p) => this.session.can(p)));
  protected readonly adminRoles = rolesWithPermission('administer').join(' or ');
  protected readonly retentionText = retentionText;

  protected readonly policies: PolledQuery<PoliciesAnswer> = pollQuery(
    (signal) => this.graphql.request(POLICIES, {}, { flow: this.flow, signal }),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit'])
        .pipe(
          filter(
            (event) =>
              event.dropped > 0 ||
              ['data-policy.', 'runtime.', 'signing'].some((prefix) =>
                (event.action ?? '').startsWith(prefix),
              ),
          ),
        ),
    },
  );

  protected readonly dataPolicies = computed(() =>
    this.policies
      .value()
      ?.dataPolicies.slice()
      .sort((a, b) => a.tenantId.localeCompare(b.tenantId)),
  );
  protected readonly runtimes = computed(() =>
    this.policies
      .value()
      ?.runtimes.slice()
      .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version)),
  );

  protected readonly signingKeys = computed(() =>
    this.policies
      .value()
      ?.trustedSigningKeys.slice()
      .sort((a, b) => a.label.localeCompare(b.label)),
  );

  protected registerKey(): void {
    this.openSigning({ action: 'register' }, 'first-tabbable');
  }

  protected revokeKey(key: SigningKey): void {
    this.openSigning({ action: 'revoke', keyId: key.keyId, label: key.label }, 'first-heading');
  }

  private openSigning(data: SigningDialogData, initialFocus: 'first-tabbable' | 'first-heading'): void {
    openDialog<SigningDialog, SigningDialogData>(this.dialog, SigningDialog, {
      ...DIALOG_SIZE,
      initialFocus,
      data,
    })
      .afterClosed()
      .subscribe(() => this.policies.refresh());
  }

  protected editPolicy(policy?: DataPolicy): void {
    openDialog<DataPolicyDialog, DataPolicyDialogData>(this.dialog, DataPolicyDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: policy === undefined ? {} : { policy },
    })
      .afterClosed()
      .subscribe(() => this.policies.refresh());
  }

  protected toggleAllowed(runtime: AllowlistRuntime, toggle: MatSlideToggle): void {
    // The switch shows the stored state until the change is confirmed and saved.
    toggle.checked = runtime.allowed;
    openDialog<RuntimeAllowlistDialog, RuntimeAllowlistDialogData>(this.dialog, RuntimeAllowlistDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-heading',
      data: { runtime },
    })
      .afterClosed()
      .subscribe(() => this.policies.refresh());
  }
}
