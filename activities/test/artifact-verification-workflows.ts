import { proxyActivities } from '@temporalio/workflow';
import type {
  createArtifactActivities,
  VerifyModelVersionArtifactInput,
  VerifyModelVersionArtifactResult,
} from '../src/artifact';

/**
 * Test-only workflows that run the verification activity on a real Temporal
 * server, the way the Rollout workflow does: one attempt, so a typed failure
 * reaches the test instead of being retried.
 */
const { verifyModelVersionArtifact } = proxyActivities<ReturnType<typeof createArtifactActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

export async function verifyArtifactOnce(
  input: VerifyModelVersionArtifactInput,
): Promise<VerifyModelVersionArtifactResult> {
  return verifyModelVersionArtifact(input);
}

export async function verifyArtifactTwice(
  input: VerifyModelVersionArtifactInput,
): Promise<VerifyModelVersionArtifactResult[]> {
  return [await verifyModelVersionArtifact(input), await verifyModelVersionArtifact(input)];
}
