import {
  ConsoleBenchmarkChoicesDocument,
  ConsoleBenchmarkComparisonDocument,
  type ConsoleBenchmarkChoicesQuery,
  type ConsoleBenchmarkComparisonQuery,
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
