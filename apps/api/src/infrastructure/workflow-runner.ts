import { Inject, Injectable } from '@nestjs/common';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import {
  SearchAttributeType,
  TypedSearchAttributes,
  defineSearchAttributeKey,
  type Workflow,
} from '@temporalio/common';
import { ErrorCode, LunaNexaError, SEARCH_ATTRIBUTES, typedFailure } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { API_CONFIG, API_LOGGER, type ApiConfig } from '../config';
import { temporalWorkflowUrl } from '../common/temporal-links';
import { TEMPORAL_CLIENT } from './tokens';

const correlationKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.correlationId, SearchAttributeType.KEYWORD);
const actorKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.actor, SearchAttributeType.KEYWORD);
const nodeKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.nodeId, SearchAttributeType.KEYWORD);

/** gRPC UNAVAILABLE / DEADLINE_EXCEEDED anywhere in the chain means Temporal itself is not answering. */
export function isTemporalConnectionFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (candidate.code === 14 || candidate.code === 4) return true;
    if (
      typeof candidate.message === 'string' &&
      /\b(UNAVAILABLE|ECONNREFUSED|DEADLINE_EXCEEDED)\b/.test(candidate.message)
    ) {
      return true;
    }
    current = candidate.cause;
  }
  return false;
}

/** A workflow failure as the typed error its activity raised; Temporal being down as DEPENDENCY_UNAVAILABLE. */
export function translateTemporalError(error: unknown): unknown {
  if (error instanceof LunaNexaError) return error;
  if (error instanceof WorkflowUpdateFailedError) {
    // A validator or handler said no (INVALID_TRANSITION, a refusal's code): the caller gets that code.
    return typedFailure(error) ?? new LunaNexaError(ErrorCode.INTERNAL, 'the workflow refused the update');
  }
  if (error instanceof WorkflowFailedError) {
    return typedFailure(error) ?? new LunaNexaError(ErrorCode.INTERNAL, 'workflow failed');
  }
  if (error instanceof WorkflowNotFoundError) {
    return new LunaNexaError(ErrorCode.NOT_FOUND, 'the workflow does not exist (or has finished)');
  }
  if (isTemporalConnectionFailure(error)) {
    return new LunaNexaError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Temporal is not reachable');
  }
  return error;
}

export interface StartOptions {
  readonly workflowId: string;
  readonly args: unknown[];
  readonly correlationId: string;
  readonly actor: string;
  readonly nodeId?: string;
}

export interface WorkflowRef {
  readonly workflowId: string;
  readonly runId: string;
  readonly temporalUiUrl: string;
}

/**
 * Starts, signals and awaits LunaNexa workflows for the API. Starting is
 * idempotent by workflow id (a repeated request joins the run that exists);
 * every call is bounded by LUNANEXA_WORKFLOW_WAIT_MS so nothing keeps
 * retrying after the caller has its answer.
 */
@Injectable()
export class WorkflowRunner {
  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  link(workflowId: string, runId?: string): string {
    return temporalWorkflowUrl(
      this.config.LUNANEXA_TEMPORAL_UI_URL,
      this.config.TEMPORAL_NAMESPACE,
      workflowId,
      runId,
    );
  }

  private bounded<T>(work: () => Promise<T>, what: string): Promise<T> {
    const signal = AbortSignal.timeout(this.config.LUNANEXA_WORKFLOW_WAIT_MS);
    return this.temporal.withAbortSignal(signal, work).catch((error: unknown) => {
      if (signal.aborted) {
        throw new LunaNexaError(
          ErrorCode.DEPENDENCY_UNAVAILABLE,
          `${what} did not finish within ${this.config.LUNANEXA_WORKFLOW_WAIT_MS} ms (is Temporal up and a worker running?)`,
        );
      }
      throw translateTemporalError(error);
    });
  }

  private searchAttributes(options: StartOptions): TypedSearchAttributes {
    return new TypedSearchAttributes([
      { key: correlationKey, value: options.correlationId },
      { key: actorKey, value: options.actor },
      ...(options.nodeId ? [{ key: nodeKey, value: options.nodeId }] : []),
    ]);
  }

