import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import { PURGE_PAYLOAD_CAPTURES, type PayloadPurgeReceipt } from './tenants.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface PurgePayloadsDialogData {
  readonly tenantId: string;
  /** The confirmation sentence: what is deleted (purgeEffect). */
  readonly effect: string;
}

/**
 * Confirms purging a tenant's kept payloads (a deletion request), then shows
 * the deletion receipt: how many were deleted, the receipts' hashes and the
 * workflow that did it. One idempotency key per dialog, so a retried click
 * joins the same purge.
 */
@Component({
  selector: 'lnx-purge-payloads-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    MatDialogActions,
    MatDialogContent,
    MatDialogTitle,
    ErrorPanel,
    Icon,
    ConfirmActions,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">{{ purged() ? heading + ': done' : heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Purging the kept payloads"></div>
      @if (purged(); as receipt) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          Deleted {{ receipt.deleted }} kept payload{{ receipt.deleted === 1 ? '' : 's' }} of
          {{ receipt.tenantId }}.
        </p>
        <dl class="receipt">
          <div>
            <dt>Workflow</dt>
            <dd>
              <a [href]="receipt.temporalUiUrl" target="_blank" rel="noopener">{{ receipt.workflowId }}</a>
            </dd>
          </div>
          <div>
            <dt>Deletion receipts</dt>
            <dd>
              @for (hash of receipt.receiptHashes; track hash) {
                <code>{{ hash }}</code>
              } @empty {
                none (nothing was kept)
              }
            </dd>
          </div>
        </dl>
      } @else {
        <p>
          <strong>{{ data.effect }}</strong>
        </p>
        @if (error(); as error) {
          <lnx-error-panel heading="Could not purge the payloads" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <lnx-confirm-actions
        [busy]="busy()"
        [done]="purged() !== undefined"
        confirmLabel="Confirm purge"
        busyLabel="Purging…"
        [destructive]="true"
        (confirmed)="confirm()"
        (closed)="done()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: './tenant-dialog.scss',
})
export class PurgePayloadsDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<PurgePayloadsDialog, PayloadPurgeReceipt>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly data = inject<PurgePayloadsDialogData>(MAT_DIALOG_DATA);
  protected readonly heading = `Purge kept payloads of ${this.data.tenantId}`;
  private readonly idempotencyKey = `console-purge-${crypto.randomUUID()}`;

  private readonly submission = dialogSubmission<PayloadPurgeReceipt>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly purged = this.submission.outcome;

  protected confirm(): void {
    void this.submission.run(() =>
      this.graphql
        .request(PURGE_PAYLOAD_CAPTURES, {
          tenantId: this.data.tenantId,
          idempotencyKey: this.idempotencyKey,
        })
        .then(({ purgePayloadCaptures }) => purgePayloadCaptures),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.purged());
  }
}
