import type { OverviewNode } from './overview.queries';

/** Twice-and-a-bit the agents' heartbeat period: one late heartbeat is noise, three missed ones are not. */
export const STALE_HEARTBEAT_SECONDS = 15;

/** The readiness words of schema v1, always listed (a zero is information); others are added as sent. */
const READINESS_ORDER = ['Ready', 'NotReady', 'Unreachable'] as const;

export interface Count {
  readonly label: string;
  readonly count: number;
}

export interface MemoryTotal {
  readonly totalBytes: number;
  /** Undefined when no GPU in the group reports free memory. */
  readonly freeBytes: number | undefined;
  /** GPUs (discrete) or nodes (unified) the figures come from. */
  readonly sources: number;
}

export type AlertKind = 'unreachable' | 'pending' | 'stale-heartbeat';

export interface FleetAlert {
  readonly kind: AlertKind;
  readonly node: string;
  readonly message: string;
}

export interface FleetSummary {
  readonly nodes: number;
  readonly readiness: readonly Count[];
  readonly lifecycle: readonly Count[];
  readonly discrete: MemoryTotal | undefined;
  /**
   * GPUs that share the node's system memory (`memoryModel: unified`, e.g.
   * GB10; read from `proc-meminfo`) report that memory, so it is counted once
   * per node, and apart from discrete GPU memory: adding the two would claim
   * capacity twice.
   */
  readonly unified: MemoryTotal | undefined;
  readonly alerts: readonly FleetAlert[];
}

function countBy(values: readonly string[], always: readonly string[] = []): readonly Count[] {
  const counts = new Map<string, number>(always.map((label) => [label, 0]));
  for (const value of values) {
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts].map(([label, count]) => ({ label, count }));
}

class MemoryAccumulator {
  private total = 0;
  private free = 0;
  private anyFree = false;
  private sources = 0;

  add(totalBytes: number | null, freeBytes: number | null): void {
    if (totalBytes === null) {
      return;
    }
    this.total += totalBytes;
    this.sources += 1;
    if (freeBytes !== null) {
      this.free += freeBytes;
      this.anyFree = true;
    }
  }

  result(): MemoryTotal | undefined {
    return this.sources === 0
      ? undefined
      : { totalBytes: this.total, freeBytes: this.anyFree ? this.free : undefined, sources: this.sources };
  }
}

function sharesSystemMemory(gpu: OverviewNode['gpus'][number]): boolean {
  return gpu.memoryModel === 'unified' || gpu.memorySource === 'proc-meminfo';
}

function alertsOf(node: OverviewNode): FleetAlert[] {
  const alerts: FleetAlert[] = [];
  const age = node.heartbeatAgeSeconds;
  if (node.readiness === 'Unreachable') {
    alerts.push({
      kind: 'unreachable',
      node: node.name,
      message:
        age === null
          ? 'Unreachable — no heartbeat yet'
          : `Unreachable — last heartbeat ${Math.round(age)} s ago`,
    });
  } else if (age !== null && age > STALE_HEARTBEAT_SECONDS) {
    // An Unreachable node's heartbeat is old by definition; saying so twice would only add noise.
    alerts.push({
      kind: 'stale-heartbeat',
      node: node.name,
      message: `Last heartbeat ${Math.round(age)} s ago`,
    });
  }
  if (node.lifecycle === 'Pending') {
    alerts.push({ kind: 'pending', node: node.name, message: 'Pending — awaiting approval' });
  }
  return alerts;
}

const ALERT_ORDER: Readonly<Record<AlertKind, number>> = { unreachable: 0, 'stale-heartbeat': 1, pending: 2 };

export function summarizeFleet(nodes: readonly OverviewNode[]): FleetSummary {
  const discrete = new MemoryAccumulator();
  const unified = new MemoryAccumulator();
  for (const node of nodes) {
    const shared = node.gpus.find(sharesSystemMemory);
    if (shared !== undefined) {
      unified.add(shared.totalMemoryBytes, shared.freeMemoryBytes);
    }
    for (const gpu of node.gpus) {
      if (!sharesSystemMemory(gpu)) {
        discrete.add(gpu.totalMemoryBytes, gpu.freeMemoryBytes);
      }
    }
  }
  return {
    nodes: nodes.length,
    readiness: countBy(
      nodes.map((node) => node.readiness),
      READINESS_ORDER,
    ),
    lifecycle: countBy(nodes.map((node) => node.lifecycle)),
    discrete: discrete.result(),
    unified: unified.result(),
    alerts: nodes
      .flatMap(alertsOf)
      .sort((a, b) => ALERT_ORDER[a.kind] - ALERT_ORDER[b.kind] || a.node.localeCompare(b.node)),
  };
}
