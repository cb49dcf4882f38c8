import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { CommandRegistrars } from './registration';
import { ErrorCode } from '@lunanexa/contracts';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { parseIdempotencyKey, parseModelVersionRef, parseName, parseWholeNumber } from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { CliError, ExitCode, usageError } from '../errors';
import { formatFields, formatTable, writeJson } from '../output';
import { WORKFLOW_REQUEST_TIMEOUT_MS } from './nodes';

/**
 * `lunanexa eval …`: evaluation suites and benchmark profiles from JSON files
 * (the contracts' EvaluationSuiteDefinition / BenchmarkProfileDefinition),
 * evaluation runs of a model version on a candidate deployment, and the
 * comparison of versions on one profile. `eval compare` exits 1 when a
 * version regressed against the baseline, so CI can gate on it.
 */

export const EVAL_POLL_INTERVAL_MS = 1000;
export const DEFAULT_EVAL_WAIT_SECONDS = 3600;

/** The CLI's evaluation operations (libs/sdk/graphql/cli/evaluation.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const EVALUATION_DOCUMENTS = {
  createSuite: Operations.CreateEvaluationSuiteDocument.document,
  suites: Operations.EvaluationSuitesDocument.document,
  createProfile: Operations.CreateBenchmarkProfileDocument.document,
  profiles: Operations.BenchmarkProfilesDocument.document,
  start: Operations.StartEvaluationDocument.document,
  run: Operations.EvaluationRunDocument.document,
  runs: Operations.EvaluationRunsDocument.document,
  compare: Operations.BenchmarkComparisonDocument.document,
} as const;

export type EvaluationRunView = NonNullable<
  z.infer<typeof Results.EvaluationRunQuerySchema>['evaluationRun']
>;
export type BenchmarkComparisonView = z.infer<
  typeof Results.BenchmarkComparisonQuerySchema
>['benchmarkComparison'];

const FINISHED = new Set(['Passed', 'Failed', 'Errored']);

function readJsonFile(path: string | undefined): Record<string, unknown> {
  if (path === undefined) throw usageError('--file <path> is required');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${path} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw usageError(`${path} must hold one JSON object`);
  }
  return value as Record<string, unknown>;
}

const GRADER_KIND_VALUES: Readonly<Record<string, string>> = {
  exact: 'EXACT',
  contains: 'CONTAINS',
  regex: 'REGEX',
  'json-schema': 'JSON_SCHEMA',
};

/**
 * A suite file (EvaluationSuiteDefinition JSON) as the GraphQL input: grader
 * kinds become enum values and a json-schema grader's schema travels as
 * JSON text. Everything else is passed as written; the API validates it.
 */
export function suiteInputFromFile(file: Record<string, unknown>): Record<string, unknown> {
  const cases: unknown = file['cases'];
  return {
    ...file,
    cases: Array.isArray(cases)
      ? (cases as unknown[]).map((raw: unknown) => {
          if (raw === null || typeof raw !== 'object') return raw;
          const testCase = raw as Record<string, unknown>;
          const grader = testCase['grader'];
          if (grader === null || typeof grader !== 'object') return testCase;
          const { kind, schema, ...rest } = grader as Record<string, unknown>;
          return {
            ...testCase,
            grader: {
              ...rest,
              kind: typeof kind === 'string' ? (GRADER_KIND_VALUES[kind] ?? kind) : kind,
              ...(schema === undefined ? {} : { schemaJson: JSON.stringify(schema) }),
            },
          };
        })
      : cases,
  };
}

/** A profile file (BenchmarkProfileDefinition JSON) as the GraphQL input: the SLOs flattened. */
export function profileInputFromFile(file: Record<string, unknown>): Record<string, unknown> {
  const { slo, ...rest } = file;
  return { ...rest, ...(slo !== null && typeof slo === 'object' ? (slo as Record<string, unknown>) : {}) };
}

const pct = (value: number | null | undefined): string =>
  value === null || value === undefined ? '-' : `${(value * 100).toFixed(1)} %`;
const ms = (value: number | null | undefined): string =>
  value === null || value === undefined ? '-' : `${value.toFixed(1)} ms`;
const rate = (value: number | null | undefined): string =>
  value === null || value === undefined ? '-' : `${value.toFixed(1)}`;

