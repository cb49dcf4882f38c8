import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

export type BenchmarkProfile = Pick<
  Schema.BenchmarkProfile,
  | 'id'
  | 'name'
  | 'description'
  | 'concurrency'
  | 'inputTokens'
  | 'outputTokens'
  | 'durationSeconds'
  | 'requestCount'
  | 'maxErrorRate'
  | 'maxTtftP95Ms'
  | 'minTokensPerSecond'
>;

export type VersionChoice = Pick<Schema.ModelVersion, 'id' | 'ref' | 'state'>;

export type BenchmarkRegression = Pick<
  Schema.BenchmarkRegression,
  'metric' | 'baseline' | 'candidate' | 'reason'
>;

export interface ComparisonEntry extends Pick<
  Schema.BenchmarkComparisonEntry,
  | 'modelRef'
  | 'modelVersionId'
  | 'baseline'
  | 'passRate'
  | 'ttftP50Ms'
  | 'ttftP95Ms'
  | 'ttftP99Ms'
  | 'tokensPerSecond'
  | 'errorRate'
  | 'sameSuiteAsBaseline'
  | 'regressed'
> {
  readonly regressions: readonly BenchmarkRegression[];
  readonly run: Pick<
    Schema.EvaluationRun,
    'id' | 'suite' | 'finishedAt' | 'workflowId' | 'temporalUiUrl'
  > | null;
}

export interface Comparison extends Pick<
  Schema.BenchmarkComparison,
  'profile' | 'profileDigest' | 'baseline' | 'regressed'
> {
  readonly thresholds: Pick<
    Schema.BenchmarkRegressionThresholds,
    | 'maxTtftP95Increase'
    | 'ttftSlackMs'
    | 'maxTokensPerSecondDrop'
    | 'maxErrorRateIncrease'
    | 'maxPassRateDrop'
  >;
  readonly entries: readonly ComparisonEntry[];
}

/** What the view offers to compare: profiles and the versions that may have runs on them. */
export const BENCHMARK_CHOICES = graphqlOperation<{
  readonly benchmarkProfiles: readonly BenchmarkProfile[];
  readonly modelVersions: readonly VersionChoice[];
}>(`
  query ConsoleBenchmarkChoices {
    benchmarkProfiles {
      id
      name
      description
      concurrency
      inputTokens
      outputTokens
      durationSeconds
      requestCount
      maxErrorRate
      maxTtftP95Ms
      minTokensPerSecond
    }
    modelVersions { id ref state }
  }
`);

export const BENCHMARK_COMPARISON = graphqlOperation<
  { readonly benchmarkComparison: Comparison },
  Readonly<Schema.QueryBenchmarkComparisonArgs>
>(`
  query ConsoleBenchmarkComparison($profile: String!, $modelVersions: [String!]!, $baseline: String) {
    benchmarkComparison(profile: $profile, modelVersions: $modelVersions, baseline: $baseline) {
      profile
      profileDigest
      baseline
      regressed
      thresholds { maxTtftP95Increase ttftSlackMs maxTokensPerSecondDrop maxErrorRateIncrease maxPassRateDrop }
      entries {
        modelRef
        modelVersionId
        baseline
        passRate
        ttftP50Ms
        ttftP95Ms
        ttftP99Ms
        tokensPerSecond
        errorRate
        sameSuiteAsBaseline
        regressed
        regressions { metric baseline candidate reason }
        run { id suite finishedAt workflowId temporalUiUrl }
      }
    }
  }
`);
