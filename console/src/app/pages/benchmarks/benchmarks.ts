/*
 * Accessible names for browser tests:
 *   heading 'Benchmarks' (level 1); comboboxes 'Benchmark profile', 'Model versions', 'Baseline';
 *   table 'Benchmark comparison: one row per version, regressions flagged' whose rowheaders are the
 *   version refs; a regressed figure reads '<figure> regressed: <reason>'. Empty: text
 *   'No benchmark profiles yet.'. Failure: an alert 'Could not load benchmark profiles: …' and 'Retry'.
 *   Regions 'Benchmark runs' (combobox 'Benchmark run'; img 'Saturation curve: throughput and p95 TTFT by
 *   concurrency'; table 'Saturation steps'; img 'Long stream inter-token gap percentiles'; table 'Long
 *   stream and mixed loads'; img 'Cold starts: deploy to Ready and to first token per repeat'; table 'Cold
 *   start repeats') and 'Capacity' (table 'Capacity per alias at its observed peak'). Region 'Start a
 *   benchmark run': comboboxes 'Alias or deployment', 'Profile to run', 'Kinds'; textbox 'Cold start
 *   repeats'; button 'Start benchmark run'; status 'Benchmark run progress' ('Running: 0 of 1 kinds
 *   measured' … 'Succeeded: 1 of 1 kinds measured'); a refusal shows as an alert 'Could not start the run'.
 */
import { DatePipe, DecimalPipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  ErrorHandler,
  computed,
  effect,
  inject,
  signal,
  untracked,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatButton } from '@angular/material/button';
import { MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import { filter } from 'rxjs';

import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { type GraphqlRequestError, asRequestError } from '../../shared/graphql/graphql-error';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { REFRESH_INTERVAL_MS } from '../models/model-rules';
import { changesRegistry } from '../models/models-view';
import { TimeSeriesChart } from '../../shared/chart/time-series-chart';
import {
  METRIC_COLUMNS,
  START_KINDS,
  capacityRow,
  coldStartChart,
  coldStartSummary,
  gapChart,
  loadRow,
  metricCell,
  saturationChart,
  saturationSummary,
  runProgress,
  startPlan,
  stepRows,
  type StartKind,
} from './benchmark-rules';
import {
  BENCHMARK_CHOICES,
  BENCHMARK_COMPARISON,
  BENCHMARK_RUNS,
  CAPACITY_RECOMMENDATIONS,
  START_BENCHMARK_RUN,
  type Comparison,
} from './benchmarks.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

interface Selection {
  readonly profile: string;
  readonly versions: readonly string[];
  readonly baseline: string;
}

/**
 * Benchmark profiles side by side: pick a profile and the versions to
 * compare; each version's latest finished run on the profile is shown
 * against the baseline (the first version unless another is chosen), with
 * the figures that regressed beyond the API's thresholds flagged. Below:
 * benchmark runs (the saturation curve, long-stream gaps, mixed loads) and
 * each alias's capacity at its observed peak.
 */
@Component({
  selector: 'lnx-benchmarks',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    ProgressSlot,
    DatePipe,
    DecimalPipe,
    ReactiveFormsModule,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatButton,
    MatFormField,
    MatInput,
    MatHint,
    MatLabel,
    MatOption,
    MatSelect,
    ErrorPanel,
    Icon,
    LivePageHeader,
    TimeSeriesChart,
  ],
  templateUrl: './benchmarks.html',
  styleUrl: './benchmarks.scss',
})
export class Benchmarks {
  private readonly graphql = inject(GraphqlClient);
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly columns = METRIC_COLUMNS;
  protected readonly metricCell = metricCell;

