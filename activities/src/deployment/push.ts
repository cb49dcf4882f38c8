import type { AssignmentAckBody } from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError, type Assignment } from '@lunanexa/contracts';
import { agentProtocolOf, refusedTrustedSigningKeys } from '@lunanexa/domain';
import {
  findDeployment,
  findNode,
  listAssignments,
  recordAssignmentPushed,
  type AssignmentRow,
  type NodeRow,
} from '@lunanexa/persistence';
import { asActivityFailure, southboundTarget, type SouthboundPort } from '../fleet-support';
import { buildAssignment, leaseUntil, unrevokedSigningKeys } from './assignment-spec';
import { modelVersionOf } from './deployment-row';
import type { DeploymentActivityPorts } from './ports';

/** A stopped replica whose stop the agent has acknowledged needs no more pushes. */
function stopAcknowledged(row: AssignmentRow): boolean {
  return row.intent === 'Stop' && row.ackedGeneration === row.generation && row.observedState === 'Stopped';
}

/**
 * Pushes an assignment; an agent from before signature verification, which
 * refuses the `trustedSigningKeys` field, gets it again without the field
 * (docs/UPGRADING.md, version skew). Returns what the agent accepted.
 */
export async function pushAcceptedBy(
  southbound: Pick<SouthboundPort, 'pushAssignment'>,
  node: NodeRow,
  assignment: Assignment,
): Promise<{ ack: AssignmentAckBody; sent: Assignment }> {
  try {
    return { ack: await southbound.pushAssignment(southboundTarget(node), assignment), sent: assignment };
  } catch (error) {
    if (
      assignment.trustedSigningKeys === undefined ||
      !(error instanceof LunaNexaError) ||
      !refusedTrustedSigningKeys(agentProtocolOf(node.inventory), error)
    )
      throw error;
    const { trustedSigningKeys: _refused, ...older } = assignment;
    return { ack: await southbound.pushAssignment(southboundTarget(node), older), sent: older };
  }
}

export function pushActivities({ db, clock, southbound }: DeploymentActivityPorts) {
  /**
   * Re-signs and pushes the deployment's assignment rows with a fresh lease: every row (a lease renewal) or
   * only those whose generation no agent has acknowledged yet, but never those on `skip`.
   */
  async function pushAll(
    deploymentId: string,
    leaseSeconds: number,
    skip: ReadonlySet<string>,
    onlyUnacknowledged: boolean,
  ): Promise<{ pushed: number; unreachable: string[] }> {
    const deployment = await findDeployment(db, deploymentId);
    if (!deployment)
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${deploymentId} does not exist`);
    const version = await modelVersionOf(db, deployment);
    const rows = await listAssignments(db, { deploymentId });
    let pushed = 0;
    const unreachable: string[] = [];
    const byNode = new Map<string, AssignmentRow[]>();
    for (const row of rows) {
      if (skip.has(row.nodeId) || stopAcknowledged(row)) continue;
      if (onlyUnacknowledged && row.ackedGeneration !== null && row.ackedGeneration >= row.generation)
        continue;
      byNode.set(row.nodeId, [...(byNode.get(row.nodeId) ?? []), row]);
    }
    const pushOne = async (node: NodeRow, row: AssignmentRow): Promise<void> => {
      const leaseExpiresAt = leaseUntil(clock.now(), leaseSeconds);
      const spec = buildAssignment(
        row.id,
        deployment,
        version,
        node,
        row.intent,
        row.generation,
        leaseExpiresAt,
        // A lease renewal re-sends the generation's content as stored: the keys it was built with.
        (row.spec as Partial<Assignment> | null)?.trustedSigningKeys ?? (await unrevokedSigningKeys(db)),
      );
      try {
        const { ack, sent } = await pushAcceptedBy(southbound, node, spec);
        await recordAssignmentPushed(db, {
          spec: sent,
          leaseExpiresAt,
          ackedGeneration: ack.generation,
          at: clock.now(),
        });
        pushed += 1;
      } catch (error) {
        if (error instanceof LunaNexaError && error.code === ErrorCode.DEPENDENCY_UNAVAILABLE) {
          unreachable.push(node.name);
          return;
        }
        throw error;
      }
    };
    // Nodes at once (one slow or unreachable node does not hold up the others' replicas), one node's in order.
    await Promise.all(
      [...byNode].map(async ([nodeId, nodeRows]) => {
        const node = await findNode(db, nodeId);
        if (!node) return;
        for (const row of nodeRows) await pushOne(node, row);
      }),
    );
    return { pushed, unreachable };
  }

  return {
    async pushDeploymentAssignments(input: {
      readonly deploymentId: string;
      readonly leaseSeconds: number;
      /**
       * Nodes whose rows are left for a later push: an evacuation pushes its replacements without waiting on
       * the nodes it is leaving (a lost one may take a connect timeout to refuse).
       */
      readonly skipNodeIds?: readonly string[];
      /**
       * Only rows at a generation their agent has not acknowledged (new replicas, new intents): an
       * evacuation's later rounds do not re-send what its first round delivered. Lease renewals send all.
       */
      readonly onlyUnacknowledged?: boolean;
    }): Promise<{ pushed: number; unreachable: string[] }> {
      try {
        return await pushAll(
          input.deploymentId,
          input.leaseSeconds,
          new Set(input.skipNodeIds ?? []),
          input.onlyUnacknowledged === true,
        );
      } catch (error) {
        throw asActivityFailure(error);
      }
    },
  };
}
