import { Counter } from 'prom-client';
import { createServiceMetrics, type BuildInfo, type ServiceMetrics } from '@lunanexa/observability';

export interface WorkerMetrics extends ServiceMetrics {
  /** Runs that ended Failed, by workflow (`rollout`, `drainNode`, …); the LunaNexaWorkflowFailures alerts read it. */
  readonly workflowFailures: Counter<'workflow'>;
}

export function createWorkerMetrics(build: BuildInfo): WorkerMetrics {
  const service = createServiceMetrics('worker', build);
  const workflowFailures = new Counter({
    name: 'lunanexa_workflow_failures_total',
    help: 'Workflow runs that ended Failed (not cancelled, not continued as new), by workflow type.',
    labelNames: ['workflow'] as const,
    registers: [service.registry],
  });
  return { ...service, workflowFailures };
}
