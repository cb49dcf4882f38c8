import {
  ConsoleBenchmarkChoicesDocument,
  ConsoleBenchmarkComparisonDocument,
  ConsoleBenchmarkRunsDocument,
  ConsoleCapacityRecommendationsDocument,
  ConsoleStartBenchmarkRunDocument,
  type ConsoleBenchmarkChoicesQuery,
  type ConsoleBenchmarkComparisonQuery,
  type ConsoleBenchmarkRunsQuery,
  type ConsoleCapacityRecommendationsQuery,
} from '@lunanexa/sdk/generated/operations';

/* The benchmark operations (libs/sdk/graphql/console/benchmarks.graphql); result types are generated from each selection. */

export type BenchmarkProfile = ConsoleBenchmarkChoicesQuery['benchmarkProfiles'][number];
export type VersionChoice = ConsoleBenchmarkChoicesQuery['modelVersions'][number];
export type Comparison = ConsoleBenchmarkComparisonQuery['benchmarkComparison'];
export type ComparisonEntry = Comparison['entries'][number];
export type BenchmarkRegression = ComparisonEntry['regressions'][number];

/** What the view offers to compare: profiles and the versions that may have runs on them. */
export const BENCHMARK_CHOICES = ConsoleBenchmarkChoicesDocument;
export const BENCHMARK_COMPARISON = ConsoleBenchmarkComparisonDocument;

export type BenchmarkRun = ConsoleBenchmarkRunsQuery['benchmarkRuns'][number];
export type SaturationStep = NonNullable<BenchmarkRun['saturation']>['steps'][number];
export type LongStream = NonNullable<BenchmarkRun['longStream']>;
export type LoadFigures = NonNullable<BenchmarkRun['mixed']>['short'];
export type ColdStart = NonNullable<BenchmarkRun['coldStart']>;
export type DeploymentChoice = ConsoleBenchmarkChoicesQuery['deployments'][number];
export type CapacityRecommendation = ConsoleCapacityRecommendationsQuery['capacityRecommendations'][number];

/** Recent benchmark runs (saturation sweeps, long streams, mixed loads) and the capacity per alias. */
export const BENCHMARK_RUNS = ConsoleBenchmarkRunsDocument;
export const CAPACITY_RECOMMENDATIONS = ConsoleCapacityRecommendationsDocument;
/** Starts a run on a deployment (an alias's: the deployment it routes to) from the view's form. */
export const START_BENCHMARK_RUN = ConsoleStartBenchmarkRunDocument;
