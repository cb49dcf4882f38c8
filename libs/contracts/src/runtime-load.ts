import { z } from 'zod';
import { IsoTimestampSchema } from './common';

/**
 * Runtime load signals: how busy an inference server says it is, read from
 * its Prometheus `/metrics` page. Each server family names its gauges
 * differently; this module maps them onto one shape so the agent can report
 * it and the gateway can compare replicas without knowing which server runs
 * where. Pure: no I/O, usable by the agent, the api and the gateway.
 */

/** Which metric names a runtime's `/metrics` page uses; `none` for a runtime the agent should not scrape. */
export const METRICS_FORMATS = ['vllm', 'sglang', 'llamacpp', 'none'] as const;
export const MetricsFormatSchema = z.enum(METRICS_FORMATS);
export type MetricsFormat = z.infer<typeof MetricsFormatSchema>;

/** What the gateway and the heartbeat carry. Nulls mean "the runtime does not say", never zero. */
export const RuntimeLoadSchema = z
  .object({
    format: MetricsFormatSchema,
    /** Requests queued inside the runtime, not yet scheduled. */
    waiting: z.int().nonnegative().nullable(),
    /** Requests being decoded or prefilled right now. */
    running: z.int().nonnegative().nullable(),
    /** Share of the KV cache in use, 0..1; null for servers without a cache gauge (llama.cpp). */
    cachePressure: z.number().min(0).max(1).nullable(),
    scrapedAt: IsoTimestampSchema,
  })
  .strict();
export type RuntimeLoad = z.infer<typeof RuntimeLoadSchema>;

/** One sample line of the text exposition format. */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** May be NaN or ±Infinity: the format allows them and servers print them. */
  readonly value: number;
}

export interface PrometheusPage {
  readonly samples: readonly PrometheusSample[];
  /**
   * Lines that were neither comments nor valid samples. They are skipped, not
   * fatal: one exporter printing a bad line must not hide the gauges the
   * router needs; the count lets the caller log that the page was damaged.
   */
  readonly malformedLines: number;
}

const METRIC_NAME = /^[A-Za-z_:][A-Za-z0-9_:]*/;
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function parseValue(text: string): number | null {
  switch (text) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
    default:
      // Number('') is 0 and Number('0x10') is 16; the format allows neither.
      return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : null;
  }
}

/** Parses `{a="x",b="y\"z"}` from the start of `text`; returns the labels and what follows, or null. */
function parseLabels(text: string): { labels: Record<string, string>; rest: string } | null {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    while (text[i] === ' ') i += 1;
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const name = LABEL_NAME.exec(text.slice(i));
    if (name === null) return null;
    i += name[0].length;
    while (text[i] === ' ') i += 1;
    if (text[i] !== '=') return null;
    i += 1;
    while (text[i] === ' ') i += 1;
    if (text[i] !== '"') return null;
    i += 1;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) return null;
      if (c === '"') break;
      if (c === '\\') {
        const next = text[i + 1];
        if (next === undefined) return null;
        value += next === 'n' ? '\n' : next;
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    labels[name[0]] = value;
    i += 1;
    while (text[i] === ' ') i += 1;
    if (text[i] === ',') i += 1;
    else if (text[i] !== '}') return null;
  }
}

function parseSampleLine(line: string): PrometheusSample | null {
  const name = METRIC_NAME.exec(line);
  if (name === null) return null;
  let rest = line.slice(name[0].length);
  let labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    const parsed = parseLabels(rest);
    if (parsed === null) return null;
    labels = parsed.labels;
    rest = parsed.rest;
  }
  // Value, then an optional millisecond timestamp.
  const fields = rest.trim().split(/[ \t]+/);
  if (fields.length < 1 || fields.length > 2 || fields[0] === '') return null;
  if (fields.length === 2 && !/^-?\d+$/.test(fields[1] ?? '')) return null;
  const value = parseValue(fields[0] ?? '');
  if (value === null) return null;
  return { name: name[0], labels, value };
}

