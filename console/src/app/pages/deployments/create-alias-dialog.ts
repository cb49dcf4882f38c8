import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import {
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import type { DataClass } from '@lunanexa/contracts/common';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { DEPLOYMENT_NAME_PATTERN } from './deployment-rules';
import { type AliasSummary, CREATE_ALIAS } from './rollouts.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

/** DataClassSchema's values, in order of sensitivity; checked against the contract type. */
export const DATA_CLASSES = [
  'public',
  'internal',
  'confidential',
  'restricted',
] as const satisfies readonly DataClass[];

/** The API's bound on an alias description (RolloutsService.createAlias). */
const MAX_DESCRIPTION_LENGTH = 1024;

/**
 * Creates an alias: the name callers invoke, and the data class they send
 * through it (a version's license must allow that class to be rolled out to
 * it). It serves nothing until its first rollout promotes.
 */
@Component({
  selector: 'lnx-create-alias-dialog',
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
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">
      {{ created() ? 'Alias ' + created()?.name + ' created' : 'Create an alias' }}
    </h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Creating the alias"></div>
      @if (created(); as alias) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          Alias {{ alias.name }} ({{ alias.dataClass }}) exists; it serves nothing until a rollout promotes.
        </p>
      } @else {
        <form id="alias-form" [formGroup]="form" (ngSubmit)="submit()">
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Alias name</mat-label>
            <input
              matInput
              formControlName="name"
              required
              maxlength="63"
              autocapitalize="none"
              autocomplete="off"
              spellcheck="false"
              placeholder="chat-default"
            />
            <mat-hint>What callers send as the model; a lower-case DNS label.</mat-hint>
            <mat-error>Use lower-case letters, digits and hyphens (at most 63).</mat-error>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Data class</mat-label>
            <mat-select formControlName="dataClass" required>
              @for (dataClass of dataClasses; track dataClass) {
                <mat-option [value]="dataClass">{{ dataClass }}</mat-option>
              }
            </mat-select>
            <mat-hint>The most sensitive data callers send through it; licenses must allow it.</mat-hint>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Description (optional)</mat-label>
            <input matInput formControlName="description" [attr.maxlength]="maxDescriptionLength" />
          </mat-form-field>
        </form>
        @if (error(); as error) {
          <lnx-error-panel heading="Could not create the alias" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      @if (created()) {
        <button matButton="filled" type="button" (click)="done()">Done</button>
      } @else {
        <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
        <button matButton="filled" type="submit" form="alias-form" disabledInteractive [disabled]="busy()">
          {{ busy() ? 'Creating…' : 'Create alias' }}
        </button>
      }
    </mat-dialog-actions>
  `,
  styleUrl: './deployment-dialog.scss',
})
export class CreateAliasDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<CreateAliasDialog, AliasSummary>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly dataClasses = DATA_CLASSES;
  protected readonly maxDescriptionLength = MAX_DESCRIPTION_LENGTH;
  protected readonly form = inject(NonNullableFormBuilder).group({
    name: ['', [Validators.required, Validators.pattern(DEPLOYMENT_NAME_PATTERN)]],
    dataClass: ['internal', [Validators.required]],
    description: ['', [Validators.maxLength(MAX_DESCRIPTION_LENGTH)]],
  });

  private readonly submission = dialogSubmission<AliasSummary>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly created = this.submission.outcome;

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { name, dataClass, description } = this.form.getRawValue();
    void this.submission.run(() =>
      this.graphql
        .request(CREATE_ALIAS, {
          input: { name, dataClass, description: description.trim() === '' ? null : description.trim() },
        })
        .then(({ createAlias }) => createAlias),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.created());
  }
}
