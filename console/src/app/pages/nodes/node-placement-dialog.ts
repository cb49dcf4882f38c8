import { ChangeDetectionStrategy, Component, ErrorHandler, inject, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
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

import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { type GraphqlRequestError, asRequestError } from '../../shared/graphql/graphql-error';
import { TAINT_EFFECT_DESCRIPTIONS, formatLabel, formatTaint, parseLabels, parseTaints } from './node-rules';
import { type FleetNode, SET_NODE_LABELS, SET_NODE_TAINTS } from './nodes.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface NodePlacementDialogData {
  readonly node: FleetNode;
}

/**
 * Replaces a node's labels and taints, the two inputs to placement. Each list
 * is sent only when it changed, so saving labels cannot overwrite taints
 * another operator set meanwhile.
 */
@Component({
  selector: 'lnx-node-placement-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
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
  ],
  templateUrl: './node-placement-dialog.html',
  styleUrl: './node-dialog.scss',
})
export class NodePlacementDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<NodePlacementDialog, FleetNode>>(MatDialogRef);
  private readonly errorHandler = inject(ErrorHandler);
  private readonly flow = this.graphql.startFlow();
  protected readonly node = inject<NodePlacementDialogData>(MAT_DIALOG_DATA).node;

  protected readonly effects = Object.entries(TAINT_EFFECT_DESCRIPTIONS).map(([effect, description]) => ({
    effect,
    description,
  }));

  private readonly initialLabels = this.node.labels.map(formatLabel).join('\n');
  private readonly initialTaints = this.node.taints.map(formatTaint).join('\n');

  protected readonly form = inject(NonNullableFormBuilder).group({
    labels: [this.initialLabels],
    taints: [this.initialTaints],
  });

  protected readonly busy = signal(false);
  protected readonly error = signal<GraphqlRequestError | undefined>(undefined);
  protected readonly invalidTaints = signal<readonly string[]>([]);

  protected submit(): void {
    if (this.busy()) {
      return;
    }
    const { labels, taints } = this.form.getRawValue();
    const parsedTaints = parseTaints(taints);
    this.invalidTaints.set(parsedTaints.invalid);
    if (parsedTaints.invalid.length > 0) {
      return;
    }
    this.busy.set(true);
    this.error.set(undefined);
    void this.save(labels, parsedTaints.taints)
      .then(
        (node) => this.dialogRef.close(node),
        (failure: unknown) => this.error.set(asRequestError(failure, this.errorHandler)),
      )
      .finally(() => this.busy.set(false));
  }

  private async save(
    labels: string,
    taints: readonly { key: string; value: string; effect: string }[],
  ): Promise<FleetNode | undefined> {
    let node: FleetNode | undefined;
    const name = this.node.name;
    // Compared with what the dialog opened with: an untouched list is not sent, so it cannot undo another operator's change.
    if (labels.trim() !== this.initialLabels.trim()) {
      const data = await this.graphql.request(
        SET_NODE_LABELS,
        { node: name, labels: parseLabels(labels) },
        { flow: this.flow },
      );
      node = data.setNodeLabels;
    }
    if (taints.map(formatTaint).join('\n') !== this.initialTaints) {
      const data = await this.graphql.request(SET_NODE_TAINTS, { node: name, taints }, { flow: this.flow });
      node = data.setNodeTaints;
    }
    return node;
  }
}
