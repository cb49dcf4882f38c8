import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { AgentChannelService } from './agent-channel.service';
import { AgentController } from './agent.controller';
import { DeploymentsService } from './deployments.service';
import { FleetResolver } from './fleet.resolver';
import { FleetService } from './fleet.service';
import { NodeChangeAnnouncer } from './node-change-announcer';

/** The node lifecycle (enrollment, heartbeats, cordon/drain, rotation) and the deployment slice. */
@Module({
  controllers: [AgentController],
  providers: [
    WorkflowRunner,
    NodeChangeAnnouncer,
    AgentChannelService,
    FleetService,
    DeploymentsService,
    FleetResolver,
  ],
})
export class FleetModule {}
