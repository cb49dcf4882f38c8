import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { ModelFieldsResolver, ModelVersionFieldsResolver, RegistryResolver } from './registry.resolver';
import { RegistryService } from './registry.service';

/** The model registry: models, licenses, runtimes, model versions and their lifecycle. */
@Module({
  providers: [
    WorkflowRunner,
    RegistryService,
    RegistryResolver,
    ModelFieldsResolver,
    ModelVersionFieldsResolver,
  ],
  exports: [RegistryService],
})
export class RegistryModule {}
