import { proxyActivities, sleep } from '@temporalio/workflow';
import type {
  RotateNodeCredentialWorkflowInput,
  RotateNodeCredentialWorkflowResult,
} from '@lunanexa/contracts';
import { ErrorCode } from '@lunanexa/contracts/dist/src/workflow-constants';
import { ApplicationFailure } from '@temporalio/workflow';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * RotateNodeCredential, without downtime: the controller asks for a new key
 * in its heartbeat acks; the agent sends the next key (with proof it holds
 * it) while still signing with the old one; the controller trusts both; the
 * first heartbeat signed by the new key retires the old. Then a credential
 * for the new key is issued and the SSH path is checked with it.
 */
export async function rotateNodeCredentialWorkflow(
  input: RotateNodeCredentialWorkflowInput,
): Promise<RotateNodeCredentialWorkflowResult> {
  const base = { nodeId: input.nodeId, actor: input.actor, correlationId: input.correlationId };
  const { keyId: previousKeyId } = await steps.requestKeyRotation(base);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  for (;;) {
    const { keyId } = await steps.readNodeKey({ nodeId: input.nodeId });
    if (keyId !== previousKeyId) break;
    if (Date.now() >= deadline) {
      await steps.recordNodeEvent({
        ...base,
        action: 'node.credential.rotate.timeout',
        step: 'timeout',
        evidence: { previousKeyId, timeoutSeconds: input.timeoutSeconds },
      });
      throw ApplicationFailure.create({
        type: ErrorCode.DEPENDENCY_UNAVAILABLE,
        message: `node ${input.nodeId} did not present a new key within ${input.timeoutSeconds} s`,
        nonRetryable: true,
      });
    }
    await sleep('1 second');
  }
  const credential = await steps.issueNodeCredential(base);
  await steps.checkNodeReachable(base);
  const receipt = await steps.recordNodeEvent({
    ...base,
    action: 'node.credential.rotate.complete',
    step: 'complete',
    evidence: { previousKeyId, keyId: credential.keyId, serial: credential.serial },
  });
  return {
    nodeId: input.nodeId,
    previousKeyId,
    keyId: credential.keyId,
    credentialSerial: credential.serial,
    receiptHash: receipt.hash,
  };
}
