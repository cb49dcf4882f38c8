import { Module } from '@nestjs/common';
import { AgentChannelService } from './agent-channel.service';
import { AgentController } from './agent.controller';
import { NodeChangeAnnouncer } from './node-change-announcer';

/** The signed HTTP channel agents enroll and heartbeat on. */
@Module({
  controllers: [AgentController],
  providers: [NodeChangeAnnouncer, AgentChannelService],
})
export class AgentChannelModule {}
