import { type RecoveryRun, recoveryRuns } from '../nodes/node-rules';

/** How many NodeRecovery receipts, fleet-wide and newest first, the deployment page reads for its own runs. */
export const RECOVERY_EVENTS_READ = 200;

interface RecoveryEventView {
  readonly action: string;
  readonly occurredAt: string;
  readonly workflowId?: string | null;
  readonly temporalUiUrl?: string | null;
  readonly evidenceJson: string;
}

/** A NodeRecovery run that re-placed replicas of one deployment, with that deployment's own progress. */
export interface DeploymentRecoveryRun extends RecoveryRun {
  readonly nodeId: string;
  /** The lost node's name; its id when the node is no longer on record. */
  readonly nodeName: string;
  /** This deployment's replicas Ready elsewhere against its desired count, once the run has finished. */
  readonly readyElsewhere: number | null;
  readonly desiredReplicas: number | null;
}

function evidence(event: RecoveryEventView): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(event.evidenceJson);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Where a receipt names `deploymentId`: the start receipt lists ids, the completion one each deployment's progress. */
function progressOf(
  event: RecoveryEventView,
  deploymentId: string,
): { readonly named: boolean; readonly progress: Record<string, unknown> | null } {
  const deployments = evidence(event)['deployments'];
  if (!Array.isArray(deployments)) return { named: false, progress: null };
  for (const entry of deployments as unknown[]) {
    if (entry === deploymentId) return { named: true, progress: null };
    if (
      typeof entry === 'object' &&
      entry !== null &&
      (entry as Record<string, unknown>)['deploymentId'] === deploymentId
    ) {
      return { named: true, progress: entry as Record<string, unknown> };
    }
  }
  return { named: false, progress: null };
}

/**
 * The NodeRecovery runs that touched a deployment's replicas, newest first:
 * the runs whose receipts name it, read as the node page reads them
 * (nodes/node-rules recoveryRuns), with the lost node and this deployment's
 * own count of replicas Ready elsewhere when the run finished.
 */
export function deploymentRecoveryRuns(
  events: readonly RecoveryEventView[],
  deploymentId: string,
  nodes: readonly { readonly id: string; readonly name: string }[],
): readonly DeploymentRecoveryRun[] {
  const touching = new Set<string>();
  const progress = new Map<string, Record<string, unknown>>();
  const nodeOf = new Map<string, string>();
  for (const event of events) {
    const workflowId = event.workflowId ?? '';
    if (workflowId === '') continue;
    const nodeId = evidence(event)['nodeId'];
    if (typeof nodeId === 'string') nodeOf.set(workflowId, nodeId);
    const found = progressOf(event, deploymentId);
    if (!found.named) continue;
    touching.add(workflowId);
    if (found.progress !== null) progress.set(workflowId, found.progress);
  }
  const names = new Map(nodes.map((node) => [node.id, node.name]));
  return recoveryRuns(events.filter((event) => touching.has(event.workflowId ?? ''))).map((run) => {
    const nodeId = nodeOf.get(run.workflowId) ?? '';
    const mine = progress.get(run.workflowId);
    const count = (key: string): number | null =>
      typeof mine?.[key] === 'number' ? (mine[key] as number) : null;
    return {
      ...run,
      nodeId,
      nodeName: names.get(nodeId) ?? nodeId,
      readyElsewhere: count('readyElsewhere'),
      desiredReplicas: count('desiredReplicas'),
    };
  });
}

/** "recovering…", "2 of 2 Ready elsewhere in 41 s", "1 of 2 Ready elsewhere when it gave up". */
export function recoveryOutcomeText(run: DeploymentRecoveryRun): string {
  if (run.replaced === null) return 'recovering…';
  const counted =
    run.readyElsewhere === null || run.desiredReplicas === null
      ? ''
      : `${run.readyElsewhere} of ${run.desiredReplicas} Ready elsewhere`;
  if (run.replaced) {
    const seconds = run.secondsToReplaced === null ? '' : ` in ${Math.round(run.secondsToReplaced)} s`;
    return `${counted === '' ? 'replaced elsewhere' : counted}${seconds}`;
  }
  return `${counted === '' ? 'not every replica replaced' : counted} when it gave up`;
}
