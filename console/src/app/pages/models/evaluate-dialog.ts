import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  computed,
  inject,
  viewChild,
} from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatOption, MatSelect } from '@angular/material/select';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import {
  GraphqlClient,
  type GraphqlFlow,
  WORKFLOW_CALL_TIMEOUT_MS,
} from '../../shared/graphql/graphql-client';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { randomId } from '../../shared/graphql/random-id';
import { Receipt, type WorkflowReceipt, operationReceipt } from '../../shared/receipt/receipt';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { EVALUATION_PROGRESS_INTERVAL_MS } from './model-rules';
import {
  EVALUATION_CHOICES,
  EVALUATION_RUN,
  type EvaluationOperation,
  type EvaluationRun,
  type ModelVersionDetail,
  START_EVALUATION,
} from './models.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface EvaluateDialogData {
  readonly version: Pick<ModelVersionDetail, 'ref'>;
  readonly flow?: GraphqlFlow;
}

const CHOICES_INTERVAL_MS = 30_000;
const RUNNING = 'Running';
const READY = 'Ready';

interface Started {
  readonly operation: EvaluationOperation;
  readonly receipt: WorkflowReceipt;
}

/**
 * Runs an evaluation suite (and optionally a benchmark profile) against one
 * of the version's deployments, then follows the run until it passes, fails
 * or errors. Its result becomes the version's latest evaluation: Evaluated
 * (approvable) or EvaluationFailed.
 */
@Component({
  selector: 'lnx-evaluate-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    MatButton,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    MatError,
    MatFormField,
    MatHint,
    MatLabel,
    MatOption,
    MatSelect,
    ErrorPanel,
    Receipt,
    StatusBadge,
  ],
  templateUrl: './evaluate-dialog.html',
  styleUrl: './model-dialog.scss',
})
export class EvaluateDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<EvaluateDialog, string>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly data = inject<EvaluateDialogData>(MAT_DIALOG_DATA);
  private readonly flow = this.data.flow ?? this.graphql.startFlow();
  /** One key per dialog: a retry after a browser timeout returns the run the first attempt started. */
  private readonly idempotencyKey = randomId();

  protected readonly ref = this.data.version.ref;

  protected readonly choices = pollQuery(
    (signal) => this.graphql.request(EVALUATION_CHOICES, {}, { flow: this.flow, signal }),
    { intervalMs: CHOICES_INTERVAL_MS },
  );

  /** The version's own deployments: an evaluation runs against a deployment of the version it judges. */
  protected readonly deployments = computed(() =>
    (this.choices.value()?.deployments ?? [])
      .filter((deployment) => deployment.modelRef === this.ref)
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
  protected readonly suites = computed(() => this.choices.value()?.evaluationSuites ?? []);
  protected readonly profiles = computed(() => this.choices.value()?.benchmarkProfiles ?? []);
  protected readonly READY = READY;

  protected readonly form = inject(NonNullableFormBuilder).group({
    deployment: ['', [Validators.required]],
    suite: ['', [Validators.required]],
    /** '' runs the suite only. */
    profile: [''],
  });

  private readonly submission = dialogSubmission<Started>({
    focusOnOutcome: this.title,
    holdOpen: 'while-calling',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly started = this.submission.outcome;

  /** The run as it moves; polled only once started (before then there is no run id to ask about). */
  protected readonly progress: PolledQuery<EvaluationRun | null> = pollQuery(
    (signal): Promise<EvaluationRun | null> => {
      const started = this.started();
      const shown = this.progress.value();
      if (started === undefined || (shown !== null && shown !== undefined && shown.state !== RUNNING)) {
        return Promise.resolve(shown ?? null);
      }
      return this.graphql
        .request(EVALUATION_RUN, { id: started.operation.runId }, { flow: this.flow, signal })
        .then((data) => data.evaluationRun);
    },
    { intervalMs: EVALUATION_PROGRESS_INTERVAL_MS },
  );

  protected readonly run = computed(
    (): EvaluationRun | null => this.progress.value() ?? this.started()?.operation.run ?? null,
  );
  protected readonly running = computed(() => {
    const run = this.run();
    return this.started() !== undefined && (run === null || run.state === RUNNING);
  });

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { deployment, suite, profile } = this.form.getRawValue();
    void this.submission
      .run(() =>
        this.graphql
          .requestWithIds(
            START_EVALUATION,
            {
              input: {
                modelVersion: this.ref,
                deployment,
                suite,
                profile: profile === '' ? null : profile,
                idempotencyKey: this.idempotencyKey,
              },
            },
            { flow: this.flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS },
          )
          .then(({ data: { startEvaluation: operation }, requestId }) => ({
            operation,
            receipt: operationReceipt(operation, requestId, {
              receiptHash: null,
              receiptNote:
                'Written when the run ends: the Audit view shows it as the evaluation.finish event with the ' +
                'correlation id below.',
              facts: [
                { label: 'Run id', value: operation.runId },
                { label: 'Deployment', value: deployment },
                { label: 'Suite', value: suite },
                { label: 'Benchmark profile', value: profile === '' ? 'none' : profile },
              ],
            }),
          })),
      )
      // The run's progress is polled by its id, which the answer just brought.
      .then((started) => {
        if (started !== undefined) {
          this.progress.refresh();
        }
      });
  }

  protected percent(rate: number): string {
    return `${(rate * 100).toFixed(1)} %`;
  }

  protected done(): void {
    this.dialogRef.close(this.started()?.operation.runId);
  }
}
