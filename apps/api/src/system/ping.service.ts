import { Inject, Injectable } from '@nestjs/common';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes, SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import {
  ErrorCode,
  LunaNexaError,
  SEARCH_ATTRIBUTES,
  WORKFLOW_TYPES,
  typedFailure,
  workflowIdFor,
  type PingWorkflowInput,
  type PingWorkflowResult,
} from '@lunanexa/contracts';
import { recentPingRecords } from '@lunanexa/persistence';
import type { RequestIds } from '@lunanexa/observability';
import { DataSource } from 'typeorm';
import { API_CONFIG, type ApiConfig } from '../config';
import { TEMPORAL_CLIENT } from '../infrastructure/infrastructure.module';
import { isTemporalConnectionFailure } from '../infrastructure/workflow-runner';
import type { PingRecord, PingResult } from './system.types';
import { temporalWorkflowUrl } from '../common/temporal-links';

const correlationKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.correlationId, SearchAttributeType.KEYWORD);
const actorKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.actor, SearchAttributeType.KEYWORD);

@Injectable()
export class PingService {
  constructor(
    private readonly db: DataSource,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /**
   * Starts (or rejoins) the ping workflow for this idempotency key and waits
   * for its result. A repeated key returns the same run; a key reused with a
   * different message is refused by the workflow with IDEMPOTENCY_KEY_REUSED.
   */
  async ping(key: string, message: string, actor: string, ids: RequestIds): Promise<PingResult> {
    const workflowId = workflowIdFor('ping', key);
    const input: PingWorkflowInput = {
      idempotencyKey: key,
      message,
      actor,
      correlationId: ids.correlationId,
      requestId: ids.requestId,
    };
    // One deadline for the whole operation; aborting cancels the gRPC calls
    // themselves, so nothing keeps retrying after the caller has its answer.
    const signal = AbortSignal.timeout(this.config.LUNANEXA_WORKFLOW_WAIT_MS);
    let runId = '';
    let result: PingWorkflowResult;
    try {
      result = await this.temporal.withAbortSignal(signal, async () => {
        try {
          const handle = await this.temporal.workflow.start(WORKFLOW_TYPES.ping, {
            taskQueue: this.config.LUNANEXA_TASK_QUEUE,
            workflowId,
            args: [input],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: new TypedSearchAttributes([
              { key: correlationKey, value: ids.correlationId },
              { key: actorKey, value: actor },
            ]),
          });
          runId = handle.firstExecutionRunId;
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          runId = (await this.temporal.workflow.getHandle(workflowId).describe()).runId;
        }
        return this.temporal.workflow
          .getHandle<() => Promise<PingWorkflowResult>>(workflowId, runId)
          .result();
      });
    } catch (error) {
      if (signal.aborted) {
        throw new LunaNexaError(
          ErrorCode.DEPENDENCY_UNAVAILABLE,
          `workflow ${workflowId} did not finish within ${this.config.LUNANEXA_WORKFLOW_WAIT_MS} ms (is Temporal up and a worker running?)`,
        );
      }
      throw this.translate(error);
    }
    if (result.message !== message) {
      throw new LunaNexaError(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
        `idempotency key ${key} was already used with a different message`,
      );
    }
    return {
      workflowId,
      runId,
      pingId: result.pingId,
      message: result.message,
      correlationId: ids.correlationId,
      receiptHash: result.receipt.hash,
      receiptSeq: result.receipt.seq,
      temporalUiUrl: temporalWorkflowUrl(
        this.config.LUNANEXA_TEMPORAL_UI_URL,
        this.config.TEMPORAL_NAMESPACE,
        workflowId,
        runId,
      ),
    };
  }

  async recent(limit: number): Promise<PingRecord[]> {
    const rows = await recentPingRecords(this.db, limit);
    return rows.map((row) => ({
      id: row.id,
      workflowId: row.workflowId,
      message: row.message,
      actor: row.actor,
      correlationId: row.correlationId,
      createdAt: row.createdAt,
      temporalUiUrl: temporalWorkflowUrl(
        this.config.LUNANEXA_TEMPORAL_UI_URL,
        this.config.TEMPORAL_NAMESPACE,
        row.workflowId,
      ),
    }));
  }

  private translate(error: unknown): unknown {
    if (error instanceof LunaNexaError) return error;
    if (error instanceof WorkflowFailedError) {
      return typedFailure(error) ?? new LunaNexaError(ErrorCode.INTERNAL, 'workflow failed');
    }
    if (isTemporalConnectionFailure(error))
      return new LunaNexaError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Temporal is not reachable');
    return error;
  }
}
