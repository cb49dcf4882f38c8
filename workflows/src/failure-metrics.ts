import {
  ContinueAsNew,
  isCancellation,
  proxySinks,
  TemporalFailure,
  workflowInfo,
  type Next,
  type Sinks,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

/**
 * What workflow code tells the worker process about itself (Temporal sinks:
 * the only way out of the workflow sandbox that cannot change its commands).
 */
export interface WorkflowMetricSinks extends Sinks {
  metrics: {
    /** A run ended Failed; `workflow` is the type without its `Workflow` suffix (`rollout`, `drainNode`). */
    workflowFailed(workflow: string): void;
  };
}

/** `rolloutWorkflow` → `rollout`: the label the alerts and dashboards use. */
export function workflowMetricLabel(workflowType: string): string {
  return workflowType.endsWith('Workflow') && workflowType.length > 'Workflow'.length
    ? workflowType.slice(0, -'Workflow'.length)
    : workflowType;
}

const { metrics } = proxySinks<WorkflowMetricSinks>();

/**
 * Counts runs that end Failed. Only a Temporal failure fails a run: any other
 * error fails the workflow task, which Temporal retries (that is not a failed
 * workflow, and counting it would count every retry). Continue-as-new and
 * cancellation are not failures.
 */
class FailureCountingInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    try {
      return await next(input);
    } catch (error) {
      if (error instanceof TemporalFailure && !(error instanceof ContinueAsNew) && !isCancellation(error)) {
        metrics.workflowFailed(workflowMetricLabel(workflowInfo().workflowType));
      }
      throw error;
    }
  }
}

/** Loaded by the worker as a workflow interceptor module (`interceptors.workflowModules`). */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new FailureCountingInterceptor()],
});
