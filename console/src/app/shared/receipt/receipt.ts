import { ChangeDetectionStrategy, Component, input } from '@angular/core';

import { CopyButton } from '../copy-button/copy-button';
import { Icon } from '../icon/icon';

export interface ReceiptFact {
  readonly label: string;
  readonly value: string;
}

/**
 * What a workflow-backed operation (approve, drain, deploy, stop…) left
 * behind: enough to find it in Temporal, in the API's logs and in the audit
 * log.
 */
export interface WorkflowReceipt {
  readonly workflowId: string;
  /** Link to the workflow in the Temporal UI. */
  readonly temporalUiUrl: string;
  /** The `x-request-id` of the call that started or joined the workflow (GraphqlClient.requestWithIds). */
  readonly requestId: string;
  /** The correlation id the workflow, its log lines and its audit events carry. */
  readonly correlationId: string;
  /** Null when the API's answer holds no receipt hash (yet). */
  readonly receiptHash: string | null;
  /**
   * Why there is no hash, when it is null and the reason is not "the
   * workflow had not written it when the API answered".
   */
  readonly receiptNote?: string;
  /** Operation-specific figures first, e.g. a drain's in-flight requests at its start and timeout. */
  readonly facts: readonly ReceiptFact[];
}

/**
 * The receipt of a call that started or joined a workflow: where to find the
 * workflow and the ids it carries, as the operation answered them, then what
 * the operation itself reports.
 */
export function operationReceipt(
  operation: Pick<WorkflowReceipt, 'workflowId' | 'temporalUiUrl' | 'correlationId'>,
  requestId: string,
  report: Pick<WorkflowReceipt, 'receiptHash' | 'receiptNote' | 'facts'>,
): WorkflowReceipt {
  return {
    workflowId: operation.workflowId,
    temporalUiUrl: operation.temporalUiUrl,
    correlationId: operation.correlationId,
    requestId,
    ...report,
  };
}

const NOT_WRITTEN_YET = 'Not written yet: the workflow had not finished its receipt when the API answered.';

/**
 * A workflow's receipt as a list of facts: the operation's own figures, the
 * receipt hash, the request and correlation ids of the call, and the workflow
 * with a link to the Temporal UI. Each id has a copy button.
 */
@Component({
  selector: 'lnx-receipt',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CopyButton, Icon],
  template: `
    @let r = receipt();
    <dl class="facts">
      @for (fact of r.facts; track fact.label) {
        <div>
          <dt>{{ fact.label }}</dt>
          <dd>{{ fact.value }}</dd>
        </div>
      }
      <div>
        <dt>Receipt hash</dt>
        <dd class="with-copy">
          @if (r.receiptHash; as receiptHash) {
            <code>{{ receiptHash }}</code>
            <lnx-copy-button [text]="receiptHash" label="Copy receipt hash" />
          } @else {
            <span>{{ r.receiptNote ?? notWrittenYet }}</span>
          }
        </dd>
      </div>
      <div>
        <dt>Request id</dt>
        <dd class="with-copy">
          <code>{{ r.requestId }}</code>
          <lnx-copy-button [text]="r.requestId" label="Copy request id" />
        </dd>
      </div>
      <div>
        <dt>Correlation id</dt>
        <dd class="with-copy">
          <code>{{ r.correlationId }}</code>
          <lnx-copy-button [text]="r.correlationId" label="Copy correlation id" />
        </dd>
      </div>
      <div>
        <dt>Workflow</dt>
        <dd class="with-copy">
          <a class="external" [href]="r.temporalUiUrl" target="_blank" rel="noopener noreferrer">
            <code>{{ r.workflowId }}</code>
            <lnx-icon name="openInNew" />
            <span class="lnx-visually-hidden">(opens the Temporal UI in a new tab)</span>
          </a>
          <lnx-copy-button [text]="r.workflowId" label="Copy workflow id" />
        </dd>
      </div>
    </dl>
  `,
  styles: `
    :host {
      display: block;
    }

    // Labels in a column of their own where there is room; each value under its label on a phone.
    .facts {
      display: grid;
      // A long label ("In-flight requests cut off by the timeout") wraps rather than squeezing the ids.
      grid-template-columns: fit-content(14rem) minmax(0, 1fr);
      align-items: baseline;
      gap: 4px 16px;
      margin: 0;

      > div {
        display: contents;
      }

      dt {
        font: var(--mat-sys-label-large);
        color: var(--mat-sys-on-surface-variant);
      }

      dd {
        margin: 0;
        min-width: 0;
        overflow-wrap: anywhere;
      }
    }

    @media (max-width: 599.98px) {
      .facts {
        grid-template-columns: minmax(0, 1fr);
        gap: 2px;

        dd {
          margin-bottom: 8px;
        }
      }
    }

    .with-copy {
      display: flex;
      align-items: center;
      gap: 4px;
      min-width: 0;

      code {
        overflow-wrap: anywhere;
      }
    }

    code {
      font-family: var(--lnx-mono-font);
      font-size: 0.9em;
    }

    .external {
      --lnx-icon-size: 16px;
      display: inline-flex;
      align-items: center;
      gap: 4px;
      min-width: 0;
    }
  `,
})
export class Receipt {
  readonly receipt = input.required<WorkflowReceipt>();
  protected readonly notWrittenYet = NOT_WRITTEN_YET;
}
