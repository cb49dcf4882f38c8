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
import { revokeEffect } from './tenant-rules';
import { type GatewayKeySummary, REVOKE_GATEWAY_KEY } from './tenants.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface RevokeKeyDialogData {
  readonly key: GatewayKeySummary;
}

/** Confirms revoking a gateway key, naming what stops working. */
@Component({
  selector: 'lnx-revoke-key-dialog',
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
    <h2 mat-dialog-title #title tabindex="-1">{{ revoked() ? heading + ': done' : heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Revoking the gateway key"></div>
      @if (revoked(); as after) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ after.prefix }}… is revoked; gateways refuse it.
        </p>
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        @if (error(); as error) {
          <lnx-error-panel heading="Could not revoke the key" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <lnx-confirm-actions
        [busy]="busy()"
        [done]="revoked() !== undefined"
        confirmLabel="Confirm revoke"
        busyLabel="Revoking…"
        [destructive]="true"
        (confirmed)="confirm()"
        (closed)="done()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: './tenant-dialog.scss',
})
export class RevokeKeyDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<RevokeKeyDialog, GatewayKeySummary>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly key = inject<RevokeKeyDialogData>(MAT_DIALOG_DATA).key;
  protected readonly heading = `Revoke key ${this.key.prefix}`;
  protected readonly effect = revokeEffect(this.key);

  private readonly submission = dialogSubmission<GatewayKeySummary>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly revoked = this.submission.outcome;

  protected confirm(): void {
    void this.submission.run(() =>
      this.graphql
        .request(REVOKE_GATEWAY_KEY, { id: this.key.id })
        .then(({ revokeGatewayKey }) => revokeGatewayKey),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.revoked());
  }
}
