export { BenchmarksModule } from './benchmarks.module';
export { BenchmarkRunService } from './benchmark-run.service';
