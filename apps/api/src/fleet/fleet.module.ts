import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { AgentChannelService } from './agent-channel.service';
import { AgentController } from './agent.controller';
import { DeploymentsService } from './deployments.service';
import { FleetResolver } from './fleet.resolver';
import { FleetService } from './fleet.service';

/** The node lifecycle (enrollment, heartbeats, cordon/drain, rotation) and the deployment slice. */
@Module({
  controllers: [AgentController],
  providers: [WorkflowRunner, AgentChannelService, FleetService, DeploymentsService, FleetResolver],
})
export class FleetModule {}
