import { Module } from '@nestjs/common';
import { BenchmarkRunResolver } from './benchmark-run.resolver';
import { BenchmarkRunService } from './benchmark-run.service';

@Module({
  providers: [BenchmarkRunService, BenchmarkRunResolver],
  // The evidence bundle carries an alias's capacity recommendation as of its export.
  exports: [BenchmarkRunService],
})
export class BenchmarksModule {}
