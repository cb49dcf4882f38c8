import { Module } from '@nestjs/common';
import { FakeModelVersionService } from './fake-model-version.service';
import { ModelFieldsResolver, ModelVersionFieldsResolver, RegistryResolver } from './registry.resolver';
import { RegistryService } from './registry.service';

/**
 * The model registry: models, licenses, runtimes, model versions and their
 * lifecycle, and the synthetic fake-runtime model versions.
 */
@Module({
  providers: [
    RegistryService,
    FakeModelVersionService,
    RegistryResolver,
    ModelFieldsResolver,
    ModelVersionFieldsResolver,
  ],
})
export class RegistryModule {}
