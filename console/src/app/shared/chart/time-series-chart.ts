import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  afterNextRender,
  afterRenderEffect,
  computed,
  inject,
  input,
  signal,
  viewChild,
} from '@angular/core';
import uPlot from 'uplot';

import {
  type ChartLine,
  type ChartUnit,
  DASH_PATTERNS,
  formatChartNumber,
  formatChartValue,
  latestValue,
} from './chart-format';

/** One line of a chart. */
export interface ChartSeries {
  /** Legend and screen-reader name: "Requests", "p95". */
  readonly label: string;
  /** One value per x; null is a gap (nothing measured then). */
  readonly values: readonly (number | null)[];
  /** Series with the same unit share a y axis; a chart draws axes for its first two units. */
  readonly unit: ChartUnit;
  /**
   * Any CSS colour. Use the theme's custom properties (`var(--mat-sys-primary)`)
   * so the chart follows the light and dark schemes like the rest of the page.
   */
  readonly color: string;
  /** Dashed or dotted lines keep series apart without colour vision. Default solid. */
  readonly line?: ChartLine;
  /** Joins the points across gaps: for samples not taken at every x of the chart. */
  readonly spanGaps?: boolean;
  /** Counts (requests in flight, replicas): the axis ticks only whole numbers. */
  readonly whole?: boolean;
}

interface LegendEntry {
  readonly label: string;
  readonly color: string;
  readonly line: ChartLine;
  readonly text: string;
}

let nextChartId = 0;

/** Room for the longest tick label at 12 px, plus the gap to the plot. */
function axisSize(_self: uPlot, values: readonly string[] | null): number {
  const longest = values?.reduce((max, value) => Math.max(max, value.length), 0) ?? 4;
  return Math.ceil(Math.max(longest, 3) * 7 + 16);
}

/** Indices of values no line reaches: between two gaps, or (across gaps) the only value there is. */
function isolatedPoints(values: uPlot.AlignedData[number], spanGaps: boolean): number[] {
  const present = (index: number): boolean => values[index] !== null && values[index] !== undefined;
  const indices: number[] = [];
  for (let index = 0; index < values.length; index++) {
    if (present(index)) {
      indices.push(index);
    }
  }
  if (spanGaps) {
    return indices.length === 1 ? indices : [];
  }
  return indices.filter((index) => !present(index - 1) && !present(index + 1));
}

/** Tick steps for counts: no 0.25 of a request. */
const WHOLE_INCREMENTS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000,
];

function scaleKey(unit: ChartUnit): string {
  return `y:${unit}`;
}

/** Rates, latencies and counts start at zero; a flat or empty series still gets a visible range. */
function zeroBasedRange(_self: uPlot, min: number, max: number): uPlot.Range.MinMax {
  const low = Number.isFinite(min) ? Math.min(0, min) : 0;
  const high = Number.isFinite(max) && max > 0 ? max * 1.1 : 1;
  return [low, high];
}

/**
 * A time series chart (uPlot, drawn on a canvas) that reads like the rest of
 * the console: theme colours from CSS custom properties, the width of its
 * container at any screen size, a legend with the latest values (or the
 * values under the pointer), and for assistive technology an accessible name
 * and a text summary of the latest value of each series. Knows nothing of
 * what it plots, so any view (traffic, benchmarks, rollouts) can use it.
 */
@Component({
  selector: 'lnx-time-series-chart',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe],
  templateUrl: './time-series-chart.html',
  styleUrl: './time-series-chart.scss',
})
export class TimeSeriesChart {
  /** The chart's accessible name: "Throughput and errors, last 15 minutes". */
  readonly label = input.required<string>();
  /** Times of the points, in milliseconds since the epoch, oldest first. */
  readonly x = input.required<readonly number[]>();
  readonly series = input.required<readonly ChartSeries[]>();
  /**
   * Null (default): x is epoch milliseconds on a time axis. Otherwise x is a plain number in this unit
   * ("concurrent" for a saturation sweep) on a linear axis.
   */
  readonly xUnit = input<string | null>(null);
  /**
   * Whether there is nothing to draw. By default: no points, or only gaps.
   * Set it where zeros mean "nothing happened" (no requests in the window).
   */
  readonly empty = input<boolean | undefined>(undefined);
  readonly emptyMessage = input('No data in this window');
  /** Height of the plot with its axes, in CSS pixels (the legend comes on top of it). */
  readonly height = input(200);

  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private readonly plotElement = viewChild.required<ElementRef<HTMLDivElement>>('plot');
  private readonly probe = viewChild.required<ElementRef<HTMLSpanElement>>('probe');

  protected readonly summaryId = `lnx-chart-summary-${nextChartId++}`;
  /** Width of the host, from a ResizeObserver; 0 until measured. */
  private readonly width = signal(0);
  /** Bumped when the colour scheme changes, so the plot is drawn again in the new colours. */
  private readonly theme = signal(0);
  /** The point under the pointer, if any. */
  protected readonly hoveredIndex = signal<number | null>(null);

  private plot: uPlot | undefined;
  /** What the plot was built for; data alone changes with setData, anything else rebuilds it. */
  private plotShape = '';

  protected readonly isEmpty = computed(
    () =>
      this.empty() ??
      (this.x().length === 0 || this.series().every((series) => latestValue(series.values) === null)),
  );

  protected readonly hoveredTime = computed(() => {
    const index = this.hoveredIndex();
    return index === null ? null : (this.x()[index] ?? null);
  });

  protected readonly legend = computed((): readonly LegendEntry[] => {
    const index = this.hoveredIndex();
    return this.series().map((series) => ({
      label: series.label,
      color: series.color,
      line: series.line ?? 'solid',
      text: formatChartValue(
        index === null ? latestValue(series.values) : (series.values[index] ?? null),
        series.unit,
      ),
    }));
  });