export function renderRun(run: EvaluationRunView): string {
  const fields: [string, string][] = [
    ['run', run.id],
    ['model', run.modelRef],
    ['deployment', run.deploymentId],
    ['suite', run.suite],
    ['profile', run.profile ?? '(none)'],
    ['state', run.state],
  ];
  if (run.scores) {
    fields.push([
      'pass rate',
      `${pct(run.scores.passRate)} (${run.scores.passedCases}/${run.scores.totalCases}, threshold ${pct(run.scores.passThreshold)})`,
    ]);
  }
  if (run.metrics) {
    const m = run.metrics;
    fields.push([
      'requests',
      `${m.requests} (${m.errors} errors, ${pct(m.errorRate)}) at concurrency ${m.concurrency}`,
    ]);
    fields.push([
      'ttft p50/p95/p99',
      m.ttftMs ? `${ms(m.ttftMs.p50)} / ${ms(m.ttftMs.p95)} / ${ms(m.ttftMs.p99)}` : '-',
    ]);
    fields.push(['tokens/s', rate(m.tokensPerSecond)]);
  }
  for (const reason of run.reasons) fields.push(['reason', reason]);
  if (run.errorCode) fields.push(['error', run.errorCode]);
  fields.push(['workflow', run.workflowId], ['temporal ui', run.temporalUiUrl]);
  const failedCases = run.scores?.cases.filter((c) => !c.passed) ?? [];
  const cases =
    failedCases.length === 0
      ? ''
      : `\n${formatTable(
          ['FAILED CASE', 'GRADER', 'WHY'],
          failedCases.map((c) => [c.caseId, c.grader, c.errorCode ?? c.reason ?? '']),
        )}`;
  return `${formatFields(fields)}${cases}`;
}

export function renderRuns(runs: readonly EvaluationRunView[]): string {
  if (runs.length === 0)
    return 'No evaluation runs. Start one: lunanexa eval run --model-version <m@v> --deployment <d> --suite <s>\n';
  return formatTable(
    ['RUN', 'MODEL', 'SUITE', 'PROFILE', 'STATE', 'PASS RATE', 'TTFT P95', 'TOKENS/S', 'ERRORS', 'FINISHED'],
    runs.map((run) => [
      run.id,
      run.modelRef,
      run.suite,
      run.profile ?? '-',
      run.state,
      pct(run.scores?.passRate),
      ms(run.metrics?.ttftMs?.p95),
      rate(run.metrics?.tokensPerSecond),
      pct(run.metrics?.errorRate),
      run.finishedAt ?? '-',
    ]),
  );
}

export function renderComparison(comparison: BenchmarkComparisonView): string {
  const table = formatTable(
    ['MODEL', 'PASS RATE', 'TTFT P50', 'TTFT P95', 'TTFT P99', 'TOKENS/S', 'ERRORS', 'VERDICT'],
    comparison.entries.map((e) => [
      e.modelRef,
      `${pct(e.passRate)}${e.sameSuiteAsBaseline ? '' : ' (other suite)'}`,
      ms(e.ttftP50Ms),
      ms(e.ttftP95Ms),
      ms(e.ttftP99Ms),
      rate(e.tokensPerSecond),
      pct(e.errorRate),
      e.baseline ? 'baseline' : e.run === null ? 'no run' : e.regressed ? 'REGRESSED' : 'ok',
    ]),
  );
  const reasons = comparison.entries.flatMap((e) =>
    e.regressions.map((r) => `  ${e.modelRef}: ${r.reason}\n`),
  );
  return `profile ${comparison.profile} (${comparison.profileDigest.slice(0, 19)}…), baseline ${comparison.baseline}\n${table}${
    reasons.length > 0 ? `\nregressions:\n${reasons.join('')}` : ''
  }`;
}

export async function evalSuiteCreateCommand(
  ctx: CommandContext,
  options: { file?: string },
): Promise<ExitCode> {
  const input = suiteInputFromFile(readJsonFile(options.file));
  const { data, requestId } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.createSuite,
    { input },
    Results.CreateEvaluationSuiteMutationSchema,
  );
  const suite = data.createEvaluationSuite;
  if (ctx.json) writeJson(ctx.io.stdout, { ...suite, requestId });
  else
    ctx.io.stdout(
      formatFields([
        ['suite', `${suite.name} (${suite.id})`],
        ['cases', String(suite.caseCount)],
        ['pass threshold', pct(suite.passThreshold)],
        ['digest', suite.digest],
      ]),
    );
  return ExitCode.OK;
}

export async function evalSuiteListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.suites,
    undefined,
    Results.EvaluationSuitesQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.evaluationSuites);
  else
    ctx.io.stdout(
      data.evaluationSuites.length === 0
        ? 'No evaluation suites. Create one: lunanexa eval suite create --file suite.json\n'
        : formatTable(
            ['NAME', 'CASES', 'THRESHOLD', 'DIGEST', 'CREATED'],
            data.evaluationSuites.map((s) => [
              s.name,
              String(s.caseCount),
              pct(s.passThreshold),
              s.digest.slice(0, 19),
              s.createdAt,
            ]),
          ),
    );
  return ExitCode.OK;
}

