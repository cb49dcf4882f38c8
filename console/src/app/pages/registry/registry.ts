/*
 * Accessible names for browser tests:
 *   heading 'Registry' (level 1); regions 'Licenses', 'Runtimes', 'Evaluation suites' and 'Benchmark
 *   profiles', each with a table of the same name (rowheaders: the record's name) and, for the roles
 *   that may, a button 'Create license' / 'Register runtime' / 'Create evaluation suite' / 'Create
 *   benchmark profile' opening a dialog of the same purpose ('Create a license', …) with a 'Form' /
 *   'Paste JSON' toggle, a live region 'Checks' and the buttons 'Cancel' and 'Create' / 'Register'.
 *   License rows: buttons 'Approve <name>' / 'Reject <name>' (dialog 'Approve license <name>', textbox
 *   'Note', 'Confirm approve' / 'Confirm reject'). Runtime rows: 'Allow <name> <version>' /
 *   'Disallow <name> <version>' (the Policies view's allowlist dialog).
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
import { filter } from 'rxjs';

import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { DIALOG_SIZE } from '../deployments/deployments-view';
import {
  RuntimeAllowlistDialog,
  type RuntimeAllowlistDialogData,
} from '../policies/runtime-allowlist-dialog';
import { LicenseDecisionDialog, type LicenseDecisionDialogData } from './license-decision-dialog';
import {
  RegistryCreateDialog,
  type RegistryCreateDialogData,
  type RegistryRecordKind,
} from './registry-create-dialog';
import { type LicenseUse, licenseDecisions, registryControls } from './registry-rules';
import {
  REGISTRY,
  type RegistryAnswer,
  type RegistryLicense,
  type RegistryRuntime,
} from './registry.queries';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** Registry records change on operators' actions; live events refresh sooner. */
const REFRESH_INTERVAL_MS = 15_000;
const REGISTRY_ACTIONS = [
  'license.',
  'runtime.',
  'evaluation-suite.',
  'benchmark-profile.',
  'model-version.',
];

/**
 * The registry's records around model versions: licenses and their review,
 * runtimes and the allowlist, evaluation suites and benchmark profiles —
 * each created here from a form or pasted JSON, checked as the API checks it.
 */
@Component({
  selector: 'lnx-registry',
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
    LivePageHeader,
    QueryFailure,
    QueryProgress,
    StatusBadge,
  ],
  templateUrl: './registry.html',
  styleUrl: './registry.scss',
})
export class Registry {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly controls = computed(() => registryControls((p) => this.session.can(p)));

  protected readonly registry: PolledQuery<RegistryAnswer> = pollQuery(
    (signal) => this.graphql.request(REGISTRY, {}, { flow: this.flow, signal }),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit'])
        .pipe(
          filter(
            (event) =>
              event.dropped > 0 || REGISTRY_ACTIONS.some((prefix) => (event.action ?? '').startsWith(prefix)),
          ),
        ),
    },
  );

  protected readonly licenses = computed(() =>
    this.registry
      .value()
      ?.licenses.slice()
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
  protected readonly runtimes = computed(() =>
    this.registry
      .value()
      ?.runtimes.slice()
      .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version)),
  );
  protected readonly suites = computed(() =>
    this.registry
      .value()
      ?.evaluationSuites.slice()
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
  protected readonly profiles = computed(() =>
    this.registry
      .value()
      ?.benchmarkProfiles.slice()
      .sort((a, b) => a.name.localeCompare(b.name)),
  );

  /** Versions per license name: the scope a review decision reaches. */
  private readonly usesByLicense = computed(() => {
    const uses = new Map<string, LicenseUse[]>();
    for (const model of this.registry.value()?.models ?? []) {
      for (const version of model.versions) {
        const list = uses.get(version.license.name) ?? [];
        list.push({ ref: version.ref, state: version.state });
        uses.set(version.license.name, list);
      }
    }
    return uses;
  });

  protected usesOf(license: RegistryLicense): readonly LicenseUse[] {
    return this.usesByLicense().get(license.name) ?? [];
  }

  protected decisions(license: RegistryLicense): readonly ('approve' | 'reject')[] {
    return licenseDecisions(license, (p) => this.session.can(p));
  }

  protected create(kind: RegistryRecordKind): void {
    openDialog<RegistryCreateDialog, RegistryCreateDialogData>(this.dialog, RegistryCreateDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: { kind },
    })
      .afterClosed()
      .subscribe(() => this.registry.refresh());
  }

  protected decide(license: RegistryLicense, decision: 'approve' | 'reject'): void {
    openDialog<LicenseDecisionDialog, LicenseDecisionDialogData>(this.dialog, LicenseDecisionDialog, {
      ...DIALOG_SIZE,
      // The note field: a decision is never confirmed by an Enter pressed as the dialog opens.
      initialFocus: 'first-tabbable',
      data: { license, decision, uses: this.usesOf(license) },
    })
      .afterClosed()
      .subscribe(() => this.registry.refresh());
  }

  protected toggleAllowed(runtime: RegistryRuntime): void {
    openDialog<RuntimeAllowlistDialog, RuntimeAllowlistDialogData>(this.dialog, RuntimeAllowlistDialog, {
      ...DIALOG_SIZE,
      // The heading: Enter right after opening must not change the allowlist.
      initialFocus: 'first-heading',
      data: { runtime },
    })
      .afterClosed()
      .subscribe(() => this.registry.refresh());
  }
}
