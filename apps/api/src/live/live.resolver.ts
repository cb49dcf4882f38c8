import { Args, Resolver, Subscription } from '@nestjs/graphql';
import type { LiveNotice } from '@lunanexa/persistence';
import { RequirePermission } from '../auth';
import { LiveEventsService, type LiveDelivery } from './live-events.service';
import { LiveEvent } from './live.types';

function toLiveEvent({ notice, dropped }: LiveDelivery): LiveEvent {
  if (notice.kind === 'node') {
    return {
      kind: 'node',
      seq: null,
      action: null,
      actor: null,
      decision: null,
      correlationId: null,
      workflowId: null,
      subject: notice.nodeId,
      nodeId: notice.nodeId,
      occurredAt: notice.occurredAt,
      dropped,
    };
  }
  return {
    kind: 'audit',
    seq: notice.seq,
    action: notice.action,
    actor: notice.actor,
    decision: notice.decision,
    correlationId: notice.correlationId,
    workflowId: notice.workflowId,
    subject: notice.subject,
    nodeId: null,
    occurredAt: notice.occurredAt,
    dropped,
  };
}

/** Live updates over graphql-ws (`/graphql`, protocol graphql-transport-ws). Viewers may listen. */
@Resolver()
export class LiveResolver {
  constructor(private readonly live: LiveEventsService) {}

  @RequirePermission('read')
  @Subscription(() => LiveEvent, {
    description:
      'Committed changes as they happen: audit events and node heartbeats. Filter with `kinds` (audit, node).',
    resolve: (value: LiveEvent) => value,
  })
  fleetEvents(
    @Args('kinds', { type: () => [String], nullable: true }) kinds: string[] | null,
  ): AsyncIterableIterator<LiveEvent> {
    const wanted = new Set(kinds ?? ['audit', 'node']);
    const source = this.live.subscribe((notice: LiveNotice) => wanted.has(notice.kind));
    const mapped: AsyncIterableIterator<LiveEvent> = {
      [Symbol.asyncIterator]() {
        return mapped;
      },
      async next() {
        const next = await source.next();
        return next.done ? { value: undefined, done: true } : { value: toLiveEvent(next.value), done: false };
      },
      async return() {
        await source.return?.();
        return { value: undefined, done: true };
      },
    };
    return mapped;
  }
}
