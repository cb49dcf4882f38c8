import { Inject, Injectable } from '@nestjs/common';
import {
  WORKFLOW_TYPES,
  type ReconcileWorkflowInput,
  type ReconcileWorkflowResult,
} from '@lunanexa/contracts';
import { reconcileWorkflowId } from '@lunanexa/domain';
import { controlPlaneDigest } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter } from '../auth';
import { API_CONFIG, type ApiConfig } from '../config';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import type { ControlPlaneDigestView, ReconcileInput, ReconcileRun } from './reconcile.types';

/**
 * Reconcile for operators and automation: a pass of the Reconcile workflow
 * (libs/domain planReconcile over PostgreSQL, Temporal and the agents'
 * reports). The dry run is the same workflow stopping after its plan — it
 * needs Temporal's view of which workflows run, so it is a workflow too —
 * and writes nothing.
 */
@Injectable()
export class ReconcileService {
  constructor(
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    private readonly db: DataSource,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** The digest backup.sh records beside each dump, of the state as it is now. */
  digest(): Promise<ControlPlaneDigestView> {
    return controlPlaneDigest(this.db);
  }

  async reconcile(input: ReconcileInput, caller: Caller): Promise<ReconcileRun> {
    // A refused pass is audited (a dry run changes nothing, so its refusal is only answered).
    const key = input.dryRun
      ? validateIdempotencyKey(input.idempotencyKey)
      : await this.audit.parsedOrRefused(
          { actor: caller.actor, action: 'fleet.reconcile', ids: caller.ids },
          {},
          () => validateIdempotencyKey(input.idempotencyKey),
        );
    // Dry runs and real passes never share an id: a repeated key must not turn one into the other.
    const workflowId = reconcileWorkflowId(input.dryRun ? `dry-run/${key}` : key);
    const workflowInput: ReconcileWorkflowInput = {
      dryRun: input.dryRun,
      leaseSeconds: this.config.LUNANEXA_ASSIGNMENT_LEASE_SECONDS,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    const started = await this.workflows.start(WORKFLOW_TYPES.reconcile, {
      workflowId,
      args: [workflowInput],
      correlationId: caller.ids.correlationId,
      actor: caller.actor,
    });
    const result = await this.workflows.result<ReconcileWorkflowResult>(workflowId);
    return {
      workflowId,
      temporalUiUrl: started.temporalUiUrl,
      correlationId: caller.ids.correlationId,
      dryRun: result.dryRun,
      inSync: result.inSync,
      drift: result.drift.map((drift) => ({ ...drift })),
      repairs: result.repairs.map((repair) => ({ ...repair })),
      receiptHash: result.receiptHash,
      receiptSeq: result.receiptSeq,
    };
  }
}
