import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, type GraphqlFlow } from '../../shared/graphql/graphql-client';
import { randomId } from '../../shared/graphql/random-id';
import { Icon } from '../../shared/icon/icon';
import { Receipt, type WorkflowReceipt } from '../../shared/receipt/receipt';
import type { FleetNode } from './nodes.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

/** What a finished node workflow left behind, with the node as it answered. */
export interface OperationReceipt extends WorkflowReceipt {
  readonly node: FleetNode;
}

export interface NodeOperationDialogData {
  /** "Drain dgx-2". */
  readonly title: string;
  /** The one sentence the operator confirms, e.g. "drains node dgx-2: 3 replicas, 12 in-flight requests". */
  readonly scope: string;
  readonly explanation: string;
  /** The confirm button's text; names the action and the node so Enter on it is never a surprise. */
  readonly confirmLabel: string;
  /** Failure heading: "Could not drain dgx-2". */
  readonly failureHeading: string;
  readonly run: (
    flow: GraphqlFlow,
    idempotencyKey: string,
    override?: OverrideReason,
  ) => Promise<OperationReceipt>;
  /**
   * A refusal the operator may override with a reason that the receipt records (a drain that would strand
   * replicas). Offered only after the API refused with `code`, so the first attempt is always the safe one.
   */
  /**
   * An action that needs a reason from the start (rejecting a node): the field shows at once and the first
   * attempt carries it, recorded on the receipt.
   */
  readonly reasonRequired?: { readonly hint: string };
  readonly override?: {
    readonly code: string;
    /** The confirm button once the override is offered, e.g. "Drain dgx-2 anyway". */
    readonly confirmLabel: string;
    /** What the operator accepts by overriding, shown above the reason field. */
    readonly consequence: string;
  };
}

/** Why the operator overrides a refusal; audited with the operation. */
export interface OverrideReason {
  readonly reason: string;
}

/**
 * Confirm, run, then show the receipt of a node workflow (approve, drain,
 * rotate credential). Closes with the receipt once one was shown, so the page
 * can refresh the node.
 */
@Component({
  selector: 'lnx-node-operation-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    MatButton,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    ErrorPanel,
    Icon,
    Receipt,
  ],
  templateUrl: './node-operation-dialog.html',
  styleUrl: './node-dialog.scss',
})
export class NodeOperationDialog {
  private readonly dialogRef = inject<MatDialogRef<NodeOperationDialog, OperationReceipt>>(MatDialogRef);
  protected readonly data = inject<NodeOperationDialogData>(MAT_DIALOG_DATA);

  /** The whole dialog is one flow: a retry after a failure is found under the same correlation id. */
  private readonly flow = inject(GraphqlClient).startFlow();
  /**
   * One key for every attempt from this dialog. When an attempt times out in
   * the browser the workflow may still be running; retrying with the same key
   * attaches to that run instead of starting a second one.
   */
  private readonly idempotencyKey = randomId();

  // Long workflows must not be dismissed half-way by Escape or a stray click on the backdrop.
  private readonly submission = dialogSubmission<OperationReceipt>({ holdOpen: 'until-done' });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly receipt = this.submission.outcome;

  /** The override is on offer once the API refused with its code; it stays on offer for the retries after. */
  private readonly overrideOffered = signal(false);
  protected readonly overriding = computed(
    () =>
      this.overrideOffered() ||
      (this.data.override !== undefined && this.error()?.code === this.data.override.code),
  );
  protected readonly reason = signal('');
  protected readonly askingReason = computed(
    () => this.data.reasonRequired !== undefined || this.overriding(),
  );
  protected readonly reasonMissing = computed(() => this.askingReason() && this.reason().trim() === '');

  protected confirm(): void {
    if (this.data.reasonRequired !== undefined && !this.overriding()) {
      if (this.reasonMissing()) return;
      void this.submission.run(() =>
        this.data.run(this.flow, this.idempotencyKey, { reason: this.reason().trim() }),
      );
      return;
    }
    if (!this.overriding()) {
      void this.submission.run(() => this.data.run(this.flow, this.idempotencyKey));
      return;
    }
    if (this.reasonMissing()) return;
    this.overrideOffered.set(true);
    // A new key: the refused attempt started nothing, and the override is a different request.
    this.overrideKey ??= randomId();
    const key = this.overrideKey;
    void this.submission.run(() => this.data.run(this.flow, key, { reason: this.reason().trim() }));
  }

  private overrideKey: string | undefined;

  protected setReason(event: Event): void {
    this.reason.set((event.target as HTMLTextAreaElement).value);
  }

  protected done(): void {
    this.dialogRef.close(this.receipt());
  }
}