export async function evalProfileCreateCommand(
  ctx: CommandContext,
  options: { file?: string },
): Promise<ExitCode> {
  const input = profileInputFromFile(readJsonFile(options.file));
  const { data, requestId } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.createProfile,
    { input },
    Results.CreateBenchmarkProfileMutationSchema,
  );
  const profile = data.createBenchmarkProfile;
  if (ctx.json) writeJson(ctx.io.stdout, { ...profile, requestId });
  else
    ctx.io.stdout(
      formatFields([
        ['profile', `${profile.name} (${profile.id})`],
        ['concurrency', String(profile.concurrency)],
        ['input/output', `${profile.inputTokens} / ${profile.outputTokens} tokens`],
        ['digest', profile.digest],
      ]),
    );
  return ExitCode.OK;
}

export async function evalProfileListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.profiles,
    undefined,
    Results.BenchmarkProfilesQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.benchmarkProfiles);
  else
    ctx.io.stdout(
      data.benchmarkProfiles.length === 0
        ? 'No benchmark profiles. Create one: lunanexa eval profile create --file profile.json\n'
        : formatTable(
            ['NAME', 'CONCURRENCY', 'INPUT', 'OUTPUT', 'DURATION', 'REQUESTS', 'DIGEST'],
            data.benchmarkProfiles.map((p) => [
              p.name,
              String(p.concurrency),
              String(p.inputTokens),
              String(p.outputTokens),
              p.durationSeconds === null ? '-' : `${p.durationSeconds} s`,
              p.requestCount === null ? '-' : String(p.requestCount),
              p.digest.slice(0, 19),
            ]),
          ),
    );
  return ExitCode.OK;
}

export interface EvalRunOptions {
  readonly modelVersion?: string;
  readonly deployment?: string;
  readonly suite?: string;
  readonly profile?: string;
  readonly key?: string;
  readonly wait?: boolean;
  readonly waitTimeout?: string;
}

export function evalRunInput(options: EvalRunOptions): Record<string, string> {
  if (options.modelVersion === undefined) throw usageError('--model-version <name>@<version> is required');
  if (options.deployment === undefined) throw usageError('--deployment <name> is required');
  if (options.suite === undefined) throw usageError('--suite <name> is required');
  return {
    modelVersion: parseModelVersionRef(options.modelVersion, '--model-version').ref,
    deployment: options.deployment,
    suite: parseName(options.suite, 'suite name'),
    ...(options.profile === undefined ? {} : { profile: parseName(options.profile, 'profile name') }),
    ...(options.key === undefined ? {} : { idempotencyKey: parseIdempotencyKey(options.key) }),
  };
}

/** Starts a run; with --wait polls until it finished and exits 1 unless it Passed. */
export async function evalRunCommand(
  ctx: CommandContext,
  options: EvalRunOptions,
  pollIntervalMs: number = EVAL_POLL_INTERVAL_MS,
): Promise<ExitCode> {
  const input = evalRunInput(options);
  if (options.waitTimeout !== undefined && options.wait !== true)
    throw usageError('--wait-timeout only applies with --wait');
  const waitSeconds =
    options.waitTimeout === undefined
      ? DEFAULT_EVAL_WAIT_SECONDS
      : parseWholeNumber(options.waitTimeout, '--wait-timeout', 1);
  const { data, requestId } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.start,
    { input },
    Results.StartEvaluationMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  const operation = data.startEvaluation;
  if (!ctx.json) {
    ctx.io.stdout(
      formatFields([
        ['run', operation.runId],
        ['state', operation.run?.state ?? 'Pending (not recorded yet)'],
        ['workflow', operation.workflowId],
        ['temporal ui', operation.temporalUiUrl],
        ['correlation id', operation.correlationId],
      ]),
    );
  }
  if (options.wait !== true) {
    if (ctx.json) writeJson(ctx.io.stdout, { ...operation, requestId });
    return ExitCode.OK;
  }
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const answer = await ctx.api.graphql(
      EVALUATION_DOCUMENTS.run,
      { id: operation.runId },
      Results.EvaluationRunQuerySchema,
    );
    const run = answer.data.evaluationRun;
    if (run && FINISHED.has(run.state)) {
      if (ctx.json) writeJson(ctx.io.stdout, { ...operation, run, requestId: answer.requestId });
      else ctx.io.stdout(`\n${renderRun(run)}`);
      return run.state === 'Passed' ? ExitCode.OK : ExitCode.FAILURE;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new CliError(
        {
          code: ErrorCode.DEADLINE_EXCEEDED,
          message: `run ${operation.runId} did not finish within ${waitSeconds} s`,
        },
        answer.requestId,
      );
    }
    await sleep(Math.min(pollIntervalMs, remaining));
  }
}

