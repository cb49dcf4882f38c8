import { Module } from '@nestjs/common';
import { DeploymentsResolver } from './deployments.resolver';
import { DeploymentsService } from './deployments.service';

/** Deployments (one deploymentWorkflow each) and the scheduler's dry run. */
@Module({
  providers: [DeploymentsService, DeploymentsResolver],
})
export class DeploymentsModule {}
