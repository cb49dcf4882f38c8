import { Module } from '@nestjs/common';
import { HealingResolver } from './healing.resolver';
import { HealingService } from './healing.service';

/** Healing rules: dry run and on-demand healing passes (the standing loop runs in the worker). */
@Module({
  providers: [HealingService, HealingResolver],
})
export class HealingModule {}