  protected readonly choices = pollQuery(
    (signal) => this.graphql.request(BENCHMARK_CHOICES, {}, { flow: this.flow, signal }),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents).events(['audit']).pipe(filter(changesRegistry)),
    },
  );

  protected readonly profiles = computed(() =>
    [...(this.choices.value()?.benchmarkProfiles ?? [])].sort((a, b) => a.name.localeCompare(b.name)),
  );
  protected readonly versions = computed(() =>
    [...(this.choices.value()?.modelVersions ?? [])].sort((a, b) => a.ref.localeCompare(b.ref)),
  );

  private readonly fb = inject(NonNullableFormBuilder);
  protected readonly form = this.fb.group({
    profile: [''],
    versions: this.fb.control<readonly string[]>([]),
    /** '' lets the API take the first version. */
    baseline: [''],
  });

  private readonly selection = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });
  protected readonly chosen = computed((): Selection | undefined => {
    const value = this.selection();
    const profile = value.profile ?? '';
    const versions = value.versions ?? [];
    if (profile === '' || versions.length === 0) {
      return undefined;
    }
    const baseline = value.baseline ?? '';
    return { profile, versions, baseline: versions.includes(baseline) ? baseline : '' };
  });

  protected readonly comparison: PolledQuery<{
    readonly key: string;
    readonly comparison: Comparison;
  } | null> = pollQuery(
    (signal) => {
      const chosen = this.chosen();
      if (chosen === undefined) {
        return Promise.resolve(null);
      }
      return this.graphql
        .request(
          BENCHMARK_COMPARISON,
          {
            profile: chosen.profile,
            modelVersions: [...chosen.versions],
            baseline: chosen.baseline === '' ? null : chosen.baseline,
          },
          { flow: this.flow, signal },
        )
        .then((data) => ({ key: JSON.stringify(chosen), comparison: data.benchmarkComparison }));
    },
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit'])
        .pipe(filter((event) => event.dropped > 0 || (event.action ?? '').startsWith('evaluation.'))),
    },
  );

  /** Only the answer to the current selection. */
  protected readonly shown = computed(() => {
    const answer = this.comparison.value();
    const chosen = this.chosen();
    return answer !== null &&
      answer !== undefined &&
      chosen !== undefined &&
      answer.key === JSON.stringify(chosen)
      ? answer.comparison
      : undefined;
  });

  protected readonly profile = computed(() => this.profiles().find((p) => p.name === this.chosen()?.profile));

  // ---- benchmark runs and capacity ----

  protected readonly runs = pollQuery(
    (signal) => this.graphql.request(BENCHMARK_RUNS, {}, { flow: this.flow, signal }),
    {
      intervalMs: REFRESH_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit'])
        .pipe(filter((event) => event.dropped > 0 || (event.action ?? '').startsWith('benchmark.'))),
    },
  );
  protected readonly capacity = pollQuery(
    (signal) => this.graphql.request(CAPACITY_RECOMMENDATIONS, {}, { flow: this.flow, signal }),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  protected readonly runPick = this.fb.control('');
  private readonly runPicked = toSignal(this.runPick.valueChanges, { initialValue: '' });
  /** The chosen run, or the newest. */
  protected readonly run = computed(() => {
    const runs = this.runs.value()?.benchmarkRuns ?? [];
    return runs.find((r) => r.id === this.runPicked()) ?? runs[0];
  });
  protected readonly sweepChart = computed(() => {
    const run = this.run();
    return run === undefined ? null : saturationChart(run);
  });
  protected readonly sweepRows = computed(() => {
    const run = this.run();
    return run === undefined ? [] : stepRows(run);
  });
  protected readonly sweepSummary = computed(() => {
    const run = this.run();
    return run === undefined ? '' : saturationSummary(run);
  });
  protected readonly gaps = computed(() => {
    const stream = this.run()?.longStream;
    return stream ? gapChart(stream) : null;
  });
  protected readonly otherRows = computed(() => {
    const run = this.run();
    const rows = [];
    if (run?.longStream) {
      rows.push(loadRow('Long stream', run.longStream));
    }
    if (run?.mixed) {
      rows.push(loadRow('Mixed: short', run.mixed.short), loadRow('Mixed: long', run.mixed.long));
    }
    return rows;
  });
  protected readonly coldChart = computed(() => {
    const cold = this.run()?.coldStart;
    return cold ? coldStartChart(cold) : null;
  });
  protected readonly coldSummary = computed(() => {
    const run = this.run();
    return run === undefined ? '' : coldStartSummary(run);
  });

  // ---- starting a run ----

  protected readonly startKinds = START_KINDS;
  private readonly errorHandler = inject(ErrorHandler);
  protected readonly startForm = this.fb.group({
    /** 'alias:<name>' or 'deployment:<id>'. */
    target: [''],
    profile: [''],
    kinds: this.fb.control<StartKind[]>(['saturation']),
    repeats: [3],
  });
  /** Aliases that route somewhere (to the deployment they route to), then every deployment. */
  protected readonly targets = computed(() => {
    const aliases = (this.capacity.value()?.capacityRecommendations ?? [])
      .filter((rec) => rec.deploymentId !== null)
      .map((rec) => ({ value: `alias:${rec.alias}`, label: `alias ${rec.alias}` }));
    const deployments = [...(this.choices.value()?.deployments ?? [])]
      .filter((d) => d.state !== 'Stopped' && d.state !== 'Failed' && !d.name.startsWith('cold-start-'))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((d) => ({ value: `deployment:${d.id}`, label: `deployment ${d.name} (${d.modelRef})` }));
    return [...aliases, ...deployments];
  });
  protected readonly starting = signal(false);
  protected readonly startError = signal<GraphqlRequestError | undefined>(undefined);
  /** The run this page started, followed until it ends. */
  protected readonly startedRunId = signal<string | undefined>(undefined);
  protected readonly startedRun = computed(() =>
    (this.runs.value()?.benchmarkRuns ?? []).find((r) => r.id === this.startedRunId()),
  );
  protected readonly progress = computed(() => {
    const run = this.startedRun();
    return run === undefined ? 'Starting…' : runProgress(run);
  });

  protected readonly capacityRows = computed(() =>
    (this.capacity.value()?.capacityRecommendations ?? []).map(capacityRow),
  );

  constructor() {
    // The picker shows the run on display: the newest until another is chosen.
    effect(() => {
      const newest = this.runs.value()?.benchmarkRuns[0]?.id;
      if (newest !== undefined && untracked(() => this.runPick.value) === '') {
        untracked(() => this.runPick.setValue(newest));
      }
    });
    let previous: string | undefined;
    effect(() => {
      const key = JSON.stringify(this.chosen() ?? null);
      if (previous !== undefined && previous !== key) {
        untracked(() => this.comparison.refresh());
      }
      previous = key;
    });
  }

  protected startRun(): void {
    if (this.starting()) {
      return;
    }
    const value = this.startForm.getRawValue();
    const [kind, ...rest] = value.target.split(':');
    const name = rest.join(':');
    const deployment =
      kind === 'alias'
        ? (this.capacity.value()?.capacityRecommendations.find((rec) => rec.alias === name)?.deploymentId ??
          '')
        : name;
    this.starting.set(true);
    this.startError.set(undefined);
    this.graphql
      .request(
        START_BENCHMARK_RUN,
        {
          input: {
            deployment,
            profile: value.profile,
            ...startPlan(value.kinds, Number(value.repeats)),
          },
        },
        { flow: this.flow },
      )
      .then(
        (data) => {
          const runId = data.startBenchmarkRun.runId;
          this.startedRunId.set(runId);
          this.runPick.setValue(runId);
          this.runs.refresh();
        },
        (failure: unknown) => this.startError.set(asRequestError(failure, this.errorHandler)),
      )
      .finally(() => this.starting.set(false));
  }

  protected refresh(): void {
    this.choices.refresh();
    this.comparison.refresh();
    this.runs.refresh();
    this.capacity.refresh();
  }
}
