import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { SearchAttributeType, TypedSearchAttributes, defineSearchAttributeKey } from '@temporalio/common';
import {
  DEPLOYMENT_SIGNALS,
  SEARCH_ATTRIBUTES,
  WORKFLOW_TYPES,
  type DeploymentWorkflowInput,
  type StopDeploymentSignal,
} from '@lunanexa/contracts';
import type { FleetWorkflowsPort } from '@lunanexa/activities';

const correlationKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.correlationId, SearchAttributeType.KEYWORD);
const actorKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.actor, SearchAttributeType.KEYWORD);

export interface FleetWorkflowsClient extends FleetWorkflowsPort {
  close(): Promise<void>;
}

/**
 * Reconcile's view of Temporal from the worker: whether a workflow id has an
 * open run, and starting a deployment's workflow again under its own id (an
 * open run is kept: USE_EXISTING). Tagged with the same search attributes
 * the API gives the runs it starts.
 */
export async function connectFleetWorkflows(target: {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
}): Promise<FleetWorkflowsClient> {
  const connection = await Connection.connect({ address: target.address });
  const client = new Client({ connection, namespace: target.namespace });
  return { ...fleetWorkflowsOver(client, target.taskQueue), close: () => connection.close() };
}

/** The same over a client someone else owns (a test's Temporal environment, say). */
export function fleetWorkflowsOver(client: Client, taskQueue: string): FleetWorkflowsPort {
  const isRunning = async (workflowId: string): Promise<boolean> => {
    try {
      const description = await client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  };
  return {
    isRunning,
    async resumeDeployment(workflowId, input: DeploymentWorkflowInput, stop: StopDeploymentSignal | null) {
      const options = {
        workflowId,
        taskQueue,
        args: [input],
        typedSearchAttributes: new TypedSearchAttributes([
          { key: correlationKey, value: input.correlationId },
          { key: actorKey, value: input.actor },
        ]),
      };
      if (await isRunning(workflowId)) {
        if (stop) await client.workflow.getHandle(workflowId).signal(DEPLOYMENT_SIGNALS.stop, stop);
        return 'already running';
      }
      if (stop) {
        await client.workflow.signalWithStart(WORKFLOW_TYPES.deployment, {
          ...options,
          signal: DEPLOYMENT_SIGNALS.stop,
          signalArgs: [stop],
        });
      } else {
        await client.workflow.start(WORKFLOW_TYPES.deployment, {
          ...options,
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
      }
      return 'started';
    },
  };
}
