import { Module } from '@nestjs/common';
import { RolloutsResolver } from './rollouts.resolver';
import { RolloutsService } from './rollouts.service';

/** Versioned aliases and rollouts (canary steps, analysis, promotion, rollback). */
@Module({
  providers: [RolloutsService, RolloutsResolver],
})
export class RolloutsModule {}
