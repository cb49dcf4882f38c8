import { defineQuery, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type {
  ControllerKeyRotationStatus,
  RotateControllerKeyWorkflowInput,
  RotateControllerKeyWorkflowResult,
} from '@lunanexa/contracts';
import { CONTROLLER_KEY_ROTATION_QUERIES } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // The switch waits for every worker to hold the new private key: an operator may need a while to copy it.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export const controllerKeyRotationStatusQuery = defineQuery<ControllerKeyRotationStatus>(
  CONTROLLER_KEY_ROTATION_QUERIES.status,
);

/**
 * RotateControllerKey: announce the next key (it rides on every signed
 * heartbeat answer and assignment while the current key still signs), switch
 * after the announce window, keep accepting the previous key for the overlap,
 * then retire it. Nodes are never re-enrolled; one that missed all of it is
 * marked ControllerKeyTrusted=False with the command that recovers it.
 */
export async function rotateControllerKeyWorkflow(
  input: RotateControllerKeyWorkflowInput,
): Promise<RotateControllerKeyWorkflowResult> {
  const context = { actor: input.actor, correlationId: input.correlationId, requestId: input.requestId };
  let status: ControllerKeyRotationStatus = {
    rotationId: input.rotationId,
    phase: 'announcing',
    nextKeyId: input.nextKey.keyId,
    previousKeyId: null,
    switchAt: new Date(Date.now() + input.announceSeconds * 1000).toISOString(),
    retireAt: null,
  };
  setHandler(controllerKeyRotationStatusQuery, () => status);
  const announced = await steps.announceControllerKey({ ...context, ...input });
  status = { ...status, previousKeyId: announced.currentKeyId };
  await sleep(input.announceSeconds * 1000);
  const activated = await steps.activateControllerKey({
    ...context,
    rotationId: input.rotationId,
    nextKey: input.nextKey,
    overlapSeconds: input.overlapSeconds,
  });
  status = {
    ...status,
    phase: 'overlap',
    switchAt: activated.switchedAt,
    retireAt: activated.acceptUntil,
  };
  await sleep(input.overlapSeconds * 1000);
  const retired = await steps.retireControllerKey({
    ...context,
    rotationId: input.rotationId,
    keyId: input.nextKey.keyId,
    previousKeyId: announced.currentKeyId,
  });
  status = { ...status, phase: 'retired', retireAt: retired.retiredAt };
  return {
    rotationId: input.rotationId,
    previousKeyId: announced.currentKeyId,
    keyId: input.nextKey.keyId,
    nodesNotTrustingNewKey: retired.nodesNotTrustingNewKey,
    receiptHash: retired.receipt.hash,
  };
}
