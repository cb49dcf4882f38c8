import { DatePipe, DecimalPipe } from '@angular/common';
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
import { asapScheduler, filter, observeOn, tap } from 'rxjs';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { DetailPage } from '../../shared/detail-page/detail-page';
import { type DetailQuery, detailQuery } from '../../shared/detail-page/detail-query';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { Icon } from '../../shared/icon/icon';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { DIALOG_SIZE } from '../deployments/deployments-view';
import { PacedLoad } from '../deployments/paced-load';
import { aliasDetailLink } from '../deployments/rollouts-view';
import { EvaluateDialog, type EvaluateDialogData } from './evaluate-dialog';
import {
  EVALUATION_PROGRESS_INTERVAL_MS,
  REFRESH_INTERVAL_MS,
  type VersionActionView,
  aliasesServing,
  bytesText,
  hardwareText,
  parameterText,
  runtimeMismatches,
  versionActions,
} from './model-rules';
import { MODEL_VERSION, type AliasUse, type EvaluationRun, type ModelVersionDetail } from './models.queries';
import { changesRegistry } from './models-view';
import { VersionActionDialog, type VersionActionDialogData } from './version-action-dialog';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** Evaluation runs listed on a version's page; older ones stay in the audit log. */
const RUN_LIMIT = 20;
const RUNNING = 'Running';

interface VersionAnswer {
  readonly version: ModelVersionDetail;
  readonly runs: readonly EvaluationRun[];
  readonly aliases: readonly AliasUse[];
}

/**
 * One model version: artifact (URI, digest, size, format, provenance),
 * license and its review, runtime and hardware, the digest verification, its
 * evaluations and the aliases serving it, with the lifecycle actions the
 * operator's role and the version's state allow.
 */
@Component({
  selector: 'lnx-model-version-detail',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    DatePipe,
    DecimalPipe,
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
    DetailPage,
    StatusBadge,
  ],
  templateUrl: './model-version-detail.html',
  styleUrl: './models.scss',
})
export class ModelVersionDetailPage {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  protected readonly flow = this.graphql.startFlow();

  /** `name@version` from the URL. */
  readonly versionRef = input.required<string>();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;

  private readonly pace = new PacedLoad(REFRESH_INTERVAL_MS);

  protected readonly answer: DetailQuery<string, VersionAnswer> = detailQuery({
    key: this.versionRef,
    load: (ref, signal, shown) => {
      // Quick while an evaluation runs (its result moves the version's state), slow otherwise.
      const running = shown?.runs.some((run) => run.state === RUNNING) ?? false;
      if (shown && this.pace.mayReuse(running)) {
        return Promise.resolve(shown);
      }
      this.pace.fetching();
      return this.graphql
        .request(MODEL_VERSION, { ref, limit: RUN_LIMIT }, { flow: this.flow, signal })
        .then((data) =>
          data.modelVersion === null
            ? null
            : { version: data.modelVersion, runs: data.evaluationRuns, aliases: data.aliases },
        );
    },
    keyChanged: () => this.pace.force(),
    intervalMs: EVALUATION_PROGRESS_INTERVAL_MS,
    refreshOn: inject(LiveEvents)
      .events(['audit'])
      .pipe(
        observeOn(asapScheduler),
        filter(changesRegistry),
        tap(() => this.pace.force()),
      ),
  });

  protected readonly actions = computed(() => {
    const version = this.answer.current()?.version;
    return version ? versionActions(version, (permission) => this.session.can(permission)) : [];
  });

  protected readonly serving = computed(() => {
    const answer = this.answer.current();
    return answer ? aliasesServing(answer.version.ref, answer.aliases) : [];
  });

  protected readonly mismatches = computed(() => {
    const version = this.answer.current()?.version;
    return version ? runtimeMismatches(version.requirements, version.runtime.supportedHardware) : [];
  });

  protected readonly bytesText = bytesText;
  protected readonly hardwareText = hardwareText;
  protected readonly parameterText = parameterText;
  protected readonly aliasLink = aliasDetailLink;

  /** Loads now, whatever the pace: the operator asked, or a dialog changed the version. */
  protected reload(): void {
    this.pace.force();
    this.answer.refresh();
  }

  protected act(version: ModelVersionDetail, action: VersionActionView): void {
    const dialog =
      action.action === 'evaluate'
        ? openDialog<EvaluateDialog, EvaluateDialogData>(this.dialog, EvaluateDialog, {
            ...DIALOG_SIZE,
            initialFocus: 'first-tabbable',
            data: { version, flow: this.flow },
          })
        : openDialog<VersionActionDialog, VersionActionDialogData>(this.dialog, VersionActionDialog, {
            ...DIALOG_SIZE,
            // The heading: Enter right after opening must not approve or deprecate anything.
            initialFocus: 'first-heading',
            data: {
              version,
              action: action.action,
              label: action.label,
              serving: this.serving(),
              flow: this.flow,
            },
          });
    dialog.afterClosed().subscribe(() => this.reload());
  }

  protected ttftP95(run: EvaluationRun): string {
    const p95 = run.metrics?.ttftMs?.p95;
    return p95 === undefined ? '—' : `${Math.round(p95)} ms`;
  }

  protected tokensPerSecond(run: EvaluationRun): string {
    return run.metrics ? run.metrics.tokensPerSecond.toFixed(0) : '—';
  }

  protected percent(rate: number | null | undefined): string {
    return rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(1)} %`;
  }
}
