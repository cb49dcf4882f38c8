import type { AssignmentIntent } from '@lunanexa/contracts/deployment';
import type { TaintEffect } from '@lunanexa/contracts/node';
import type { Permission } from '@lunanexa/contracts/roles';

import type { Assignment, FleetNode, Gpu } from './nodes.queries';

/*
 * The contracts keep their intent and taint-effect lists in modules
 * that also build zod schemas, and the console must not bundle zod (see
 * console/tsconfig.json). So only their types are imported: every name this
 * file compares against is checked by the compiler against the contract list,
 * and a rename there breaks this build.
 */

/** Only these replicas are "running" for a drain: the DrainNode workflow counts the same ones. */
const RUN = 'Run' satisfies AssignmentIntent;

/**
 * Taint effects with what each does to placement, for the edit dialog's
 * choices. Keyed by the contract type so a new effect fails the build here
 * until it has a description.
 */
export const TAINT_EFFECT_DESCRIPTIONS: Readonly<Record<TaintEffect, string>> = {
  NoSchedule: 'no new replicas without a toleration',
  PreferNoSchedule: 'avoided unless nothing else fits',
  NoExecute: 'no new replicas, and running ones are moved off',
};

export const TAINT_EFFECTS = Object.keys(TAINT_EFFECT_DESCRIPTIONS) as TaintEffect[];

export function runningAssignments(node: Pick<FleetNode, 'assignments'>): readonly Assignment[] {
  return node.assignments.filter((assignment) => assignment.intent === RUN);
}

export interface DrainScope {
  readonly replicas: number;
  /** Sum of what the agents last reported; replicas that never reported count as 0. */
  readonly inFlight: number;
  /** Running replicas with no in-flight figure, so the operator knows the sum may be low. */
  readonly unreported: number;
}

