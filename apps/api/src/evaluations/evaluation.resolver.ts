import { Args, Context, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { EVALUATION_MUTATION_PERMISSIONS as PERMISSION } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { callerOf } from '../common/caller';
import { EvaluationService } from './evaluation.service';
import {
  BenchmarkComparison,
  BenchmarkProfile,
  BenchmarkRegressionThresholdsInput,
  CreateBenchmarkProfileInput,
  CreateEvaluationSuiteInput,
  EvaluationOperation,
  EvaluationRun,
  EvaluationSuite,
  StartEvaluationInput,
} from './evaluation.types';

/** Evaluation suites, benchmark profiles, runs and comparisons. Reads need read; every change needs operate. */
@Resolver()
export class EvaluationResolver {
  constructor(private readonly evaluation: EvaluationService) {}

  @RequirePermission('read')
  @Query(() => [EvaluationSuite], { description: 'Every evaluation suite, by name.' })
  evaluationSuites(): Promise<EvaluationSuite[]> {
    return this.evaluation.suites();
  }

  @RequirePermission('read')
  @Query(() => [BenchmarkProfile], { description: 'Every benchmark profile, by name.' })
  benchmarkProfiles(): Promise<BenchmarkProfile[]> {
    return this.evaluation.profiles();
  }

  @RequirePermission('read')
  @Query(() => [EvaluationRun], {
    description: 'Evaluation runs, newest first; of one model version and/or one profile when given.',
  })
  evaluationRuns(
    @Args('modelVersion', { type: () => String, nullable: true }) modelVersion: string | null,
    @Args('profile', { type: () => String, nullable: true }) profile: string | null,
    @Args('limit', { type: () => Int, nullable: true }) limit: number | null,
  ): Promise<EvaluationRun[]> {
    return this.evaluation.runs(modelVersion ?? null, profile ?? null, limit ?? null);
  }

  @RequirePermission('read')
  @Query(() => EvaluationRun, { nullable: true })
  evaluationRun(@Args('id', { type: () => ID }) id: string): Promise<EvaluationRun | null> {
    return this.evaluation.run(id);
  }

  @RequirePermission('read')
  @Query(() => BenchmarkComparison, {
    description:
      'The latest finished run of each version on one profile, side by side, with regressions against the baseline (the first version unless named).',
  })
  benchmarkComparison(
    @Args('profile') profile: string,
    @Args('modelVersions', { type: () => [String] }) modelVersions: string[],
    @Args('baseline', { type: () => String, nullable: true }) baseline: string | null,
    // Optional and last so its reflected type is the class itself, which the global ValidationPipe needs.
    @Args('thresholds', { type: () => BenchmarkRegressionThresholdsInput, nullable: true })
    thresholds?: BenchmarkRegressionThresholdsInput,
  ): Promise<BenchmarkComparison> {
    return this.evaluation.compare(profile, modelVersions, baseline ?? null, thresholds ?? null);
  }

  @RequirePermission(PERMISSION.createEvaluationSuite)
  @Mutation(() => EvaluationSuite, {
    description: 'Stores an evaluation suite (immutable; the same definition again returns it).',
  })
  createEvaluationSuite(
    @Args('input') input: CreateEvaluationSuiteInput,
    @Context() ctx: GraphQLContext,
  ): Promise<EvaluationSuite> {
    return this.evaluation.createSuite(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.createBenchmarkProfile)
  @Mutation(() => BenchmarkProfile, {
    description: 'Stores a benchmark profile (immutable; the same definition again returns it).',
  })
  createBenchmarkProfile(
    @Args('input') input: CreateBenchmarkProfileInput,
    @Context() ctx: GraphQLContext,
  ): Promise<BenchmarkProfile> {
    return this.evaluation.createProfile(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.startEvaluation)
  @Mutation(() => EvaluationOperation, {
    description:
      'Evaluates a model version on a candidate deployment of it: the suite, then the benchmark profile; records scores and metrics and moves the version to Evaluated or EvaluationFailed.',
  })
  startEvaluation(
    @Args('input') input: StartEvaluationInput,
    @Context() ctx: GraphQLContext,
  ): Promise<EvaluationOperation> {
    return this.evaluation.startEvaluation(input, callerOf(ctx));
  }
}
