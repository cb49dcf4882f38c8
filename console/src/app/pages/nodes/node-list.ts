import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { MatSort, MatSortHeader, type Sort } from '@angular/material/sort';
import { MatTooltip } from '@angular/material/tooltip';
import { RouterLink } from '@angular/router';
import { rolesWithPermission } from '@lunanexa/contracts/roles';
import { filter } from 'rxjs';

import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { QueryProgress } from '../../shared/query-status/query-progress';
import { Session } from '../../shared/session/session';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { BootstrapTokenDialog } from './bootstrap-token-dialog';
import {
  type ConditionBadge,
  type GpuFigures,
  conditionBadges,
  gpuFigures,
  sortedTelemetry,
} from './gpu-rules';
import { DIALOG_SIZE, REFRESH_INTERVAL_MS, changesNodes, nodeDetailLink } from './nodes-view';
import {
  canCreateBootstrapToken,
  formatAge,
  formatLabel,
  formatTaint,
  gpuMemoryModels,
  gpuSummary,
  runningAssignments,
} from './node-rules';
import { FLEET_NODES, type FleetNode } from './nodes.queries';
import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

interface NodeRow {
  readonly node: FleetNode;
  readonly link: readonly string[];
  readonly labels: readonly string[];
  readonly taints: readonly string[];
  readonly gpus: string;
  readonly memoryModels: string;
  readonly heartbeat: string;
  readonly replicas: number;
  /** The latest heartbeat's figures per GPU; [] before the first. */
  readonly gpuNow: readonly GpuFigures[];
  readonly problems: readonly ConditionBadge[];
  readonly healthy: ConditionBadge | null;
}

type SortKey = 'name' | 'readiness' | 'cordoned' | 'conditions' | 'gpus' | 'heartbeat' | 'replicas';

const SORT_VALUE: Readonly<Record<SortKey, (row: NodeRow) => string | number>> = {
  name: (row) => row.node.name,
  // Readiness and lifecycle share the State column.
  readiness: (row) => `${row.node.readiness} ${row.node.lifecycle}`,
  cordoned: (row) => (row.node.cordoned ? 1 : 0),
  // Most conditions in trouble first when descending.
  conditions: (row) => row.problems.length,
  gpus: (row) => row.node.gpus.length,
  // A node that never sent a heartbeat sorts as the stalest.
  heartbeat: (row) => row.node.heartbeatAgeSeconds ?? Number.POSITIVE_INFINITY,
  replicas: (row) => row.replicas,
};

function isSortKey(key: string): key is SortKey {
  return Object.hasOwn(SORT_VALUE, key);
}

/** Every enrolled node at a glance: state, placement inputs, hardware, liveness and load. */
@Component({
  selector: 'lnx-node-list',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    DatePipe,
    RouterLink,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatSort,
    MatSortHeader,
    MatTooltip,
    LivePageHeader,
    QueryFailure,
    QueryProgress,
    StatusBadge,
  ],
  templateUrl: './node-list.html',
  styleUrl: './nodes.scss',
})
export class NodeList {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  /** One correlation id for the whole visit, so every poll of this page is one flow in the logs. */
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canCreateToken = computed(() => canCreateBootstrapToken((p) => this.session.can(p)));
  protected readonly tokenRoles = rolesWithPermission('administer').join(' or ');

  protected readonly nodes: PolledQuery<readonly FleetNode[]> = pollQuery(
    (signal) => this.graphql.request(FLEET_NODES, {}, { flow: this.flow, signal }).then((data) => data.nodes),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit', 'node'])
        .pipe(filter((event) => changesNodes(event, this.nodes.value()))),
    },
  );

  protected readonly sort = signal<Sort>({ active: 'name', direction: 'asc' });

  protected readonly rows = computed((): readonly NodeRow[] | undefined => {
    const nodes = this.nodes.value();
    if (nodes === undefined) {
      return undefined;
    }
    const rows = nodes.map((node): NodeRow => ({
      node,
      link: nodeDetailLink(node.name),
      labels: node.labels.map(formatLabel),
      taints: node.taints.map(formatTaint),
      gpus: gpuSummary(node.gpus),
      memoryModels: gpuMemoryModels(node.gpus),
      heartbeat: formatAge(node.heartbeatAgeSeconds),
      replicas: runningAssignments(node).length,
      gpuNow: sortedTelemetry(node.gpuTelemetry).map(gpuFigures),
      ...conditionBadges(node.conditions),
    }));
    const { active, direction } = this.sort();
    if (direction === '' || !isSortKey(active)) {
      return rows;
    }
    const value = SORT_VALUE[active];
    const sign = direction === 'asc' ? 1 : -1;
    return [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order =
        typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      // Ties keep name order, so equal rows do not swap places between polls.
      return sign * order || a.node.name.localeCompare(b.node.name);
    });
  });

  protected createToken(): void {
    openDialog(this.dialog, BootstrapTokenDialog, { ...DIALOG_SIZE, initialFocus: 'first-heading' });
  }
}
