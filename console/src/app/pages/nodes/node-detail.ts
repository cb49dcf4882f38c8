import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { MatTooltip } from '@angular/material/tooltip';
import { asapScheduler, filter, observeOn } from 'rxjs';

import { TimeSeriesChart } from '../../shared/chart/time-series-chart';
import { CopyButton } from '../../shared/copy-button/copy-button';
import { DetailPage } from '../../shared/detail-page/detail-page';
import { type DetailQuery, detailQuery } from '../../shared/detail-page/detail-query';
import { GraphqlClient, WORKFLOW_CALL_TIMEOUT_MS } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { Icon } from '../../shared/icon/icon';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { Toasts } from '../../shared/toasts/toasts';
import {
  type OperationReceipt,
  NodeOperationDialog,
  type NodeOperationDialogData,
} from './node-operation-dialog';
import { NodePlacementDialog, type NodePlacementDialogData } from './node-placement-dialog';
import {
  CONDITION_THRESHOLDS,
  GPU_HOT_CELSIUS,
  GPU_SERIES_MINUTES,
  conditionTone,
  formatCelsius,
  formatGpuMemory,
  formatPercent,
  formatPower,
  gpuCharts,
  gpuTrouble,
  isSlowdown,
  formatEcc,
  formatProcesses,
  formatXid,
  memoryNoteText,
  sortedTelemetry,
} from './gpu-rules';
import {
  type ActionState,
  type NodeAction,
  drainScopeText,
  formatAge,
  formatBytes,
  formatLabel,
  formatTaint,
  gpuSummary,
  nodeActionStates,
  recoveryRuns,
  type RecoveryRun,
} from './node-rules';
import {
  APPROVE_NODE,
  REJECT_NODE,
  CORDON_NODE,
  DRAIN_NODE,
  FLEET_NODE,
  type FleetNode,
  type GpuSeries,
  NODE_GPU_SERIES,
  NODE_RECOVERIES,
  ROTATE_NODE_CREDENTIAL,
  UNCORDON_NODE,
} from './nodes.queries';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, changesNode } from './nodes-view';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** One node: liveness, conditions, identity and credential, inventory, replicas, and the actions on it. */
@Component({
  selector: 'lnx-node-detail',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    DatePipe,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatTooltip,
    CopyButton,
    DetailPage,
    Icon,
    StatusBadge,
    TimeSeriesChart,
  ],
  templateUrl: './node-detail.html',
  styleUrl: './nodes.scss',
})
export class NodeDetail {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly toasts = inject(Toasts);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  /** Node name (or id) from the URL. */
  readonly name = input.required<string>();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;

  protected readonly node: DetailQuery<string, FleetNode> = detailQuery({
    key: this.name,
    load: (name, signal) =>
      this.graphql.request(FLEET_NODE, { node: name }, { flow: this.flow, signal }).then((data) => data.node),
    intervalMs: REFRESH_INTERVAL_MS,
    refreshOn: inject(LiveEvents)
      .events(['audit', 'node'])
      // After the task that built this component, so the router has bound `name` before it is read.
      .pipe(
        observeOn(asapScheduler),
        filter((event) => changesNode(event, this.node.current())),
      ),
  });

  /** The last hour of GPU samples, polled beside the node (the list page never asks for them). */
  protected readonly gpuSeries: DetailQuery<string, readonly GpuSeries[]> = detailQuery({
    key: this.name,
    load: (name, signal) =>
      this.graphql
        .request(NODE_GPU_SERIES, { node: name, minutes: GPU_SERIES_MINUTES }, { flow: this.flow, signal })
        .then((data) => data.node?.gpuSeries ?? null),
    intervalMs: REFRESH_INTERVAL_MS,
  });

  /** The node's NodeRecovery runs, from their receipts (by node id, known once the node has loaded). */
  private readonly nodeId = computed(() => this.node.current()?.id ?? '');
  protected readonly recoveries: DetailQuery<string, readonly RecoveryRun[]> = detailQuery({
    key: this.nodeId,
    load: (nodeId, signal) =>
      nodeId === ''
        ? Promise.resolve(null)
        : this.graphql
            .request(NODE_RECOVERIES, { nodeId }, { flow: this.flow, signal })
            .then((data) => recoveryRuns(data.auditEvents.events)),
    intervalMs: REFRESH_INTERVAL_MS,
  });

