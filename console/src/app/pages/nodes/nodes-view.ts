import type { LiveEvent } from '../../shared/graphql/schema-types';

/**
 * The query parameter that selected a node before the detail had its own
 * path; links with it still arrive (bookmarks, pasted URLs) and are redirected.
 */
export const LEGACY_NODE_QUERY_PARAM = 'node';

/** The route parameter of `/nodes/:name`. */
export const NODE_NAME_PARAM = 'name';

/** Router commands for a link to one node's detail (`/nodes/<name>`). */
export function nodeDetailLink(name: string): readonly string[] {
  return ['/nodes', name];
}

/** Heartbeats arrive every few seconds; polling faster than this would mostly re-read the same lease. */
export const REFRESH_INTERVAL_MS = 10_000;

/** Dialogs fill a phone screen but stay readable on a desktop one. */
export const DIALOG_SIZE = { width: '640px', maxWidth: 'calc(100vw - 32px)' } as const;

/** What the live-event rules need to know of a node already shown. */
interface ShownNode {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: string;
  readonly readiness: string;
}

/**
 * A node whose heartbeats can change what is shown: one not yet Active
 * (approval and activation happen between heartbeats) or not Ready (it may
 * just have come back). A settled node's heartbeat only moves its heartbeat
 * age, which the next poll updates; re-reading the fleet on each of those
 * would load the API more than polling does.
 */
function settled(node: ShownNode | undefined): boolean {
  return node?.lifecycle === 'Active' && node.readiness === 'Ready';
}

/**
 * Whether a live event may change the fleet list: any audited node action
 * (`node.approve`, `node.drain`, …), a heartbeat of a node that is not
 * settled or not shown yet, or a gap (`dropped`), after which anything may
 * have changed.
 */
export function changesNodes(event: LiveEvent, nodes: readonly ShownNode[] | undefined): boolean {
  if (event.dropped > 0) {
    return true;
  }
  if (event.kind === 'audit') {
    return event.action?.startsWith('node.') ?? false;
  }
  return event.kind === 'node' && !settled(nodes?.find((node) => node.id === event.nodeId));
}

/** The same for one node's detail; before the node has loaded, any node event may be about it. */
export function changesNode(event: LiveEvent, node: ShownNode | null | undefined): boolean {
  if (node === null || node === undefined || event.dropped > 0) {
    return changesNodes(event, undefined);
  }
  if (event.kind === 'audit') {
    return (
      (event.action?.startsWith('node.') ?? false) &&
      (event.subject === node.id || event.subject === node.name)
    );
  }
  return event.kind === 'node' && event.nodeId === node.id && !settled(node);
}
