import { Args, Context, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { EVALUATION_MUTATION_PERMISSIONS as PERMISSION } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { callerOf } from '../common/caller';
import { BenchmarkRunService } from './benchmark-run.service';
import {
  BenchmarkRun,
  BenchmarkRunOperation,
  CapacityRecommendation,
  StartBenchmarkRunInput,
} from './benchmark-run.types';

/** Benchmark runs and capacity recommendations. Reads need read; starting a run needs operate. */
@Resolver()
export class BenchmarkRunResolver {
  constructor(private readonly benchmarks: BenchmarkRunService) {}

  @RequirePermission('read')
  @Query(() => [BenchmarkRun], { description: 'Benchmark runs, newest first; of one deployment when given.' })
  benchmarkRuns(
    @Args('deployment', { type: () => String, nullable: true }) deployment: string | null,
    @Args('limit', { type: () => Int, nullable: true }) limit: number | null,
  ): Promise<BenchmarkRun[]> {
    return this.benchmarks.runs(deployment ?? null, limit ?? null);
  }

  @RequirePermission('read')
  @Query(() => BenchmarkRun, { nullable: true })
  benchmarkRun(@Args('id', { type: () => ID }) id: string): Promise<BenchmarkRun | null> {
    return this.benchmarks.run(id);
  }

  @RequirePermission('read')
  @Query(() => [CapacityRecommendation], {
    description:
      'Per alias (one, or every alias that routes): replicas needed at the observed peak (busiest bucket of the window, default 24 h of 60 s buckets) to keep the benchmark’s p95 TTFT, headroom now, and what losing the node with most replicas leaves.',
  })
  capacityRecommendations(
    @Args('alias', { type: () => String, nullable: true }) alias: string | null,
    @Args('windowHours', { type: () => Int, nullable: true }) windowHours: number | null,
    @Args('bucketSeconds', { type: () => Int, nullable: true }) bucketSeconds: number | null,
  ): Promise<CapacityRecommendation[]> {
    return this.benchmarks.capacity(alias ?? null, windowHours ?? null, bucketSeconds ?? null);
  }

  @RequirePermission(PERMISSION.startBenchmarkRun)
  @Mutation(() => BenchmarkRunOperation, {
    description:
      'Starts a benchmark run on a deployment’s Ready replicas: a saturation sweep, a long stream and/or a mixed load, with the profile’s lengths and SLO.',
  })
  startBenchmarkRun(
    @Args('input') input: StartBenchmarkRunInput,
    @Context() ctx: GraphQLContext,
  ): Promise<BenchmarkRunOperation> {
    return this.benchmarks.start(input, callerOf(ctx));
  }
}
