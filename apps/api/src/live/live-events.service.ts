import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  LIVE_EVENTS_CHANNEL,
  listenTo,
  type LiveNotice,
  type LiveNoticePayload,
} from '@lunanexa/persistence';
import type { Logger } from '@lunanexa/observability';
import { Client } from 'pg';
import { API_CONFIG, API_LOGGER, type ApiConfig } from '../config';

/** Notices one slow subscriber may have queued before the oldest are dropped (it is told how many). */
const MAX_QUEUED = 256;
const RECONNECT_MAX_MS = 10_000;

export interface LiveDelivery {
  readonly notice: LiveNotice;
  /** Notices this subscriber missed before this one because it read too slowly (or a reconnect gap). */
  readonly dropped: number;
}

interface Subscriber {
  readonly accepts: (notice: LiveNotice) => boolean;
  readonly queue: LiveDelivery[];
  dropped: number;
  wake: (() => void) | null;
  closed: boolean;
}

/**
 * Live updates for GraphQL subscriptions, from PostgreSQL LISTEN/NOTIFY on
 * `lunanexa_events`: the audit chain notifies at commit (its trigger), and
 * heartbeat ingest announces committed heartbeats in batches a few times a
 * second (NodeChangeAnnouncer), so subscribers hear only about committed
 * changes, from every api and worker process alike. One connection per api
 * process; it reconnects with backoff, and subscribers are told (`dropped`)
 * when they may have missed something and should re-read.
 */
@Injectable()
export class LiveEventsService implements OnModuleInit, OnApplicationShutdown {
  private client: Client | null = null;
  private readonly subscribers = new Set<Subscriber>();
  private stopping = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    void this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    for (const subscriber of this.subscribers) this.close(subscriber);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopping) return;
    const client = new Client({
      connectionString: this.config.DATABASE_URL,
      application_name: 'lunanexa-api-live',
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'live events connection lost; reconnecting');
      this.reconnect(client);
    });
    client.on('notification', (message) => {
      if (message.channel !== LIVE_EVENTS_CHANNEL || !message.payload) return;
      try {
        const notice = JSON.parse(message.payload) as LiveNoticePayload;
        if (notice.kind === 'nodes') {
          for (const nodeId of notice.nodeIds)
            this.publish({ kind: 'node', nodeId, occurredAt: notice.occurredAt });
        } else this.publish(notice);
      } catch (error) {
        this.logger.warn({ err: error }, 'unreadable live notice ignored');
      }
    });
    try {
      await client.connect();
      await listenTo(client, LIVE_EVENTS_CHANNEL);
      this.client = client;
      this.retryMs = 250;
    } catch (error) {
      this.logger.warn({ err: error }, 'live events: cannot listen yet; retrying');
      this.reconnect(client);
    }
  }

  private reconnect(client: Client): void {
    if (this.client === client) this.client = null;
    void client.end().catch(() => undefined);
    if (this.stopping) return;
    // Whatever was notified while we were away is gone: every subscriber should re-read.
    for (const subscriber of this.subscribers) subscriber.dropped += 1;
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }

  private publish(notice: LiveNotice): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.closed || !subscriber.accepts(notice)) continue;
      if (subscriber.queue.length >= MAX_QUEUED) {
        subscriber.queue.shift();
        subscriber.dropped += 1;
      }
      subscriber.queue.push({ notice, dropped: 0 });
      subscriber.wake?.();
    }
  }

  private close(subscriber: Subscriber): void {
    subscriber.closed = true;
    this.subscribers.delete(subscriber);
    subscriber.wake?.();
  }

  /** An async iterator of notices the filter accepts, ending when the client unsubscribes. */
  subscribe(accepts: (notice: LiveNotice) => boolean): AsyncIterableIterator<LiveDelivery> {
    const subscriber: Subscriber = { accepts, queue: [], dropped: 0, wake: null, closed: false };
    this.subscribers.add(subscriber);
    const close = (): void => this.close(subscriber);
    const iterator: AsyncIterableIterator<LiveDelivery> = {
      [Symbol.asyncIterator]() {
        return iterator;
      },
      async next(): Promise<IteratorResult<LiveDelivery>> {
        for (;;) {
          const next = subscriber.queue.shift();
          if (next) {
            const delivery = { notice: next.notice, dropped: subscriber.dropped };
            subscriber.dropped = 0;
            return { value: delivery, done: false };
          }
          if (subscriber.closed) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (subscriber.wake = resolve));
          subscriber.wake = null;
        }
      },
      return(): Promise<IteratorResult<LiveDelivery>> {
        close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
    return iterator;
  }

  /** Subscribers currently open (for tests and metrics). */
  get subscriberCount(): number {
    return this.subscribers.size;
  }
}