  protected readonly charts = computed(() => {
    // Anchored to when the answer came, so each poll moves the window along.
    const toMs = this.gpuSeries.updatedAt()?.getTime() ?? Date.now();
    return gpuCharts(this.gpuSeries.current() ?? [], { fromMs: toMs - GPU_SERIES_MINUTES * 60_000, toMs });
  });
  protected readonly telemetry = computed(() => sortedTelemetry(this.node.current()?.gpuTelemetry ?? []));

  protected readonly seriesMinutes = GPU_SERIES_MINUTES;
  protected readonly hotCelsius = GPU_HOT_CELSIUS;
  protected readonly thresholds = CONDITION_THRESHOLDS;
  protected readonly conditionTone = conditionTone;
  protected readonly formatPercent = formatPercent;
  protected readonly formatCelsius = formatCelsius;
  protected readonly formatGpuMemory = formatGpuMemory;
  protected readonly formatPower = formatPower;
  protected readonly memoryNoteText = memoryNoteText;
  protected readonly formatProcesses = formatProcesses;
  protected readonly formatXid = formatXid;
  protected readonly formatEcc = formatEcc;
  protected readonly gpuTrouble = gpuTrouble;
  protected readonly isSlowdown = isSlowdown;

  protected readonly actions = computed(() => {
    const node = this.node.current();
    return node ? nodeActionStates(node, (permission) => this.session.can(permission)) : undefined;
  });

  protected readonly anyAction = computed(() => {
    const actions = this.actions();
    return actions !== undefined && Object.values(actions).some((action) => action.offered);
  });

  /** Cordon and uncordon run in place, without a dialog; a failure shows as an error toast. */
  protected readonly actionBusy = signal(false);

  protected readonly formatAge = formatAge;
  protected readonly formatBytes = formatBytes;
  protected readonly formatLabel = formatLabel;
  protected readonly formatTaint = formatTaint;
  protected readonly gpuSummary = gpuSummary;

  protected cordonAction(
    node: FleetNode,
    actions: Readonly<Record<NodeAction, ActionState>>,
  ): { readonly label: string; readonly state: ActionState } {
    return node.cordoned
      ? { label: 'Uncordon', state: actions.uncordon }
      : { label: 'Cordon', state: actions.cordon };
  }

  protected setCordoned(node: FleetNode, cordoned: boolean): void {
    if (this.actionBusy()) {
      return;
    }
    this.actionBusy.set(true);
    const flow = this.graphql.startFlow();
    const request = cordoned
      ? this.graphql.request(CORDON_NODE, { node: node.name }, { flow })
      : this.graphql.request(UNCORDON_NODE, { node: node.name }, { flow });
    void request
      .then(
        () => this.node.refresh(),
        (failure: unknown) =>
          this.toasts.error(`Could not ${cordoned ? 'cordon' : 'uncordon'} ${node.name}`, failure),
      )
      .finally(() => this.actionBusy.set(false));
  }

  protected approve(node: FleetNode): void {
    // The Approve button is gone once the node is no longer Pending, so focus returns to the page heading.
    this.runOperation(
      {
        title: `Approve ${node.name}`,
        scope: `approves node ${node.name} (${node.address}, host key ${node.hostKeyFingerprint})`,
        explanation:
          'Approving issues the node its credential and lets the controller check it over SSH; it becomes Active ' +
          'once that succeeds. Check that the host key fingerprint is the one the machine shows.',
        confirmLabel: `Approve ${node.name}`,
        failureHeading: `Could not approve ${node.name}`,
        run: (flow) =>
          this.graphql
            .requestWithIds(APPROVE_NODE, { node: node.name }, { flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS })
            .then(({ data: { approveNode }, requestId }): OperationReceipt => ({
              ...approveNode,
              requestId,
              facts: [],
            })),
      },
      '#node-title',
    );
  }

