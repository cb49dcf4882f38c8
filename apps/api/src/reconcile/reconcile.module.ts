import { Module } from '@nestjs/common';
import { ReconcileResolver } from './reconcile.resolver';
import { ReconcileService } from './reconcile.service';

/** Reconcile: dry run and repairing passes, each a Reconcile workflow. */
@Module({
  providers: [ReconcileService, ReconcileResolver],
})
export class ReconcileModule {}
