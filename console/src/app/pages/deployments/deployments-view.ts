import type { LiveEvent } from '../../shared/graphql/schema-types';
import { isSettled } from './deployment-rules';

/** The route parameter of `/deployments/:name`. */
export const DEPLOYMENT_NAME_PARAM = 'name';

/** Router commands for a link to one deployment's detail (`/deployments/<name>`). */
export function deploymentDetailLink(name: string): readonly string[] {
  return ['/deployments', name];
}

/** The same pace as the Nodes view: agents report replica states with their heartbeats. */
export const REFRESH_INTERVAL_MS = 10_000;

/** While the deploy dialog watches a new deployment converge, the operator is waiting on every step. */
export const PROGRESS_INTERVAL_MS = 2_000;

/** Dialogs fill a phone screen but stay readable on a desktop one. */
export const DIALOG_SIZE = { width: '640px', maxWidth: 'calc(100vw - 32px)' } as const;

/** What the live-event rules need to know of a deployment already shown. */
interface ShownDeployment {
  readonly id: string;
  readonly name: string;
  readonly state: string;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly assignments: readonly { readonly nodeId: string }[];
}

function isDeploymentAudit(event: LiveEvent): boolean {
  return event.kind === 'audit' && (event.action?.startsWith('deployment.') ?? false);
}

/**
 * A heartbeat of a node hosting a replica of a deployment that is still
 * converging: its replica states move with the agents' reports, and most
 * of those steps write no audit event. A settled deployment's heartbeats
 * only move in-flight figures, which the next poll updates; re-reading on
 * each of those would load the API more than polling does.
 */
function reportsOnConverging(event: LiveEvent, deployment: ShownDeployment): boolean {
  return (
    event.kind === 'node' &&
    !isSettled(deployment) &&
    deployment.assignments.some((assignment) => assignment.nodeId === event.nodeId)
  );
}

/**
 * Whether a live event may change the deployment list: any audited
 * deployment step (`deployment.create`, `deployment.ready`, `deployment.stop`,
 * …), a heartbeat about a converging deployment's replica, or a gap
 * (`dropped`), after which anything may have changed.
 */
export function changesDeployments(
  event: LiveEvent,
  deployments: readonly ShownDeployment[] | undefined,
): boolean {
  if (event.dropped > 0 || isDeploymentAudit(event)) {
    return true;
  }
  return deployments?.some((deployment) => reportsOnConverging(event, deployment)) ?? false;
}

/** The same for one deployment; before it has loaded, any deployment event may be about it. */
export function changesDeployment(event: LiveEvent, deployment: ShownDeployment | null | undefined): boolean {
  if (deployment === null || deployment === undefined || event.dropped > 0) {
    return changesDeployments(event, undefined);
  }
  if (isDeploymentAudit(event)) {
    return event.subject === deployment.id || event.subject === deployment.name;
  }
  return reportsOnConverging(event, deployment);
}
