import { Module } from '@nestjs/common';
import { PlaygroundController } from './playground.controller';
import { RequestsResolver } from './requests.resolver';
import { RequestsService } from './requests.service';
import { SearchResolver } from './search.resolver';
import { SearchService } from './search.service';
import { WorkflowAlertsResolver } from './workflow-alerts.resolver';

/** The console's investigation surface: request records, traffic, global search, failed workflows, the playground. */
@Module({
  controllers: [PlaygroundController],
  providers: [RequestsService, RequestsResolver, SearchService, SearchResolver, WorkflowAlertsResolver],
})
export class RequestsModule {}
