import { MAX_REFUSALS_PER_HEARTBEAT, type AgentRefusal } from '@lunanexa/agent-protocol';
import { ErrorCode } from '@lunanexa/contracts';
import type { SshRefusal } from '../ssh/refusals';

/** Refusals held while the controller is away; beyond this the oldest are dropped (and counted). */
export const DEFAULT_REFUSAL_QUEUE_CAPACITY = 1024;

/**
 * Everything the agent refused since the controller last confirmed it
 * recorded them, oldest first. A heartbeat carries the first
 * MAX_REFUSALS_PER_HEARTBEAT; its ack says how many were recorded, and that
 * many leave the front of the queue — so a lost heartbeat loses nothing.
 */
export class RefusalQueue {
  private readonly items: AgentRefusal[] = [];
  private droppedCount = 0;

  constructor(private readonly capacity = DEFAULT_REFUSAL_QUEUE_CAPACITY) {}

  push(refusal: AgentRefusal): void {
    this.items.push(refusal);
    if (this.items.length > this.capacity) {
      this.droppedCount += this.items.length - this.capacity;
      this.items.splice(0, this.items.length - this.capacity);
    }
  }

  /** The next batch for a heartbeat (not removed until acknowledged). */
  batch(): AgentRefusal[] {
    return this.items.slice(0, MAX_REFUSALS_PER_HEARTBEAT);
  }

  /** Removes the first `count` (what the controller said it recorded), at most `sent`. */
  acknowledge(count: number, sent: number): void {
    this.items.splice(0, Math.max(0, Math.min(count, sent, this.items.length)));
  }

  get size(): number {
    return this.items.length;
  }

  /** Refusals lost to the capacity bound since start. */
  get dropped(): number {
    return this.droppedCount;
  }
}

/** An SSH refusal as the heartbeat reports it: authentication failures are UNAUTHENTICATED, the rest FORBIDDEN. */
export function refusalFromSsh(refusal: SshRefusal): AgentRefusal {
  return {
    at: refusal.at,
    kind: `ssh:${refusal.request}`,
    code: refusal.request.startsWith('auth-') ? ErrorCode.UNAUTHENTICATED : ErrorCode.FORBIDDEN,
    remoteAddress: refusal.remoteAddress.slice(0, 64),
    keyId: refusal.keyId,
    envelopeId: null,
    assignmentId: null,
    generation: null,
    detail: refusal.detail,
  };
}
