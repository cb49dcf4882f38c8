/**
 * `replicaObserved` signals to deployment workflows, coalesced per workflow:
 * while one signal to a workflow is on its way, further news for it only
 * marks it, and one more signal follows when the first has been answered.
 * The workflow counts signals only to know that something changed (it then
 * re-reads the tables once), so N signals in flight say no more than one
 * followed by one more — and during a recovery, when every lease-renewal
 * batch may carry a replica turning Ready, this keeps Temporal and the
 * worker from waking a workflow once per batch while the machine also has
 * the fleet's heartbeats to answer. Nothing is lost: the last change is
 * always followed by a signal sent after it was committed.
 */
export class DeploymentSignals {
  private readonly inFlight = new Set<string>();
  private readonly again = new Set<string>();

  constructor(private readonly send: (workflowId: string) => Promise<void>) {}

  /** The deployments whose replicas' news just committed. */
  tell(workflowIds: readonly string[]): void {
    for (const workflowId of workflowIds) {
      if (this.inFlight.has(workflowId)) this.again.add(workflowId);
      else this.start(workflowId);
    }
  }

  /** Workflows with a signal on its way (for tests and shutdown). */
  get pending(): number {
    return this.inFlight.size;
  }

  private start(workflowId: string): void {
    this.inFlight.add(workflowId);
    // send never rejects (the caller logs its failures); finally only moves on to the next one.
    void this.send(workflowId).finally(() => {
      this.inFlight.delete(workflowId);
      if (this.again.delete(workflowId)) this.start(workflowId);
    });
  }
}
