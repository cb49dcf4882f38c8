import { hostname } from 'node:os';
import type { Logger } from '@lunanexa/observability';
import { publishGatewayLoad, queryableOf } from '@lunanexa/persistence';
import { Pool } from 'pg';
import type { AdmissionController } from './admission';

export const LOAD_PUBLISH_MS = 2_000;

/**
 * Publishes this gateway's admission state (requests running and waiting
 * per replica group) to `gateway_load` every couple of seconds, where the
 * API reads the queue depth the console shows. Telemetry, not state: a
 * failed write is retried on the next tick and never slows a request.
 */
export class GatewayLoadPublisher {
  private readonly pool: Pool;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly options: {
      readonly databaseUrl: string;
      readonly logger: Logger;
      readonly admission: AdmissionController;
      /** Names this gateway's rows; defaults to host and port. */
      readonly gatewayId: string;
    },
  ) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: 1,
      application_name: 'lunanexa-gateway-load',
      connectionTimeoutMillis: 5000,
      statement_timeout: 5000,
    });
    this.pool.on('error', (error) => options.logger.warn({ err: error }, 'gateway load connection error'));
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.publish());
    }, LOAD_PUBLISH_MS);
    this.timer.unref();
  }

  async publish(): Promise<void> {
    const rows = this.options.admission.snapshot().map((group) => ({
      groupKey: group.key,
      deploymentId: group.deploymentId,
      inFlight: group.inFlight,
      queued: group.queued,
      capacity: group.capacity,
    }));
    try {
      await publishGatewayLoad(queryableOf(this.pool), this.options.gatewayId, rows, new Date());
      if (this.failing) this.options.logger.info('gateway load published again');
      this.failing = false;
    } catch (error: unknown) {
      if (!this.failing) this.options.logger.warn({ err: error }, 'gateway load not published');
      this.failing = true;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    // Gone: publish nothing, so the console stops counting this gateway's queue at once.
    await publishGatewayLoad(queryableOf(this.pool), this.options.gatewayId, [], new Date()).catch(
      () => undefined,
    );
    await this.pool.end();
  }
}

export function defaultGatewayId(port: number): string {
  return `${hostname()}:${port}`;
}
