import { proxyActivities } from '@temporalio/workflow';
import type { PingWorkflowInput, PingWorkflowResult } from '@lunanexa/contracts';
import type { Activities } from '@lunanexa/activities';

const { recordPing } = proxyActivities<Activities>({
  // One insert and one receipt take milliseconds; the timeout is how soon an attempt on a worker that died is
  // tried again on another, and the api waits 30 s for the whole ping.
  startToCloseTimeout: '8 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * System check: records one row and one audit receipt through an activity.
 * Business failures (a reused idempotency key) are non-retryable and fail the
 * workflow with their typed code.
 */
export async function pingWorkflow(input: PingWorkflowInput): Promise<PingWorkflowResult> {
  return recordPing(input);
}