export function drainScope(node: Pick<FleetNode, 'assignments'>): DrainScope {
  const running = runningAssignments(node);
  return {
    replicas: running.length,
    inFlight: running.reduce((sum, assignment) => sum + (assignment.inFlight ?? 0), 0),
    unreported: running.filter((assignment) => assignment.inFlight === null).length,
  };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "drains node dgx-2: 3 replicas, 12 in-flight requests": what the confirmation dialog asks the operator to accept. */
export function drainScopeText(node: Pick<FleetNode, 'name' | 'assignments'>): string {
  const scope = drainScope(node);
  const base =
    `drains node ${node.name}: ${count(scope.replicas, 'replica', 'replicas')}, ` +
    `${count(scope.inFlight, 'in-flight request', 'in-flight requests')}`;
  return scope.unreported === 0
    ? base
    : `${base} (${count(scope.unreported, 'replica has', 'replicas have')} not reported in-flight requests)`;
}

/** Whether an action is offered at all (role) and, if offered, whether it can run now (lifecycle). */
export interface ActionState {
  readonly offered: boolean;
  readonly enabled: boolean;
  /** Why an offered action cannot run now; shown beside the disabled control. */
  readonly reason?: string;
}

/** The node actions this page has controls for, named as in `FleetNode.actions`. */
export type NodeAction =
  'approve' | 'reject' | 'cordon' | 'uncordon' | 'drain' | 'rotateCredential' | 'setLabels';
const NODE_ACTIONS: readonly NodeAction[] = [
  'approve',
  'reject',
  'cordon',
  'uncordon',
  'drain',
  'rotateCredential',
  'setLabels',
];

/**
 * Which node actions to show and enable. Whether the node's state allows an
 * action is the API's answer (`FleetNode.actions`), never worked out here.
 * Actions the role cannot use are not offered (a viewer sees a read-only
 * page); actions the state rules out stay visible but disabled, with the
 * API's reason, so an operator learns why. Approve and reject only show while
 * allowed: they mean nothing once the node stopped waiting for them.
 */
export function nodeActionStates(
  node: Pick<FleetNode, 'actions'>,
  can: (permission: Permission) => boolean,
): Readonly<Record<NodeAction, ActionState>> {
  const operator = can('operate');
  const states = {} as Record<NodeAction, ActionState>;
  for (const action of NODE_ACTIONS) {
    const answer = node.actions.find((entry) => entry.action === action);
    const allowed = answer?.allowed ?? false;
    const offered = operator && ((action !== 'approve' && action !== 'reject') || allowed);
    // An API that does not list the action has not said it is allowed; the control stays disabled.
    const reason = answer?.reason ?? `the API did not say whether ${action} is allowed`;
    states[action] = allowed ? { offered, enabled: true } : { offered, enabled: false, reason };
  }
  return states;
}

/** Creating bootstrap tokens is an administrator's decision: it lets a new machine into the fleet. */
export function canCreateBootstrapToken(can: (permission: Permission) => boolean): boolean {
  return can('administer');
}

/** "2 × NVIDIA GB10, 1 × NVIDIA A100" from a node's GPU inventory, in index order. */
export function gpuSummary(gpus: readonly Gpu[]): string {
  if (gpus.length === 0) {
    return 'none';
  }
  const byName = new Map<string, number>();
  for (const gpu of [...gpus].sort((a, b) => a.index - b.index)) {
    byName.set(gpu.name, (byName.get(gpu.name) ?? 0) + 1);
  }
  return [...byName].map(([name, n]) => `${n} × ${name}`).join(', ');
}

/** Distinct memory models of a node's GPUs ("unified", "discrete"), for the list's GPU column. */
export function gpuMemoryModels(gpus: readonly Gpu[]): string {
  return [...new Set(gpus.map((gpu) => gpu.memoryModel))].join(', ');
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Binary units, as nvidia-smi and free print them; "—" when the agent did not report a figure. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) {
    return '—';
  }
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** "4 s", "3 min 20 s", "2 h 5 min"; "never" for a node that has not sent a heartbeat. */
export function formatAge(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) {
    return 'never';
  }
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) {
    return `${s} s`;
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)} min ${s % 60} s`;
  }
  if (s < 86_400) {
    return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  }
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** "key=value" or "key" for an empty value, as kubectl and the CLI print labels. */
export function formatLabel(label: { readonly key: string; readonly value: string }): string {
  return label.value === '' ? label.key : `${label.key}=${label.value}`;
}

/** "key=value:NoSchedule", the taint notation the CLI accepts. */
export function formatTaint(taint: {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
}): string {
  return `${formatLabel(taint)}:${taint.effect}`;
}

/** Pairs whose `key=value` text the dialogs read; one per line, "key" alone for an empty value. */
export function parseLabels(text: string): { key: string; value: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const at = line.indexOf('=');
      return at < 0
        ? { key: line, value: '' }
        : { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
    });
}

export interface ParsedTaints {
  readonly taints: { key: string; value: string; effect: string }[];
  /** Lines whose effect is not one the contract knows, quoted back to the operator. */
  readonly invalid: string[];
}

/** `key=value:Effect` per line; the effect follows the last colon, since values may not hold one. */
export function parseTaints(text: string): ParsedTaints {
  const taints: { key: string; value: string; effect: string }[] = [];
  const invalid: string[] = [];
  for (const line of text.split('\n').map((item) => item.trim())) {
    if (line === '') {
      continue;
    }
    const at = line.lastIndexOf(':');
    const effect = at < 0 ? '' : line.slice(at + 1).trim();
    if (!(TAINT_EFFECTS as readonly string[]).includes(effect)) {
      invalid.push(line);
      continue;
    }
    const [label] = parseLabels(line.slice(0, at));
    if (label === undefined) {
      invalid.push(line);
      continue;
    }
    taints.push({ ...label, effect });
  }
  return { taints, invalid };
}

/** One NodeRecovery run of a node, from its `node.recovery.start` and `node.recovery.complete` receipts. */
export interface RecoveryRun {
  readonly workflowId: string;
  readonly temporalUiUrl: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly lostReplicas: number;
  readonly deployments: number;
  /** Null while it runs; false when it finished before every deployment was whole again. */
  readonly replaced: boolean | null;
  readonly secondsToReplaced: number | null;
}

interface RecoveryEventView {
  readonly action: string;
  readonly occurredAt: string;
  readonly workflowId?: string | null;
  readonly temporalUiUrl?: string | null;
  readonly evidenceJson: string;
}

function evidenceOf(event: RecoveryEventView): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(event.evidenceJson);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The node's recovery runs, newest first: each workflow's start and completion receipts read as one run. */
export function recoveryRuns(events: readonly RecoveryEventView[]): RecoveryRun[] {
  const runs = new Map<string, { start?: RecoveryEventView; complete?: RecoveryEventView }>();
  for (const event of events) {
    const id = event.workflowId ?? '';
    if (id === '') continue;
    const run = runs.get(id) ?? {};
    if (event.action === 'node.recovery.start') run.start = event;
    else if (event.action === 'node.recovery.complete') run.complete = event;
    runs.set(id, run);
  }
  return [...runs.entries()]
    .map(([workflowId, { start, complete }]): RecoveryRun => {
      const started = start === undefined ? {} : evidenceOf(start);
      const completed = complete === undefined ? null : evidenceOf(complete);
      const lost = started['lostAssignments'] ?? completed?.['lostAssignments'];
      const deployments = started['deployments'] ?? completed?.['deployments'];
      const seconds = completed?.['secondsToReplaced'];
      return {
        workflowId,
        temporalUiUrl: start?.temporalUiUrl ?? complete?.temporalUiUrl ?? null,
        startedAt: start?.occurredAt ?? null,
        completedAt: complete?.occurredAt ?? null,
        lostReplicas: Array.isArray(lost) ? lost.length : 0,
        deployments: Array.isArray(deployments) ? deployments.length : 0,
        replaced: completed === null ? null : completed['replaced'] === true,
        secondsToReplaced: typeof seconds === 'number' ? seconds : null,
      };
    })
    .sort((a, b) => (b.startedAt ?? b.completedAt ?? '').localeCompare(a.startedAt ?? a.completedAt ?? ''));
}
