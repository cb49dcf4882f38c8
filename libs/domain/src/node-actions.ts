import type { NodeLifecycleState } from '@lunanexa/contracts';

/**
 * What an operator can do to a node, and which lifecycle states allow each.
 * The API refuses an action with these reasons, the credential-rotation
 * activity checks the same rule under its lock, and the console shows the
 * same answers (the `FleetNode.actions` field) instead of working them out
 * again. Roles are not considered here: who may act is the API's guard.
 */
export const NODE_ACTIONS = [
  'approve',
  'reject',
  'cordon',
  'uncordon',
  'drain',
  'rotateCredential',
  'setLabels',
  'setTaints',
] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

export interface NodeActionSubject {
  readonly name: string;
  readonly lifecycle: NodeLifecycleState;
}

export interface NodeActionAvailability {
  readonly action: NodeAction;
  readonly allowed: boolean;
  /** Why the node's state refuses the action; null when it is allowed. */
  readonly reason: string | null;
}

const TERMINAL: readonly NodeLifecycleState[] = ['Rejected', 'Revoked'];
const DRAINABLE: readonly NodeLifecycleState[] = ['Active', 'Draining', 'Drained'];
/** Only nodes that finished enrollment hold a credential to replace. */
const ENROLLED: readonly NodeLifecycleState[] = ['Active', 'Draining', 'Drained'];

/** Why `action` cannot run on the node in its lifecycle state, or null when it can. */
export function nodeActionRefusal(node: NodeActionSubject, action: NodeAction): string | null {
  const is = `node ${node.name} is ${node.lifecycle}`;
  switch (action) {
    case 'approve':
      return node.lifecycle === 'Pending' ? null : `${is}; only Pending nodes are approved`;
    case 'reject':
      return node.lifecycle === 'Pending' ? null : `${is}; only Pending nodes are rejected`;
    case 'cordon':
    case 'setLabels':
    case 'setTaints':
      return TERMINAL.includes(node.lifecycle) ? is : null;
    case 'uncordon':
      if (TERMINAL.includes(node.lifecycle)) return is;
      return node.lifecycle === 'Draining' ? `${is}; a drain keeps it cordoned` : null;
    case 'drain':
      return DRAINABLE.includes(node.lifecycle) ? null : `${is}; only Active nodes drain`;
    case 'rotateCredential':
      return ENROLLED.includes(node.lifecycle) ? null : `${is}; only enrolled nodes rotate credentials`;
  }
}

/** Every node action in {@link NODE_ACTIONS} order, with whether the node's state allows it and why not. */
export function nodeActions(node: NodeActionSubject): NodeActionAvailability[] {
  return NODE_ACTIONS.map((action) => {
    const reason = nodeActionRefusal(node, action);
    return { action, allowed: reason === null, reason };
  });
}
