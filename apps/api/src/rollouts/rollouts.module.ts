import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { RolloutsResolver } from './rollouts.resolver';
import { RolloutsService } from './rollouts.service';

/** Versioned aliases and rollouts (canary steps, analysis, promotion, rollback). */
@Module({
  providers: [WorkflowRunner, RolloutsService, RolloutsResolver],
})
export class RolloutsModule {}
