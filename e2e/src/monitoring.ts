import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { REPO_ROOT } from './stack-process';

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects: identifiers that are not
 * functions, keywords, label names (inside {} or by/without/on/ignoring lists),
 * strings, range durations or Grafana variables.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\$\{?\w+\}?/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const rest = stripped.slice((match.index ?? 0) + match[0].length);
    if (/^\s*\(/.test(rest) || PROMQL_KEYWORDS.has(match[0].toLowerCase())) continue;
    names.add(match[0]);
  }
  return [...names];
}

export interface MonitoringExpression {
  /** Where it is: `infra/prometheus/alerts.yml LunaNexaNodeUnreachable`, a dashboard panel's title. */
  readonly source: string;
  readonly expr: string;
}

/** Every PromQL expression of the alert rules and the Grafana dashboards in infra/. */
export function monitoringExpressions(): MonitoringExpression[] {
  const infra = join(REPO_ROOT, 'infra');
  const expressions: MonitoringExpression[] = [];
  const alerts = parseDocument(readFileSync(join(infra, 'prometheus', 'alerts.yml'), 'utf8')).toJS() as {
    groups: { rules: { alert?: string; record?: string; expr: string }[] }[];
  };
  for (const group of alerts.groups) {
    for (const rule of group.rules) {
      expressions.push({
        source: `infra/prometheus/alerts.yml ${rule.alert ?? rule.record ?? ''}`,
        expr: rule.expr,
      });
    }
  }
  const dashboards = join(infra, 'grafana', 'dashboards');
  for (const file of readdirSync(dashboards).filter((f) => f.endsWith('.json'))) {
    const dashboard = JSON.parse(readFileSync(join(dashboards, file), 'utf8')) as {
      panels?: { title?: string; targets?: { expr?: string }[] }[];
    };
    for (const panel of dashboard.panels ?? []) {
      for (const target of panel.targets ?? []) {
        if (target.expr) expressions.push({ source: `${file} "${panel.title ?? ''}"`, expr: target.expr });
      }
    }
  }
  return expressions;
}

/** Series Prometheus makes itself rather than scraping them. */
export const PROMETHEUS_OWN_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

/**
 * The series names one `/metrics` answer exports: every sample's name, and for
 * each declared histogram or summary its `_bucket`, `_sum` and `_count` series
 * even before the first observation.
 */
export function exportedSeries(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name);
      if (kind === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
      if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

/** The value of one sample (`name{a="b"}`, labels in the exposition's order), or undefined. */
export function sampleValue(exposition: string, series: string): number | undefined {
  for (const line of exposition.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1).split(' ')[0]);
  }
  return undefined;
}
