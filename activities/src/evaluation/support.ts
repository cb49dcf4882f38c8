import { Context } from '@temporalio/activity';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  findDeployment,
  findEvaluationRun,
  readyEndpoints,
  type EvaluationRunRow,
  type ReadyEndpoint,
} from '@lunanexa/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../clock';

export interface EvaluationActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface EvaluationStepInput {
  readonly runId: string;
  readonly actor: string;
  readonly correlationId: string;
}

const HEARTBEAT_EVERY_MS = 2_000;

export async function runOrFail(
  q: DataSource | EntityManager,
  runId: string,
  forUpdate = false,
): Promise<EvaluationRunRow> {
  const run = await findEvaluationRun(q, runId, { forUpdate });
  if (!run) throw new LunaNexaError(ErrorCode.NOT_FOUND, `evaluation run ${runId} does not exist`);
  return run;
}

/** The replicas to call; none Ready is a refusal to measure, not a 0 % score. */
export async function endpointsOf(
  db: DataSource,
  run: EvaluationRunRow,
): Promise<{ endpoints: ReadyEndpoint[]; model: string }> {
  const deployment = await findDeployment(db, run.deploymentId);
  const endpoints = await readyEndpoints(db, run.deploymentId);
  if (!deployment || endpoints.length === 0) {
    throw new LunaNexaError(
      ErrorCode.NO_CAPACITY,
      `deployment ${deployment?.name ?? run.deploymentId} has no Ready replica to evaluate`,
    );
  }
  return { endpoints, model: deployment.modelRef };
}

/** Keeps the activity alive in Temporal's eyes (and able to learn it was cancelled) during long waits. */
export function heartbeating<T>(progress: () => unknown, work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(progress()), HEARTBEAT_EVERY_MS);
  return work().finally(() => clearInterval(beat));
}
