import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@lunanexa/observability';
import { notifyNodesChanged } from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { API_LOGGER } from '../config';
import { HEARTBEAT_DB } from '../infrastructure/infrastructure.module';

/** How long accepted heartbeats gather before one NOTIFY announces them all. */
export const NODE_ANNOUNCE_INTERVAL_MS = 250;

/**
 * Tells live subscribers (every api process, through LISTEN) which nodes'
 * heartbeats committed, a few times a second instead of once per heartbeat:
 * PostgreSQL serialises the commits of NOTIFYing transactions on one
 * cluster-wide lock, and a NOTIFY inside each heartbeat's transaction made
 * every lease renewal wait for the others' WAL flushes. A notice lost to a
 * crash costs a live view one refresh, never state: the heartbeat itself is
 * committed before it is announced.
 */
@Injectable()
export class NodeChangeAnnouncer implements OnApplicationShutdown {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(HEARTBEAT_DB) private readonly db: DataSource,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  /** A heartbeat of this node committed. */
  changed(nodeId: string): void {
    this.pending.add(nodeId);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), NODE_ANNOUNCE_INTERVAL_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const nodeIds = [...this.pending];
    this.pending.clear();
    try {
      await notifyNodesChanged(this.db, nodeIds, new Date());
    } catch (error) {
      this.logger.warn(
        { err: error, nodes: nodeIds.length },
        'live node notices not sent; views refresh later',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
