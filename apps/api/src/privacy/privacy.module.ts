import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { PrivacyResolver } from './privacy.resolver';
import { PrivacyService } from './privacy.service';

/** Payload privacy: tenant data policies, payload capture listings and purges. */
@Module({
  providers: [WorkflowRunner, PrivacyService, PrivacyResolver],
})
export class PrivacyModule {}
