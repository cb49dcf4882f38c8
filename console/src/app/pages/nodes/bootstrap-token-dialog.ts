import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import { MatCheckbox } from '@angular/material/checkbox';
import {
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { parseLabels } from './node-rules';
import {
  CREATE_BOOTSTRAP_TOKEN,
  type CreateBootstrapTokenInput,
  type CreatedBootstrapToken,
} from './nodes.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

/** The API's default lifetime (15 minutes), offered as the starting value. */
const DEFAULT_TTL_MINUTES = 15;

/**
 * Creates a single-use bootstrap token and shows it exactly once, with the
 * command to run on the new node. The API never returns the secret again, so
 * the dialog cannot be dismissed by Escape or the backdrop while it is shown.
 */
@Component({
  selector: 'lnx-bootstrap-token-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    DatePipe,
    ReactiveFormsModule,
    MatButton,
    MatCheckbox,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    MatError,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    CopyButton,
    ErrorPanel,
    Icon,
  ],
  templateUrl: './bootstrap-token-dialog.html',
  styleUrl: './node-dialog.scss',
})
export class BootstrapTokenDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef =
    inject<MatDialogRef<BootstrapTokenDialog, CreatedBootstrapToken>>(MatDialogRef);
  private readonly flow = this.graphql.startFlow();

  protected readonly form = inject(NonNullableFormBuilder).group({
    nodeName: [''],
    labels: [''],
    ttlMinutes: [DEFAULT_TTL_MINUTES, [Validators.required, Validators.min(1)]],
    autoApprove: [false],
  });

  private readonly submission = dialogSubmission<CreatedBootstrapToken>();
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly created = this.submission.outcome;

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { nodeName, labels, ttlMinutes, autoApprove } = this.form.getRawValue();
    const parsedLabels = parseLabels(labels);
    const input: CreateBootstrapTokenInput = {
      autoApprove,
      ttlSeconds: Math.round(ttlMinutes * 60),
      ...(nodeName.trim() === '' ? {} : { nodeName: nodeName.trim() }),
      ...(parsedLabels.length === 0 ? {} : { labels: parsedLabels }),
    };
    void this.submission
      .run(() =>
        this.graphql
          .request(CREATE_BOOTSTRAP_TOKEN, { input }, { flow: this.flow })
          .then((data) => data.createBootstrapToken),
      )
      .then((created) => {
        // The token is shown this once: only the button that says it was copied closes the dialog now.
        if (created !== undefined) {
          this.dialogRef.disableClose = true;
        }
      });
  }

  protected done(): void {
    this.dialogRef.close(this.created());
  }
}
