import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { ReconcileResolver } from './reconcile.resolver';
import { ReconcileService } from './reconcile.service';

/** Reconcile: dry run and repairing passes, each a Reconcile workflow. */
@Module({
  providers: [WorkflowRunner, ReconcileService, ReconcileResolver],
})
export class ReconcileModule {}
