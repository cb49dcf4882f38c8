import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '@lunanexa/activities';

// Hashing a model artifact streams gigabytes from its store: long, heartbeating, few retries.
const { verifyModelVersionArtifact } = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

export type VerifyModelVersionWorkflowInput = Parameters<Activities['verifyModelVersionArtifact']>[0];
export type VerifyModelVersionWorkflowResult = Awaited<ReturnType<Activities['verifyModelVersionArtifact']>>;

/**
 * An operator asked to (re)verify a version's artifact: hash the bytes in
 * their store against the registered digest, record the outcome and move the
 * version to Verified or VerificationFailed. One activity, but a workflow all
 * the same, so the check survives an API restart, retries a store that is
 * briefly down, and leaves a history an operator can open.
 */
export async function verifyModelVersionWorkflow(
  input: VerifyModelVersionWorkflowInput,
): Promise<VerifyModelVersionWorkflowResult> {
  return verifyModelVersionArtifact(input);
}
