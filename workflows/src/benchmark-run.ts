import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  ParentClosePolicy,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import type {
  BenchmarkRunWorkflowInput,
  BenchmarkRunWorkflowResult,
  ColdStartSample,
  SaturationStep,
} from '@lunanexa/contracts';
import { typedFailureCode } from '@lunanexa/contracts/dist/src/workflow-constants';
// The file, not the package index: the index pulls the contracts' schemas (zod) into the workflow bundle.
import {
  coldStartResult,
  continueSaturation,
  saturationResult,
} from '@lunanexa/domain/dist/src/benchmark-runs';
import type { Activities } from '@lunanexa/activities';
import { deploymentWorkflow, stopDeploymentSignal } from './deployment';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
});
// One load lasts as long as its requests (bounded by the plan's counts and the profile's request deadline);
// heartbeats tell a dead worker from a long load, and a retry measures that load again.
const measuring = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 3 },
});

/** Assignment lease of cold-start deployments when the run's input names none (the API's default). */
const DEFAULT_COLD_START_LEASE_SECONDS = 60;

/**
 * A benchmark run on one deployment (its row is written Running by the API
 * before this starts): the saturation sweep step by step — the workflow
 * decides whether to go on (libs/domain `continueSaturation`), so a sweep
 * stops at the first step over the SLO — then the long stream, then the
 * mixed load, then the cold starts (each a child deployment workflow, stopped
 * and finished before the next starts), each stored as it ends. Any failure
 * ends the run Failed with its typed code, keeping the kinds already stored.
 */
export async function benchmarkRunWorkflow(
  input: BenchmarkRunWorkflowInput,
): Promise<BenchmarkRunWorkflowResult> {
  const base = { runId: input.runId };
  /** The workflow id of the cold-start deployment running now: stopped however the run ends. */
  let coldDeployment: string | null = null;
  const stopColdDeployment = async (): Promise<void> => {
    if (coldDeployment === null) return;
    const workflowId = coldDeployment;
    coldDeployment = null;
    try {
      await getExternalWorkflowHandle(workflowId).signal(stopDeploymentSignal, {
        actor: input.actor,
        correlationId: input.correlationId,
        requestId: input.requestId,
      });
    } catch {
      // Already finished: nothing left to stop.
    }
  };
  try {
    const plan = await steps.benchmarkRunPlan(base);
    if (plan.saturation) {
      const done: SaturationStep[] = [];
      let replicas = 1;
      while (continueSaturation(done, plan.saturation.concurrencySteps.length)) {
        const concurrency = plan.saturation.concurrencySteps[done.length] ?? 1;
        const measured = await measuring.measureSaturationStep({ ...base, concurrency });
        if (done.length === 0) replicas = measured.replicas;
        done.push(measured.step);
      }
      await steps.recordBenchmarkResult({
        ...base,
        kind: 'saturation',
        result: saturationResult(done, replicas),
      });
    }
    if (plan.longStream) {
      const result = await measuring.measureLongStream(base);
      await steps.recordBenchmarkResult({ ...base, kind: 'longStream', result });
    }
    if (plan.mixed) {
      const result = await measuring.measureMixed(base);
      await steps.recordBenchmarkResult({ ...base, kind: 'mixed', result });
    }
    if (plan.coldStart) {
      const samples: ColdStartSample[] = [];
      for (let repeat = 0; repeat < plan.coldStart.repeats; repeat++) {
        const { request, requestedAtMs } = await steps.requestColdStart({ ...base, repeat });
        const workflowId = `deployment/${request.deploymentId}`;
        const child = await startChild(deploymentWorkflow, {
          workflowId,
          // Stopped explicitly below, also when the run fails or is cancelled (a terminated deployment
          // workflow would leave its replica running).
          parentClosePolicy: ParentClosePolicy.ABANDON,
          args: [
            {
              request,
              leaseSeconds: input.leaseSeconds ?? DEFAULT_COLD_START_LEASE_SECONDS,
              actor: input.actor,
              correlationId: input.correlationId,
              requestId: input.requestId,
            },
          ],
        });
        coldDeployment = workflowId;
        samples.push(
          await measuring.measureColdStart({ ...base, deploymentId: request.deploymentId, requestedAtMs }),
        );
        await stopColdDeployment();
        // The next repeat starts only once this replica is gone: each must pay for a runtime start.
        await child.result();
      }
      await steps.recordBenchmarkResult({ ...base, kind: 'coldStart', result: coldStartResult(samples) });
    }
    await steps.finishBenchmarkRun({ ...base, errorCode: null, error: null });
    return { runId: input.runId, state: 'Succeeded', errorCode: null };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(stopColdDeployment);
      await CancellationScope.nonCancellable(() =>
        steps.finishBenchmarkRun({
          ...base,
          errorCode: 'CANCELLED',
          error: 'the benchmark run was cancelled',
        }),
      );
      throw error;
    }
    await stopColdDeployment();
    if (!(error instanceof ActivityFailure || error instanceof ChildWorkflowFailure)) throw error;
    const code = typedFailureCode(error) ?? 'INTERNAL';
    const reason =
      error.cause instanceof ApplicationFailure
        ? error.cause.message
        : (error.cause?.message ?? error.message);
    await steps.finishBenchmarkRun({ ...base, errorCode: code, error: reason });
    return { runId: input.runId, state: 'Failed', errorCode: code };
  }
}
