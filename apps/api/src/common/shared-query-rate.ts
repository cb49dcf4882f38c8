import type { OnApplicationShutdown } from '@nestjs/common';
import {
  queryRateCharge,
  queryRateDecision,
  type QueryRateDecision,
  type QueryRatePolicy,
} from '@lunanexa/domain';
import type { Logger } from '@lunanexa/observability';
import {
  pruneFullGraphQLRateBuckets,
  queryableOf,
  takeGraphQLRateBucket,
  type Queryable,
} from '@lunanexa/persistence';
import { Pool } from 'pg';
import { Counter, Histogram, type Registry } from 'prom-client';
import { QueryRateLimiter, type QueryRateLimit } from './query-budget';

/** After PostgreSQL missed a deadline, how long this process limits callers on its own before asking it again. */
export const SHARED_QUERY_RATE_RETRY_MS = 5_000;

export interface SharedQueryRateOptions {
  readonly policy: QueryRatePolicy;
  readonly databaseUrl: string;
  /** Connections of this process's own small pool (rate checks never queue behind the api's other queries). */
  readonly poolSize: number;
  /** How long a request waits for its take before this process's own buckets decide it. */
  readonly timeoutMs: number;
  /** How often this process deletes the buckets that are full again (0: never, for tests that count rows). */
  readonly pruneEveryMs: number;
  readonly logger: Logger;
  readonly registry?: Registry;
}

/**
 * Per-caller buckets of query cost in PostgreSQL (libs/persistence graphql-rate-buckets.ts), so a caller spread
 * over several api processes spends one allowance: each request is one upsert on the database's clock, through a
 * pool of its own.
 *
 * Fail-safe: when the take does not answer within `timeoutMs` (or fails), the request is decided by this
 * process's own in-memory buckets (QueryRateLimiter, the same policy), and so is every request for the next
 * SHARED_QUERY_RATE_RETRY_MS, after which the database is asked again. The limit therefore never lapses: while
 * PostgreSQL is slow or away, each api process enforces the budget by itself (a caller spread over N processes
 * gets up to N allowances for that time), and the shared budget applies again as soon as PostgreSQL answers.
 * Each switch to local buckets is logged and counted (`lunanexa_api_graphql_rate_local_fallbacks_total`).
 */
export class SharedQueryRateLimiter implements QueryRateLimit, OnApplicationShutdown {
  private readonly pool: Pool;
  private readonly db: Queryable;
  private readonly local: QueryRateLimiter;
  private localUntilMs = Number.NEGATIVE_INFINITY;
  private readonly pruneTimer: NodeJS.Timeout | undefined;
  private readonly fallbacks: Counter;
  private readonly takeSeconds: Histogram;

  constructor(
    private readonly options: SharedQueryRateOptions,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      application_name: 'lunanexa-api-query-rate',
      max: options.poolSize,
      connectionTimeoutMillis: Math.max(1_000, options.timeoutMs),
      // A take the request stopped waiting for still ends soon, and frees its connection.
      statement_timeout: Math.max(1_000, 4 * options.timeoutMs),
    });
    this.pool.on('error', (error) => options.logger.warn({ err: error }, 'query-rate connection error'));
    this.db = queryableOf(this.pool);
    this.local = new QueryRateLimiter(options.policy, 10_000, nowMs);
    const registers = options.registry ? [options.registry] : [];
    this.fallbacks = new Counter({
      name: 'lunanexa_api_graphql_rate_local_fallbacks_total',
      help: 'Times PostgreSQL missed the GraphQL rate check deadline and this process limited callers on its own for a while.',
      registers,
    });
    this.takeSeconds = new Histogram({
      name: 'lunanexa_api_graphql_rate_take_seconds',
      help: 'Time to take a GraphQL operation’s cost from its caller’s shared bucket in PostgreSQL.',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    });
    if (options.pruneEveryMs > 0) {
      this.pruneTimer = setInterval(() => void this.prune(), options.pruneEveryMs);
      this.pruneTimer.unref();
    }
  }

  async take(caller: string, cost: number): Promise<QueryRateDecision> {
    const now = this.nowMs();
    if (now < this.localUntilMs) return this.local.takeNow(caller, cost, now);
    const charge = queryRateCharge(cost, this.options.policy);
    const started = process.hrtime.bigint();
    let timer: NodeJS.Timeout | undefined;
    try {
      const take = await Promise.race([
        takeGraphQLRateBucket(this.db, caller, charge),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.options.timeoutMs} ms`)),
            this.options.timeoutMs,
          );
        }),
      ]);
      this.takeSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
      return queryRateDecision(take, charge);
    } catch (error) {
      if (this.nowMs() >= this.localUntilMs) {
        this.localUntilMs = this.nowMs() + SHARED_QUERY_RATE_RETRY_MS;
        this.fallbacks.inc();
        this.options.logger.warn(
          { err: error, localForMs: SHARED_QUERY_RATE_RETRY_MS },
          'GraphQL rate check: PostgreSQL did not answer in time; this process limits callers on its own for now',
        );
      }
      return this.local.takeNow(caller, cost, this.nowMs());
    } finally {
      clearTimeout(timer);
    }
  }

  /** Deletes the buckets that are full again; a failure is logged and the next round tries again. */
  async prune(): Promise<number> {
    try {
      return await pruneFullGraphQLRateBuckets(this.db);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'pruning full GraphQL rate buckets failed');
      return 0;
    }
  }

  /** Whether requests are being decided by this process's own buckets (PostgreSQL missed a deadline lately). */
  get limitingLocally(): boolean {
    return this.nowMs() < this.localUntilMs;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.pool.end();
  }
}