/** Every sample of a Prometheus text exposition page (version 0.0.4, also what OpenMetrics pages print for gauges). */
export function parsePrometheusText(text: string): PrometheusPage {
  const samples: PrometheusSample[] = [];
  let malformedLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseSampleLine(line);
    if (sample === null) malformedLines += 1;
    else samples.push(sample);
  }
  return { samples, malformedLines };
}

/** The gauges each format reports load with; the first cache name present wins (newer servers first). */
interface FormatGauges {
  readonly waiting: string | null;
  readonly running: string | null;
  readonly cache: readonly string[];
}

export const RUNTIME_LOAD_GAUGES: Readonly<Record<MetricsFormat, FormatGauges>> = {
  // vLLM V1 renamed gpu_cache_usage_perc to kv_cache_usage_perc; older servers still print the old name.
  vllm: {
    waiting: 'vllm:num_requests_waiting',
    running: 'vllm:num_requests_running',
    cache: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
  },
  sglang: {
    waiting: 'sglang:num_queue_reqs',
    running: 'sglang:num_running_reqs',
    cache: ['sglang:token_usage'],
  },
  // llama.cpp's server (with --metrics) has no cache gauge: its slots hold their own context.
  llamacpp: { waiting: 'llamacpp:requests_deferred', running: 'llamacpp:requests_processing', cache: [] },
  none: { waiting: null, running: null, cache: [] },
};

function finiteValues(samples: readonly PrometheusSample[], name: string): number[] {
  return samples.filter((s) => s.name === name && Number.isFinite(s.value)).map((s) => s.value);
}

/**
 * A request count summed over its series (vLLM prints one per engine when it
 * runs data-parallel, every server labels by model); null when no series has
 * a usable value. Negative counts cannot be true and are left out.
 */
function requestCount(samples: readonly PrometheusSample[], name: string | null): number | null {
  if (name === null) return null;
  const values = finiteValues(samples, name).filter((v) => v >= 0);
  return values.length === 0 ? null : Math.round(values.reduce((a, b) => a + b, 0));
}

/** Float noise may put a full cache a hair above 1; anything further out is not a fraction and is left out. */
const FRACTION_SLACK = 1e-6;

/**
 * Cache pressure is a fraction, so series are not summed: the fullest one
 * (one engine of a data-parallel server running out of cache is what makes
 * requests queue).
 */
function cachePressure(samples: readonly PrometheusSample[], names: readonly string[]): number | null {
  for (const name of names) {
    const values = finiteValues(samples, name).filter((v) => v >= 0 && v <= 1 + FRACTION_SLACK);
    if (values.length > 0) return Math.min(1, Math.max(...values));
  }
  return null;
}

/**
 * The load a runtime of `format` reports on its `/metrics` page. A gauge the
 * page does not carry (or carries only as NaN) is null, never zero: the
 * gateway must not take "does not say" for "idle".
 */
export function runtimeLoadFrom(page: PrometheusPage, format: MetricsFormat, scrapedAt: Date): RuntimeLoad {
  const gauges = RUNTIME_LOAD_GAUGES[format];
  return {
    format,
    waiting: requestCount(page.samples, gauges.waiting),
    running: requestCount(page.samples, gauges.running),
    cachePressure: cachePressure(page.samples, gauges.cache),
    scrapedAt: scrapedAt.toISOString(),
  };
}

/**
 * The format a page speaks, from its metric names (each family prefixes its
 * own: `vllm:`, `sglang:`, `llamacpp:`); `none` when it speaks none of them.
 * For a scraper that has not been told the runtime's format.
 */
export function detectMetricsFormat(page: PrometheusPage): MetricsFormat {
  for (const format of ['vllm', 'sglang', 'llamacpp'] as const) {
    if (page.samples.some((sample) => sample.name.startsWith(`${format}:`))) return format;
  }
  return 'none';
}

/** Parses a page and reads the load in one step. */
export function parseRuntimeLoad(text: string, format: MetricsFormat, scrapedAt: Date): RuntimeLoad {
  return runtimeLoadFrom(parsePrometheusText(text), format, scrapedAt);
}