export async function evalRunsCommand(
  ctx: CommandContext,
  options: { modelVersion?: string; profile?: string },
): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.runs,
    {
      v:
        options.modelVersion === undefined
          ? null
          : parseModelVersionRef(options.modelVersion, '--model-version').ref,
      p: options.profile === undefined ? null : parseName(options.profile, 'profile name'),
    },
    Results.EvaluationRunsQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.evaluationRuns);
  else ctx.io.stdout(renderRuns(data.evaluationRuns));
  return ExitCode.OK;
}

/** Exit 1 when any version regressed against the baseline. */
export async function evalCompareCommand(
  ctx: CommandContext,
  options: { profile?: string; versions?: string; baseline?: string },
): Promise<ExitCode> {
  if (options.profile === undefined) throw usageError('--profile <name> is required');
  if (options.versions === undefined) throw usageError('--versions <m@v,m@v,…> is required');
  const versions = options.versions
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0)
    .map((v) => parseModelVersionRef(v, '--versions').ref);
  if (versions.length === 0) throw usageError('--versions needs at least one model version');
  const { data } = await ctx.api.graphql(
    EVALUATION_DOCUMENTS.compare,
    {
      p: parseName(options.profile, 'profile name'),
      v: versions,
      b: options.baseline === undefined ? null : parseModelVersionRef(options.baseline, '--baseline').ref,
    },
    Results.BenchmarkComparisonQuerySchema,
  );
  const comparison = data.benchmarkComparison;
  if (ctx.json) writeJson(ctx.io.stdout, comparison);
  else ctx.io.stdout(renderComparison(comparison));
  return comparison.regressed ? ExitCode.FAILURE : ExitCode.OK;
}

/** `lunanexa eval …`, registered on the program by cli.ts with its shared helpers. */
export function registerEvaluationCommands(program: Command, { group, leaf, run }: CommandRegistrars): void {
  const evaluation = group(program, 'eval', 'evaluation suites, benchmark profiles, runs and comparisons');
  const suite = group(evaluation, 'suite', 'evaluation suites: prompts with graders');
  leaf(suite, 'create')
    .description('store a suite from a JSON file (EvaluationSuiteDefinition); suites are immutable')
    .option('--file <path>', 'the suite definition')
    .action(run((ctx, options: { file?: string }) => evalSuiteCreateCommand(ctx, options)));
  leaf(suite, 'list')
    .description('list evaluation suites')
    .action(run((ctx) => evalSuiteListCommand(ctx)));
  const profile = group(evaluation, 'profile', 'benchmark profiles: closed-loop load shapes');
  leaf(profile, 'create')
    .description(
      'store a benchmark profile from a JSON file (BenchmarkProfileDefinition); profiles are immutable',
    )
    .option('--file <path>', 'the profile definition')
    .action(run((ctx, options: { file?: string }) => evalProfileCreateCommand(ctx, options)));
  leaf(profile, 'list')
    .description('list benchmark profiles')
    .action(run((ctx) => evalProfileListCommand(ctx)));
  leaf(evaluation, 'run')
    .description('evaluate a model version on a candidate deployment of it; --wait exits 1 unless it passed')
    .option('--model-version <ref>', 'the version to evaluate (name@version)')
    .option('--deployment <name>', 'a deployment of that version with a Ready replica')
    .option('--suite <name>', 'the evaluation suite')
    .option('--profile <name>', 'the benchmark profile (default: the suite only)')
    .option('--key <idempotency-key>', 'the same key returns the same run')
    .option('--wait', 'poll until the run finished and print its result')
    .option(
      '--wait-timeout <seconds>',
      `give up waiting after this long (default ${DEFAULT_EVAL_WAIT_SECONDS})`,
    )
    .action(run((ctx, options: EvalRunOptions) => evalRunCommand(ctx, options)));
  leaf(evaluation, 'runs')
    .description('list evaluation runs, newest first')
    .option('--model-version <ref>', 'only this version')
    .option('--profile <name>', 'only runs on this profile')
    .action(
      run((ctx, options: { modelVersion?: string; profile?: string }) => evalRunsCommand(ctx, options)),
    );
  leaf(evaluation, 'compare')
    .description(
      'compare the latest runs of versions on one profile; exit 1 when one regressed against the baseline',
    )
    .option('--profile <name>', 'the benchmark profile')
    .option(
      '--versions <refs>',
      'comma-separated model versions; the first is the baseline unless --baseline',
    )
    .option('--baseline <ref>', 'the version the others are judged against')
    .action(
      run((ctx, options: { profile?: string; versions?: string; baseline?: string }) =>
        evalCompareCommand(ctx, options),
      ),
    );
}