  /** What a screen reader hears for the plot: the latest value of each series. */
  protected readonly summary = computed(() => {
    const latest = this.series().map(
      (series) => `${series.label} ${formatChartValue(latestValue(series.values), series.unit)}`,
    );
    const unit = this.xUnit();
    const x = this.x();
    if (unit !== null && x.length > 0) {
      return `At ${formatChartNumber(x[x.length - 1])} ${unit}: ${latest.join('; ')}.`;
    }
    return `Latest: ${latest.join('; ')}.`;
  });

  constructor() {
    const destroyRef = inject(DestroyRef);

    afterNextRender(() => {
      const observer = new ResizeObserver((entries) => {
        const entry = entries[entries.length - 1];
        if (entry !== undefined) {
          this.width.set(Math.floor(entry.contentRect.width));
        }
      });
      observer.observe(this.host.nativeElement);

      const scheme = matchMedia('(prefers-color-scheme: dark)');
      const onSchemeChange = (): void => this.theme.update((count) => count + 1);
      scheme.addEventListener('change', onSchemeChange);

      destroyRef.onDestroy(() => {
        observer.disconnect();
        scheme.removeEventListener('change', onSchemeChange);
      });
    });

    afterRenderEffect(() => this.draw());

    destroyRef.onDestroy(() => this.destroyPlot());
  }

  private draw(): void {
    const width = this.width();
    const height = this.height();
    const x = this.x();
    const series = this.series();
    const theme = this.theme();
    const target = this.plotElement().nativeElement;
    if (this.isEmpty() || width <= 0) {
      this.destroyPlot();
      return;
    }

    const data: uPlot.AlignedData = [
      this.xUnit() === null ? x.map((ms) => ms / 1000) : [...x],
      ...series.map((line) => line.values.map((value) => value ?? null)),
    ];
    const shape = JSON.stringify([
      theme,
      height,
      this.xUnit(),
      series.map((line) => [line.label, line.unit, line.color, line.line, line.spanGaps, line.whole]),
    ]);
    if (this.plot !== undefined && shape === this.plotShape) {
      if (this.plot.width !== width) {
        this.plot.setSize({ width, height });
      }
      this.plot.setData(data);
      return;
    }
    this.destroyPlot();
    this.plot = new uPlot(this.options(series, width, height), data, target);
    this.plotShape = shape;
  }

  private options(series: readonly ChartSeries[], width: number, height: number): uPlot.Options {
    const axisColor = this.resolveColor('var(--mat-sys-on-surface-variant)');
    const gridColor = this.resolveColor('var(--mat-sys-outline-variant)');
    const font = `12px ${getComputedStyle(this.host.nativeElement).fontFamily}`;
    const units = [...new Set(series.map((line) => line.unit))];

    const xUnit = this.xUnit();
    const scales: uPlot.Scales = { x: { time: xUnit === null } };
    for (const unit of units) {
      scales[scaleKey(unit)] = { range: zeroBasedRange };
    }

    const yAxes = units.slice(0, 2).map((unit, index): uPlot.Axis => ({
      scale: scaleKey(unit),
      side: index === 0 ? 3 : 1,
      stroke: axisColor,
      font,
      size: axisSize,
      gap: 6,
      ticks: { show: false },
      // One grid is enough; a second axis's lines would not meet the first's.
      grid: { show: index === 0, stroke: gridColor, width: 1 },
      ...(series.every((line) => line.unit !== unit || line.whole === true)
        ? { incrs: WHOLE_INCREMENTS }
        : {}),
      values: (_self, splits) =>
        splits.map((value) => (unit === 'ms' ? formatChartValue(value, unit) : formatChartNumber(value))),
    }));

    return {
      width,
      height,
      scales,
      legend: { show: false },
      // The data refreshes under the pointer every few seconds; drag-to-zoom would only fight it.
      cursor: { drag: { x: false, y: false, setScale: false }, points: { size: 7 } },
      axes: [
        {
          stroke: axisColor,
          font,
          size: 36,
          grid: { stroke: gridColor, width: 1 },
          ticks: { stroke: gridColor, width: 1, size: 4 },
          ...(xUnit === null
            ? {}
            : {
                incrs: WHOLE_INCREMENTS,
                values: (_self: uPlot, splits: number[]) => splits.map(formatChartNumber),
              }),
        },
        ...yAxes,
      ],
      series: [
        {},
        ...series.map((line): uPlot.Series => {
          const stroke = this.resolveColor(line.color);
          const spanGaps = line.spanGaps ?? false;
          return {
            label: line.label,
            scale: scaleKey(line.unit),
            stroke,
            width: 2,
            dash: DASH_PATTERNS[line.line ?? 'solid'],
            spanGaps,
            // uPlot draws points where they are far enough apart; a value no line reaches always gets one.
            points: {
              size: 6,
              fill: stroke,
              filter: (self, index, shown) =>
                shown ? null : isolatedPoints(self.data[index] ?? [], spanGaps),
            },
          };
        }),
      ],
      hooks: {
        setCursor: [(self) => this.hoveredIndex.set(self.cursor.idx ?? null)],
      },
    };
  }

  /**
   * A canvas needs a concrete colour, not `var(…)` or `light-dark(…)`: the
   * browser resolves the value on a hidden element and reports it as rgb().
   */
  private resolveColor(css: string): string {
    const probe = this.probe().nativeElement;
    probe.style.color = '';
    probe.style.color = css;
    return getComputedStyle(probe).color || css;
  }

  private destroyPlot(): void {
    this.plot?.destroy();
    this.plot = undefined;
    this.plotShape = '';
    this.hoveredIndex.set(null);
  }
}
