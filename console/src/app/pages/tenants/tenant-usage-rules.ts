import type { TenantUsageReport } from './tenants.queries';

/** One line of a usage chart (the shape the console's time-series chart takes; kept here so Node specs compile it). */
export interface UsageSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly unit: string;
  readonly color: string;
  readonly line?: 'solid' | 'dashed' | 'dotted';
  readonly whole?: boolean;
}

/** The usage window the tenant page shows: the last hour in one-minute buckets. */
export const USAGE_WINDOW_MINUTES = 60;
export const USAGE_BUCKET_SECONDS = 60;

export interface TenantUsageView {
  readonly x: readonly number[];
  /** Requests, errors and 429s per bucket (counts, not rates: a tenant's traffic is often sparse). */
  readonly calls: readonly UsageSeries[];
  readonly tokens: readonly UsageSeries[];
  readonly totals: TenantUsageReport['totals'];
  readonly topModels: readonly {
    readonly requestedModel: string;
    readonly requests: number;
    readonly errors: number;
  }[];
  readonly empty: boolean;
}

/** One tenant's usage over the window, as the tenant page draws it. */
export function tenantUsageView(report: TenantUsageReport, tenantId: string): TenantUsageView {
  const { buckets } = report;
  return {
    x: buckets.map((bucket) => Date.parse(bucket.start)),
    calls: [
      {
        label: 'Requests',
        unit: 'requests',
        whole: true,
        color: 'var(--mat-sys-primary)',
        values: buckets.map((b) => b.requests),
      },
      {
        label: 'Errors',
        unit: 'requests',
        whole: true,
        color: 'var(--mat-sys-error)',
        line: 'dashed',
        values: buckets.map((b) => b.errors),
      },
      {
        label: 'Refused 429',
        unit: 'requests',
        whole: true,
        color: 'var(--mat-sys-tertiary)',
        line: 'dotted',
        values: buckets.map((b) => b.rateLimited),
      },
    ],
    tokens: [
      {
        label: 'Prompt tokens',
        unit: 'tokens',
        whole: true,
        color: 'var(--mat-sys-secondary)',
        values: buckets.map((b) => b.promptTokens),
      },
      {
        label: 'Completion tokens',
        unit: 'tokens',
        whole: true,
        color: 'var(--mat-sys-primary)',
        line: 'dashed',
        values: buckets.map((b) => b.completionTokens),
      },
    ],
    totals: report.totals,
    topModels: report.tenants.find((tenant) => tenant.tenantId === tenantId)?.topModels ?? [],
    empty: report.totals.requests === 0,
  };
}