  protected reject(node: FleetNode): void {
    this.runOperation(
      {
        title: `Reject ${node.name}`,
        scope: `rejects node ${node.name} (${node.address}, host key ${node.hostKeyFingerprint})`,
        explanation:
          'Rejecting refuses the machine: it gets no credential and no work, and must enroll again with a new ' +
          'bootstrap token. Reject a node you do not recognise or whose host key does not match the machine.',
        confirmLabel: `Reject ${node.name}`,
        failureHeading: `Could not reject ${node.name}`,
        reasonRequired: { hint: 'Why this node is refused; the audit log keeps it.' },
        run: (flow, idempotencyKey, override) =>
          this.graphql
            .requestWithIds(
              REJECT_NODE,
              { node: node.name, reason: override?.reason ?? '', idempotencyKey },
              { flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS },
            )
            .then(({ data: { rejectNode }, requestId }): OperationReceipt => ({
              ...rejectNode,
              requestId,
              facts: [],
            })),
      },
      '#node-title',
    );
  }

  protected drain(node: FleetNode): void {
    this.runOperation({
      title: `Drain ${node.name}`,
      scope: drainScopeText(node),
      explanation:
        'Draining cordons the node and moves each replica make-before-break: it keeps serving until its ' +
        'replacement elsewhere is Ready, then finishes its in-flight requests (bounded) and stops. A forced ' +
        'drain stops replicas that have nowhere to go. Uncordon returns the node to service.',
      confirmLabel: `Drain ${node.name}`,
      failureHeading: `Could not drain ${node.name}`,
      override: {
        code: 'DRAIN_WOULD_STRAND_REPLICAS',
        confirmLabel: `Drain ${node.name} anyway`,
        consequence:
          'Draining anyway stops the replicas named above with nowhere to run them: their deployments serve with ' +
          'fewer replicas, or not at all, until capacity returns.',
      },
      run: (flow, idempotencyKey, override) =>
        this.graphql
          .requestWithIds(
            DRAIN_NODE,
            {
              node: node.name,
              idempotencyKey,
              ...(override ? { force: true, reason: override.reason } : {}),
            },
            { flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS },
          )
          .then(({ data: { drainNode }, requestId }): OperationReceipt => ({
            ...drainNode,
            requestId,
            facts: [
              { label: 'Replicas at start', value: String(drainNode.replicasAtStart) },
              { label: 'In-flight requests at start', value: String(drainNode.inFlightAtStart) },
              {
                label: 'In-flight requests cut off by the timeout',
                value: String(drainNode.inFlightAtTimeout),
              },
            ],
          })),
    });
  }

  protected rotate(node: FleetNode): void {
    this.runOperation({
      title: `Rotate the credential of ${node.name}`,
      scope: `rotates the credential of node ${node.name} (serial ${node.credentialSerial}, key ${node.keyId})`,
      explanation:
        'The agent switches to a new key with no gap in heartbeats, then the controller issues a new credential ' +
        'and the old key stops being accepted.',
      confirmLabel: `Rotate credential of ${node.name}`,
      failureHeading: `Could not rotate the credential of ${node.name}`,
      run: (flow, idempotencyKey) =>
        this.graphql
          .requestWithIds(
            ROTATE_NODE_CREDENTIAL,
            { node: node.name, idempotencyKey },
            { flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS },
          )
          .then(({ data: { rotateNodeCredential }, requestId }): OperationReceipt => ({
            ...rotateNodeCredential,
            requestId,
            facts: [
              { label: 'Credential serial', value: String(rotateNodeCredential.node.credentialSerial) },
              { label: 'Key id', value: rotateNodeCredential.node.keyId },
            ],
          })),
    });
  }

  protected editPlacement(node: FleetNode): void {
    openDialog<NodePlacementDialog, NodePlacementDialogData>(this.dialog, NodePlacementDialog, {
      ...DIALOG_SIZE,
      initialFocus: 'first-tabbable',
      data: { node },
    })
      .afterClosed()
      .subscribe(() => this.node.refresh());
  }

  private runOperation(data: NodeOperationDialogData, restoreFocus: boolean | string = true): void {
    openDialog<NodeOperationDialog, NodeOperationDialogData>(this.dialog, NodeOperationDialog, {
      ...DIALOG_SIZE,
      // The heading, not the confirm button: Enter right after opening must not start a workflow.
      initialFocus: 'first-heading',
      restoreFocus,
      data,
    })
      .afterClosed()
      .subscribe(() => this.node.refresh());
  }
}
