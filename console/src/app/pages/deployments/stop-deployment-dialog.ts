import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, WORKFLOW_CALL_TIMEOUT_MS } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { Receipt, type WorkflowReceipt, operationReceipt } from '../../shared/receipt/receipt';
import { stopScope, stopScopeText } from './deployment-rules';
import { type Deployment, STOP_DEPLOYMENT } from './deployments.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface StopDeploymentDialogData {
  /** The deployment as the page last read it; its running replicas are the scope the operator confirms. */
  readonly deployment: Deployment;
}

/**
 * Confirm, stop, then show the receipt. The scope sentence names what stops
 * (replicas, nodes, in-flight requests) so the confirm button needs no typing
 * to be safe; the dialog opens on its heading, so Enter does not confirm.
 */
@Component({
  selector: 'lnx-stop-deployment-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    MatButton,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    ErrorPanel,
    Icon,
    Receipt,
  ],
  templateUrl: './stop-deployment-dialog.html',
  styleUrl: './deployment-dialog.scss',
})
export class StopDeploymentDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<StopDeploymentDialog, WorkflowReceipt>>(MatDialogRef);
  /** The whole dialog is one flow: a retry after a failure is found under the same correlation id. */
  private readonly flow = this.graphql.startFlow();
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly deployment = inject<StopDeploymentDialogData>(MAT_DIALOG_DATA).deployment;
  private readonly scope = stopScope(this.deployment);
  protected readonly scopeText = stopScopeText(this.deployment);

  // The API answers once the agents report the replicas stopped; Escape must not drop that answer.
  private readonly submission = dialogSubmission<WorkflowReceipt>({
    focusOnOutcome: this.title,
    holdOpen: 'until-done',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly receipt = this.submission.outcome;

  protected confirm(): void {
    void this.submission.run(() =>
      this.graphql
        // By id: the name could be reused by another deployment before a retry.
        .requestWithIds(
          STOP_DEPLOYMENT,
          { deployment: this.deployment.id },
          { flow: this.flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS },
        )
        .then(({ data: { stopDeployment }, requestId }) =>
          operationReceipt(stopDeployment, requestId, {
            receiptHash: null,
            receiptNote:
              'Not in the API’s answer. The workflow wrote it once the replicas stopped: the Audit view ' +
              'shows it as the deployment.finish event with the correlation id below.',
            facts: [
              { label: 'State', value: stopDeployment.deployment?.state ?? 'not reported' },
              { label: 'Replicas stopped', value: String(this.scope.replicas) },
              { label: 'In-flight requests when confirmed', value: String(this.scope.inFlight) },
            ],
          }),
        ),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.receipt());
  }
}
