import {
  renewNodeLease,
  renewNodeLeases,
  type HeartbeatAckNode,
  type LeaseRenewal,
  type Queryable,
} from '@lunanexa/persistence';

/** Most renewals one statement carries: keeps a statement's parameters and lock set small. */
export const MAX_RENEWALS_PER_BATCH = 250;

interface Waiting {
  readonly renewal: LeaseRenewal;
  readonly resolve: (node: HeartbeatAckNode | null) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the common heartbeat (persistence renewNodeLeases): the
 * renewals that arrive while one batch is being written go together in the
 * next statement, so at fleet scale a heartbeat costs a share of one round
 * trip and one commit rather than its own. Nothing waits for a timer: with
 * no batch in flight a renewal is written at once (alone, or with the ones
 * that arrived in the same turn of the event loop). Each caller's promise
 * settles only after its statement committed, so an ack never precedes the
 * write. A batch that fails as a whole (a deadlock with another api
 * replica's batch, say) is retried one renewal at a time, so one bad row
 * fails only its own heartbeat. The statement is planned again each time
 * the fleet this process has renewed doubles (renewNodeLeasesStatement), so
 * a plan made for the first few nodes does not scan a thousand.
 */
export class LeaseRenewalBatcher {
  private queue: Waiting[] = [];
  /** Every node this process has renewed: how big the fleet is, as far as the statement's plan cares. */
  private readonly nodesRenewed = new Set<string>();
  private flushing = false;
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
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        // One renewal per node per statement; a node's second waits for the next (its sequence check needs the first).
        const batch: Waiting[] = [];
        const rest: Waiting[] = [];
        const nodes = new Set<string>();
        for (const waiting of this.queue) {
          if (batch.length < MAX_RENEWALS_PER_BATCH && !nodes.has(waiting.renewal.nodeId)) {
            nodes.add(waiting.renewal.nodeId);
            batch.push(waiting);
          } else rest.push(waiting);
        }
        this.queue = rest;
        await this.write(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: readonly Waiting[]): Promise<void> {
    for (const w of batch) this.nodesRenewed.add(w.renewal.nodeId);
    try {
      const result = await renewNodeLeases(
        this.db,
        batch.map((w) => w.renewal),
        this.nodesRenewed.size,
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
