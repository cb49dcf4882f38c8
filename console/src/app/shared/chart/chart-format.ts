import { formatDuration } from '../format/duration';

/** The unit a series is measured in; series that share one share a y axis. `ms` reads as a duration. */
export type ChartUnit = string;

/** How a series is drawn, so series tell apart without colour too. */
export type ChartLine = 'solid' | 'dashed' | 'dotted';

/** uPlot dash patterns (CSS px) for each line style. */
export const DASH_PATTERNS: Readonly<Record<ChartLine, number[]>> = {
  solid: [],
  dashed: [8, 5],
  dotted: [2, 4],
};

const WHOLE = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const TWO_PLACES = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const SMALL = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 2 });

/** A number as an axis or a legend shows it: "1,234", "12.5", "0.033"; "—" when there is none. */
export function formatChartNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return '—';
  }
  const magnitude = Math.abs(value);
  if (magnitude >= 100) {
    return WHOLE.format(value);
  }
  return magnitude >= 1 || magnitude === 0 ? TWO_PLACES.format(value) : SMALL.format(value);
}

/** A value with its unit: "2.5 req/s", "340 ms", "1.3 s"; "—" when there is none. */
export function formatChartValue(value: number | null | undefined, unit: ChartUnit): string {
  if (unit === 'ms') {
    return formatDuration(value);
  }
  const number = formatChartNumber(value);
  return number === '—' || unit === '' ? number : `${number} ${unit}`;
}

/** The newest value that is not a gap: what a series reads "now". */
export function latestValue(values: readonly (number | null)[]): number | null {
  for (let index = values.length - 1; index >= 0; index--) {
    const value = values[index];
    if (value !== null && value !== undefined && Number.isFinite(value)) {
      return value;
    }
  }
  return null;
}
