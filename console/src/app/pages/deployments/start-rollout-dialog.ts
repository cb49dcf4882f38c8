import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  computed,
  inject,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import {
  type AbstractControl,
  NonNullableFormBuilder,
  ReactiveFormsModule,
  type ValidationErrors,
  Validators,
} from '@angular/forms';
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
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import { Router } from '@angular/router';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, WORKFLOW_CALL_TIMEOUT_MS } from '../../shared/graphql/graphql-client';
import { pollQuery } from '../../shared/graphql/polled-query';
import { randomId } from '../../shared/graphql/random-id';
import type { StartRolloutInput } from '@lunanexa/sdk/generated/graphql';
import { Icon } from '../../shared/icon/icon';
import { Receipt, type WorkflowReceipt, operationReceipt } from '../../shared/receipt/receipt';
import { parseSteps } from './rollout-rules';
import { type RolloutOperation, ROLLOUT_CHOICES, START_ROLLOUT } from './rollouts.queries';
import { aliasDetailLink } from './rollouts-view';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface StartRolloutDialogData {
  /** The alias the dialog starts with (from an alias's page); the operator may still pick another. */
  readonly alias?: string;
}

/** Choices change rarely while the dialog is open. */
const CHOICES_INTERVAL_MS = 60_000;

/** The defaults of DEFAULT_ROLLOUT_PLAN (libs/contracts/src/rollout.ts), shown so the operator sees the plan. */
const DEFAULT_STEPS = '10, 50, 100';
const DEFAULT_WINDOW_SECONDS = 60;
const DEFAULT_SAMPLES = 20;
const DEFAULT_BAKE_SECONDS = 0;
const DEFAULT_P95_SLACK_MS = 50;
/** RolloutThresholdsSchema's bound on p95SlackMs. */
const MAX_P95_SLACK_MS = 600_000;

function stepsValidator(control: AbstractControl<string>): ValidationErrors | null {
  const parsed = parseSteps(control.value);
  return typeof parsed === 'string' ? { steps: parsed } : null;
}

function integer(control: AbstractControl<number | null>): ValidationErrors | null {
  const value = control.value;
  return value === null || Number.isInteger(value) ? null : { integer: true };
}

interface Started {
  readonly alias: string;
  readonly operation: RolloutOperation;
  readonly receipt: WorkflowReceipt;
}

/**
 * Starts a rollout: an alias, the model version to move it to and the plan
 * (canary steps, analysis window and sample, bake period). The API checks
 * license, digest, evaluation, approval and hardware first and refuses with a
 * typed code (shown as the error's code); on success the dialog shows the
 * receipt and opens the alias's page, where the rollout runs live.
 */
@Component({
  selector: 'lnx-start-rollout-dialog',
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
    MatInput,
    MatLabel,
    MatOption,
    MatSelect,
    ErrorPanel,
    Icon,
    Receipt,
  ],
  templateUrl: './start-rollout-dialog.html',
  styleUrl: './deployment-dialog.scss',
})
export class StartRolloutDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly router = inject(Router);
  private readonly dialogRef = inject<MatDialogRef<StartRolloutDialog, string>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly data = inject<StartRolloutDialogData | null>(MAT_DIALOG_DATA, { optional: true });

  protected readonly flow = this.graphql.startFlow();
  /** One key per dialog: a retry after a browser timeout joins the rollout the first attempt started. */
  private readonly idempotencyKey = randomId();

  protected readonly choices = pollQuery(
    (signal) => this.graphql.request(ROLLOUT_CHOICES, {}, { flow: this.flow, signal }),
    { intervalMs: CHOICES_INTERVAL_MS },
  );

  protected readonly form = this.fb.group({
    alias: [this.data?.alias ?? '', [Validators.required]],
    modelVersion: ['', [Validators.required]],
    steps: [DEFAULT_STEPS, [Validators.required, stepsValidator]],
    analysisWindowSeconds: this.fb.control<number | null>(DEFAULT_WINDOW_SECONDS, [
      Validators.required,
      Validators.min(1),
      Validators.max(86_400),
      integer,
    ]),
    samplesPerStep: this.fb.control<number | null>(DEFAULT_SAMPLES, [
      Validators.required,
      Validators.min(1),
      Validators.max(100_000),
      integer,
    ]),
    p95SlackMs: this.fb.control<number | null>(DEFAULT_P95_SLACK_MS, [
      Validators.required,
      Validators.min(0),
      Validators.max(MAX_P95_SLACK_MS),
    ]),
    bakeSeconds: this.fb.control<number | null>(DEFAULT_BAKE_SECONDS, [
      Validators.required,
      Validators.min(0),
      Validators.max(86_400),
      integer,
    ]),
  });

  private readonly chosenAlias = toSignal(this.form.controls.alias.valueChanges, {
    initialValue: this.form.controls.alias.value,
  });

  protected readonly aliases = computed(() =>
    [...(this.choices.value()?.aliases ?? [])].sort((a, b) => a.name.localeCompare(b.name)),
  );

  /** The chosen alias as last read: what serves it now and whether a rollout is already moving it. */
  protected readonly alias = computed(() =>
    this.aliases().find((alias) => alias.name === this.chosenAlias()),
  );

  protected readonly versions = computed(() =>
    [...(this.choices.value()?.modelVersions ?? [])].sort((a, b) => a.ref.localeCompare(b.ref)),
  );

  protected readonly maxP95SlackMs = MAX_P95_SLACK_MS;

  private readonly submission = dialogSubmission<Started>({
    focusOnOutcome: this.title,
    holdOpen: 'while-calling',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly started = this.submission.outcome;

  protected stepsError(): string {
    const error: unknown = this.form.controls.steps.errors?.['steps'];
    return typeof error === 'string' ? error : 'Enter the canary weights, e.g. 10, 50, 100.';
  }

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const value = this.form.getRawValue();
    const steps = parseSteps(value.steps);
    if (typeof steps === 'string') {
      return;
    }
    const input: StartRolloutInput = {
      alias: value.alias,
      modelVersion: value.modelVersion,
      steps: [...steps],
      analysisWindowSeconds: value.analysisWindowSeconds ?? DEFAULT_WINDOW_SECONDS,
      samplesPerStep: value.samplesPerStep ?? DEFAULT_SAMPLES,
      bakeSeconds: value.bakeSeconds ?? DEFAULT_BAKE_SECONDS,
      p95SlackMs: value.p95SlackMs ?? DEFAULT_P95_SLACK_MS,
      idempotencyKey: this.idempotencyKey,
    };
    void this.submission.run(() =>
      this.graphql
        .requestWithIds(START_ROLLOUT, { input }, { flow: this.flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS })
        .then(({ data: { startRollout: operation }, requestId }) => ({
          alias: value.alias,
          operation,
          receipt: operationReceipt(operation, requestId, {
            receiptHash: operation.rollout.receipts[0]?.hash ?? null,
            facts: [
              { label: 'Rollout id', value: operation.rollout.id },
              { label: 'Model version', value: operation.rollout.modelRef },
              { label: 'Steps', value: `${operation.rollout.steps.join(' → ')} %` },
              { label: 'State', value: operation.rollout.state },
            ],
          }),
        })),
    );
  }

  /** Closes and opens the alias, whose page follows the rollout live. */
  protected watch(): void {
    const started = this.started();
    this.dialogRef.close(started?.operation.rollout.id);
    if (started) {
      void this.router.navigate(aliasDetailLink(started.alias));
    }
  }
}
