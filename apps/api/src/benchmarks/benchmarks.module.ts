import { Module } from '@nestjs/common';
import { BenchmarkRunResolver } from './benchmark-run.resolver';
import { BenchmarkRunService } from './benchmark-run.service';

@Module({
  providers: [BenchmarkRunService, BenchmarkRunResolver],
})
export class BenchmarksModule {}
