import {
  renewNodeLease,
  renewNodeLeases,
  type HeartbeatAckNode,
  type LeaseRenewal,
  type Queryable,
} from '@lunanexa/persistence';

/** Most renewals one statement carries: keeps a statement's parameters and lock set small. */
export const MAX_RENEWALS_PER_BATCH = 250;

/**
 * Statements in flight at once. With one, a heartbeat that arrives just
 * after a batch started waits for that batch's round trip and commit and
 * then for its own (two WAL flushes); with two, the next batch is already
 * on its way while the first flushes, and PostgreSQL can flush both commits
 * together. Two batches never hold the same node (see flush), so they touch
 * disjoint nodes and assignments rows and cannot deadlock each other.
 */
export const MAX_BATCHES_IN_FLIGHT = 2;

interface Waiting {
  readonly renewal: LeaseRenewal;
  readonly resolve: (node: HeartbeatAckNode | null) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the common heartbeat (persistence renewNodeLeases): the
 * renewals that arrive while batches are being written go together in the
 * next statement, so at fleet scale a heartbeat costs a share of one round
 * trip and one commit rather than its own. Nothing waits for a timer: with
 * a statement slot free (MAX_BATCHES_IN_FLIGHT) a renewal is written at once
 * (alone, or with the ones that arrived in the same turn of the event loop).
 * Each caller's promise settles only after its statement committed, so an
 * ack never precedes the write. A node's next renewal waits until its
 * previous one's statement finished (the sequence check needs it). A batch
 * that fails as a whole (a deadlock with another api replica's batch, say)
 * is retried one renewal at a time, so one bad row fails only its own
 * heartbeat.
 */
export class LeaseRenewalBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  /** Nodes with a renewal in a statement not yet finished. */
  private readonly nodesInFlight = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly db: Queryable,
    /** Deployments whose replicas reported something new, once committed. */
    private readonly onChanged: (workflowIds: readonly string[]) => void,
  ) {}

  renew(renewal: LeaseRenewal): Promise<HeartbeatAckNode | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ renewal, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inFlight >= MAX_BATCHES_IN_FLIGHT || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < MAX_BATCHES_IN_FLIGHT && this.queue.length > 0) {
      // One renewal per node per statement, and none of a node whose previous renewal is still being written.
      const batch: Waiting[] = [];
      const rest: Waiting[] = [];
      const nodes = new Set<string>();
      for (const waiting of this.queue) {
        const { nodeId } = waiting.renewal;
        if (batch.length < MAX_RENEWALS_PER_BATCH && !nodes.has(nodeId) && !this.nodesInFlight.has(nodeId)) {
          nodes.add(nodeId);
          batch.push(waiting);
        } else rest.push(waiting);
      }
      this.queue = rest;
      if (batch.length === 0) return; // only nodes already in flight: their statement's end schedules them
      this.inFlight++;
      for (const nodeId of nodes) this.nodesInFlight.add(nodeId);
      void this.write(batch).finally(() => {
        this.inFlight--;
        for (const nodeId of nodes) this.nodesInFlight.delete(nodeId);
        this.schedule();
      });
    }
  }

  private async write(batch: readonly Waiting[]): Promise<void> {
    try {
      const result = await renewNodeLeases(
        this.db,
        batch.map((w) => w.renewal),
      );
      batch.forEach((w, i) => w.resolve(result.nodes[i] ?? null));
      if (result.changedDeploymentWorkflowIds.length > 0) this.onChanged(result.changedDeploymentWorkflowIds);
    } catch {
      await Promise.all(
        batch.map(async (w) => {
          try {
            const renewed = await renewNodeLease(this.db, w.renewal);
            w.resolve(renewed);
            if (renewed && renewed.changedDeploymentWorkflowIds.length > 0)
              this.onChanged(renewed.changedDeploymentWorkflowIds);
          } catch (error) {
            w.reject(error);
          }
        }),
      );
    }
  }
}
