import { Inject } from '@nestjs/common';
import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { Client } from '@temporalio/client';
import { RequirePermission } from '../auth';
import { API_CONFIG, type ApiConfig } from '../config';
import { TEMPORAL_CLIENT } from '../infrastructure/infrastructure.module';
import { temporalWorkflowUrl } from '../common/temporal-links';
import { WorkflowAlert } from './search.types';

const LIST_TIMEOUT_MS = 5000;

@Resolver()
export class WorkflowAlertsResolver {
  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @RequirePermission('read')
  @Query(() => [WorkflowAlert], {
    description: 'Workflows that failed, timed out or were terminated in the last `hours`, newest first.',
  })
  async workflowAlerts(
    @Args('hours', { type: () => Int, defaultValue: 24 }) hours: number,
    @Args('limit', { type: () => Int, defaultValue: 20 }) limit: number,
  ): Promise<WorkflowAlert[]> {
    if (!Number.isInteger(hours) || hours < 1 || hours > 24 * 30) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'hours must be between 1 and 720', [
        { path: 'hours', message: 'must be between 1 and 720' },
      ]);
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'limit must be between 1 and 100', [
        { path: 'limit', message: 'must be between 1 and 100' },
      ]);
    }
    const since = new Date(Date.now() - hours * 3_600_000).toISOString();
    const query = `(ExecutionStatus = 'Failed' OR ExecutionStatus = 'TimedOut' OR ExecutionStatus = 'Terminated') AND CloseTime > '${since}'`;
    const alerts: WorkflowAlert[] = [];
    try {
      await this.temporal.withAbortSignal(AbortSignal.timeout(LIST_TIMEOUT_MS), async () => {
        for await (const execution of this.temporal.workflow.list({ query, pageSize: limit })) {
          alerts.push({
            workflowId: execution.workflowId,
            runId: execution.runId,
            workflowType: execution.type,
            status: execution.status.name,
            closedAt: execution.closeTime ?? null,
            temporalUiUrl: temporalWorkflowUrl(
              this.config.LUNANEXA_TEMPORAL_UI_URL,
              this.config.TEMPORAL_NAMESPACE,
              execution.workflowId,
              execution.runId,
            ),
          });
          if (alerts.length >= limit) break;
        }
      });
    } catch (error: unknown) {
      throw new LunaNexaError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        `Temporal did not list workflows: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return alerts.sort((a, b) => (b.closedAt?.getTime() ?? 0) - (a.closedAt?.getTime() ?? 0));
  }
}
