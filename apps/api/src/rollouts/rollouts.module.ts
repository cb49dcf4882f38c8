import { Module } from '@nestjs/common';
import { RolloutFieldsResolver, RolloutsResolver } from './rollouts.resolver';
import { RolloutsService } from './rollouts.service';

/** Versioned aliases and rollouts (canary steps, analysis, promotion, rollback). */
@Module({
  providers: [RolloutsService, RolloutsResolver, RolloutFieldsResolver],
})
export class RolloutsModule {}