  /**
   * Starts the workflow (or joins the running one with this id) and asks it, in the same call, the update
   * `update`: the answer is what the workflow decided once it recorded it. The update id is the workflow id
   * (an idempotency key), so a retried call gets the first call's answer. `answer` is null when the run with
   * this id has already closed, or when it has not answered within `answerWithinMs` (the caller then reads
   * what it recorded so far).
   */
  startAndAsk<T>(
    type: string,
    update: string,
    options: StartOptions & { readonly answerWithinMs?: number },
  ): Promise<{ readonly ref: WorkflowRef; readonly answer: T | null }> {
    return this.bounded(async () => {
      const operation = new WithStartWorkflowOperation(type, {
        taskQueue: this.config.LUNANEXA_TASK_QUEUE,
        workflowId: options.workflowId,
        args: options.args,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: this.searchAttributes(options),
      });
      let asked: WorkflowUpdateHandle<T>;
      try {
        asked = await this.temporal.workflow.startUpdateWithStart<Workflow, T, []>(update, {
          updateId: options.workflowId,
          waitForStage: 'ACCEPTED',
          startWorkflowOperation: operation,
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        const runId = (await this.temporal.workflow.getHandle(options.workflowId).describe()).runId;
        return { ref: this.ref(options.workflowId, runId), answer: null };
      }
      const handle = await operation.workflowHandle();
      const runId =
        (handle as { readonly firstExecutionRunId?: string }).firstExecutionRunId ??
        (await handle.describe()).runId;
      this.logger.info(
        { event: 'workflow_started', workflowType: type, workflowId: options.workflowId, runId },
        `started ${type} ${options.workflowId}`,
      );
      const answer = await this.within(asked.result(), options.answerWithinMs);
      return { ref: this.ref(options.workflowId, runId), answer };
    }, `starting ${options.workflowId}`);
  }

  /** The promise's value, or null once `ms` have passed without one (no bound: the promise as is). */
  private async within<T>(promise: Promise<T>, ms: number | undefined): Promise<T | null> {
    if (ms === undefined) return promise;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
      // The update keeps running in the workflow; its outcome is read from what it records.
      promise.catch(() => undefined);
    }
  }

  /**
   * Asks a running workflow the update `update` with `arg`; the answer is what it decided. `updateId` (the
   * call's idempotency key) makes a retried call get the first call's answer instead of acting twice.
   */
  ask<T>(workflowId: string, update: string, arg: unknown, updateId: string): Promise<T> {
    return this.bounded(
      () =>
        this.temporal.workflow
          .getHandle(workflowId)
          .executeUpdate<T, [unknown]>(update, { args: [arg], updateId }),
      `asking ${workflowId}`,
    );
  }

  /** What the workflow says about itself now (a closed run answers from its history). */
  query<T>(workflowId: string, query: string): Promise<T> {
    return this.bounded(
      () => this.temporal.workflow.getHandle(workflowId).query<T>(query),
      `querying ${workflowId}`,
    );
  }

  private ref(workflowId: string, runId: string): WorkflowRef {
    return { workflowId, runId, temporalUiUrl: this.link(workflowId, runId) };
  }

  /** Starts the workflow, or joins the run with this id that already exists. */
  start(type: string, options: StartOptions): Promise<WorkflowRef> {
    return this.bounded(async () => {
      let runId: string;
      try {
        const handle = await this.temporal.workflow.start(type, {
          taskQueue: this.config.LUNANEXA_TASK_QUEUE,
          workflowId: options.workflowId,
          args: options.args,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: this.searchAttributes(options),
        });
        runId = handle.firstExecutionRunId;
        // One line per started run: with tracing on it carries the trace id the run's spans share.
        this.logger.info(
          { event: 'workflow_started', workflowType: type, workflowId: options.workflowId, runId },
          `started ${type} ${options.workflowId}`,
        );
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        runId = (await this.temporal.workflow.getHandle(options.workflowId).describe()).runId;
      }
      return { workflowId: options.workflowId, runId, temporalUiUrl: this.link(options.workflowId, runId) };
    }, `starting ${options.workflowId}`);
  }

  signal(workflowId: string, signal: string, arg: unknown): Promise<void> {
    return this.bounded(
      () => this.temporal.workflow.getHandle(workflowId).signal(signal, arg),
      `signalling ${workflowId}`,
    );
  }

  result<T>(workflowId: string): Promise<T> {
    return this.bounded(
      () => this.temporal.workflow.getHandle(workflowId).result() as Promise<T>,
      `waiting for ${workflowId}`,
    );
  }

  /** True when a run with this id exists (running or closed). */
  async exists(workflowId: string): Promise<boolean> {
    try {
      await this.bounded(
        () => this.temporal.workflow.getHandle(workflowId).describe(),
        `describing ${workflowId}`,
      );
      return true;
    } catch (error) {
      if (error instanceof LunaNexaError && error.code === ErrorCode.NOT_FOUND) return false;
      throw error;
    }
  }
}
