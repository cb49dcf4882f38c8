import { Inject, Injectable } from '@nestjs/common';
import type { Client } from '@temporalio/client';
import type { BuildInfo } from '@lunanexa/observability';
import { pingDatabase } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { API_CONFIG, BUILD_INFO, type ApiConfig } from '../config';
import { TEMPORAL_CLIENT } from '../infrastructure/infrastructure.module';
import type { DependencyCheck, Health } from './health.types';

const CHECK_TIMEOUT_MS = 3000;

/**
 * Runs one probe with a deadline. The probe gets an AbortSignal so calls that
 * support cancellation (Temporal gRPC) stop at the deadline instead of
 * retrying in the background after the check has already answered.
 */
async function timed(
  name: string,
  probe: (signal: AbortSignal) => Promise<unknown>,
): Promise<DependencyCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const pending = probe(AbortSignal.timeout(CHECK_TIMEOUT_MS));
  pending.catch(() => undefined);
  try {
    await Promise.race([
      pending,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return {
      name,
      status: 'ok',
      detail: null,
      latencyMs: Math.round((performance.now() - started) * 10) / 10,
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { name, status: 'failing', detail, latencyMs: null };
  } finally {
    clearTimeout(timer);
  }
}

@Injectable()
export class HealthService {
  constructor(
    private readonly db: DataSource,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(BUILD_INFO) private readonly build: BuildInfo,
  ) {}

  /** Readiness means both stores that hold accepted state answer right now. */
  async check(): Promise<Health> {
    const checks = await Promise.all([
      timed('postgresql', () => pingDatabase(this.db)),
      timed('temporal', (signal) =>
        this.temporal.withAbortSignal(signal, () =>
          this.temporal.workflowService.describeNamespace({ namespace: this.config.TEMPORAL_NAMESPACE }),
        ),
      ),
    ]);
    return {
      status: checks.every((c) => c.status === 'ok') ? 'ok' : 'degraded',
      version: this.build.version,
      commit: this.build.commit,
      checks,
    };
  }
}
