import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { FormControl, ReactiveFormsModule, Validators } from '@angular/forms';
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

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, type GraphqlFlow } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { Receipt, type WorkflowReceipt } from '../../shared/receipt/receipt';
import { type RolloutActionView, signalEffectText } from './rollout-rules';
import { type AliasRevision, type Rollout, SIGNAL_ROLLOUT } from './rollouts.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface RolloutSignalDialogData {
  readonly rollout: Rollout;
  readonly action: RolloutActionView;
  readonly revisions: readonly AliasRevision[];
  readonly flow?: GraphqlFlow | undefined;
}

/** The API's bound on a signal's reason (RolloutsService.signalRollout). */
const MAX_REASON_LENGTH = 1024;

/**
 * Confirms one signal to a rollout. The effect sentence names the revision
 * that serves the alias afterwards ("Traffic returns to revision 1: chat@1"),
 * so the confirm button is safe without typing; the optional reason goes to
 * the receipt and, for a rollback after promotion, to the alias revision. The
 * API answers once the workflow has the signal; the panel behind shows what
 * it does with it.
 */
@Component({
  selector: 'lnx-rollout-signal-dialog',
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
    ErrorPanel,
    Icon,
    Receipt,
  ],
  templateUrl: './rollout-signal-dialog.html',
  styleUrl: './deployment-dialog.scss',
})
export class RolloutSignalDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<RolloutSignalDialog, boolean>>(MatDialogRef);
  private readonly data = inject<RolloutSignalDialogData>(MAT_DIALOG_DATA);
  private readonly flow = this.data.flow ?? this.graphql.startFlow();
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly rollout = this.data.rollout;
  protected readonly action = this.data.action;
  protected readonly effect = signalEffectText(this.action.action, this.rollout, this.data.revisions);
  protected readonly maxReasonLength = MAX_REASON_LENGTH;
  protected readonly reason = new FormControl('', {
    nonNullable: true,
    validators: [Validators.maxLength(MAX_REASON_LENGTH)],
  });

  private readonly submission = dialogSubmission<WorkflowReceipt>({
    focusOnOutcome: this.title,
    holdOpen: 'while-calling',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly receipt = this.submission.outcome;

  protected confirm(): void {
    if (this.reason.invalid) {
      this.reason.markAsTouched();
      return;
    }
    const reason = this.reason.value.trim();
    void this.submission.run(() =>
      this.graphql
        .requestWithIds(
          SIGNAL_ROLLOUT,
          { rollout: this.rollout.id, action: this.action.action, reason: reason === '' ? null : reason },
          { flow: this.flow },
        )
        .then(({ data: { signalRollout: rollout }, requestId, correlationId }) => ({
          workflowId: rollout.workflowId,
          temporalUiUrl: rollout.temporalUiUrl,
          correlationId,
          requestId,
          receiptHash: null,
          receiptNote:
            'The workflow writes it when it acts on the signal: the rollout’s receipts list shows it, ' +
            `as rollout.${this.action.action.toLowerCase()}.`,
          facts: [
            { label: 'Signal', value: this.action.label },
            { label: 'Rollout', value: `${rollout.modelRef} to ${rollout.alias}` },
            { label: 'State when answered', value: rollout.state },
            ...(reason === '' ? [] : [{ label: 'Reason', value: reason }]),
          ],
        })),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.receipt() !== undefined);
  }
}
