import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, ErrorHandler, inject, signal } from '@angular/core';
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
import { MatProgressBar } from '@angular/material/progress-bar';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { type GraphqlRequestError, asRequestError } from '../../shared/graphql/graphql-error';
import { Icon } from '../../shared/icon/icon';
import { parseLabels } from './node-rules';
import {
  CREATE_BOOTSTRAP_TOKEN,
  type CreateBootstrapTokenInput,
  type CreatedBootstrapToken,
} from './nodes.queries';

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
    MatProgressBar,
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
  private readonly errorHandler = inject(ErrorHandler);
  private readonly flow = this.graphql.startFlow();

  protected readonly form = inject(NonNullableFormBuilder).group({
    nodeName: [''],
    labels: [''],
    ttlMinutes: [DEFAULT_TTL_MINUTES, [Validators.required, Validators.min(1)]],
    autoApprove: [false],
  });

  protected readonly busy = signal(false);
  protected readonly error = signal<GraphqlRequestError | undefined>(undefined);
  protected readonly created = signal<CreatedBootstrapToken | undefined>(undefined);

  protected submit(): void {
    if (this.busy() || this.created()) {
      return;
    }
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
    this.busy.set(true);
    this.error.set(undefined);
    void this.graphql
      .request(CREATE_BOOTSTRAP_TOKEN, { input }, { flow: this.flow })
      .then(
        (data) => {
          this.dialogRef.disableClose = true;
          this.created.set(data.createBootstrapToken);
        },
        (failure: unknown) => this.error.set(asRequestError(failure, this.errorHandler)),
      )
      .finally(() => this.busy.set(false));
  }

  protected done(): void {
    this.dialogRef.close(this.created());
  }
}
