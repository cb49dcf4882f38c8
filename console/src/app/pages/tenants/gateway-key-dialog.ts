import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
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
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { KEY_LIFETIMES, KEY_NAME_MAX, expiresAtFor } from './tenant-rules';
import { CREATE_GATEWAY_KEY, type CreatedGatewayKey } from './tenants.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface GatewayKeyDialogData {
  readonly tenantId: string;
  /** The alias names that exist: a key may only be granted these. */
  readonly aliases: readonly string[];
}

/**
 * Issues a gateway key for a tenant and shows its secret exactly once, with
 * a copy button. The API keeps only the key's sha256, so once the secret
 * shows, the dialog closes only through the button that says it was copied
 * (not Escape, not the backdrop), and the secret leaves with the dialog.
 */
@Component({
  selector: 'lnx-gateway-key-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    DatePipe,
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
    CopyButton,
    ErrorPanel,
    Icon,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">
      {{ created() ? 'Gateway key created' : 'Create a gateway key for ' + data.tenantId }}
    </h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Creating the gateway key"></div>
      @if (created(); as created) {
        <p class="warning" role="status">
          <lnx-icon name="warning" />
          <span>
            <strong>Shown once.</strong> This is the only time the key is shown: LunaNexa keeps only its hash.
            Copy it now into the application's secret store; if it is lost, create another and revoke this
            one.
          </span>
        </p>
        <div class="secret">
          <code aria-label="Gateway key">{{ created.secret }}</code>
          <lnx-copy-button [text]="created.secret" caption="Copy key" label="Copy the gateway key" />
        </div>
        <p>
          {{ created.key.prefix }}… ({{ created.key.name }}) may call {{ created.key.aliases.join(', ') }}, as
          <code>Authorization: Bearer &lt;key&gt;</code>; it
          @if (created.key.expiresAt; as expiresAt) {
            expires {{ expiresAt | date: 'yyyy-MM-dd HH:mm' }}.
          } @else {
            does not expire.
          }
        </p>
      } @else if (data.aliases.length === 0) {
        <p class="warning" role="status">
          <lnx-icon name="warning" />
          <span
            >There are no aliases yet. A key may call only aliases: create one under Deployments first.</span
          >
        </p>
      } @else {
        <form id="gateway-key-form" [formGroup]="form" (ngSubmit)="submit()">
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Name</mat-label>
            <input matInput formControlName="name" required [maxlength]="nameMax" />
            <mat-hint>What it is for, e.g. the application that will hold it.</mat-hint>
            <mat-error>1 to {{ nameMax }} characters.</mat-error>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Aliases</mat-label>
            <mat-select formControlName="aliases" multiple required>
              @for (alias of data.aliases; track alias) {
                <mat-option [value]="alias">{{ alias }}</mat-option>
              }
            </mat-select>
            <mat-hint>The key may call only these (never a pinned model version).</mat-hint>
            <mat-error>Choose at least one alias.</mat-error>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Expires</mat-label>
            <mat-select formControlName="lifetime">
              @for (lifetime of lifetimes; track lifetime.label) {
                <mat-option [value]="lifetime.days">{{ lifetime.label }}</mat-option>
              }
            </mat-select>
          </mat-form-field>
        </form>
        @if (error(); as error) {
          <lnx-error-panel heading="Could not create the gateway key" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      @if (created()) {
        <button matButton="filled" type="button" (click)="done()">I have copied it — close</button>
      } @else {
        <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
        @if (data.aliases.length > 0) {
          <button
            matButton="filled"
            type="submit"
            form="gateway-key-form"
            disabledInteractive
            [disabled]="busy()"
          >
            {{ busy() ? 'Creating…' : 'Create key' }}
          </button>
        }
      }
    </mat-dialog-actions>
  `,
  styleUrl: './tenant-dialog.scss',
})
export class GatewayKeyDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<GatewayKeyDialog, string>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly data = inject<GatewayKeyDialogData>(MAT_DIALOG_DATA);
  protected readonly nameMax = KEY_NAME_MAX;
  protected readonly lifetimes = KEY_LIFETIMES;

  protected readonly form = inject(NonNullableFormBuilder).group({
    name: ['', [Validators.required, Validators.maxLength(KEY_NAME_MAX), Validators.pattern(/\S/)]],
    aliases: [[] as string[], [Validators.required]],
    lifetime: [null as number | null],
  });

  private readonly submission = dialogSubmission<CreatedGatewayKey>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly created = this.submission.outcome;

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { name, aliases, lifetime } = this.form.getRawValue();
    const expiresAt = expiresAtFor(lifetime, new Date());
    void this.submission
      .run(() =>
        this.graphql
          .request(CREATE_GATEWAY_KEY, {
            input: {
              tenantId: this.data.tenantId,
              name: name.trim(),
              aliases,
              ...(expiresAt === null ? {} : { expiresAt }),
            },
          })
          .then(({ createGatewayKey }) => createGatewayKey),
      )
      .then((created) => {
        // Shown this once: only the button that says it was copied closes the dialog now.
        if (created !== undefined) this.dialogRef.disableClose = true;
      });
  }

  /** Closes with the key's id only: the secret stays in this dialog and goes with it. */
  protected done(): void {
    this.dialogRef.close(this.created()?.key.id);
  }
}
