import { continueAsNew, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { RetentionExpiryWorkflowInput, RetentionExpiryWorkflowResult } from '@lunanexa/contracts';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Passes per run before continue-as-new, so the loop's history stays small however long it runs. */
const PASSES_PER_RUN = 200;

/**
 * Runs from here on also prune GPU samples past their window (libs/persistence gpu-samples.ts) on every expiry
 * pass; a history recorded before it replays without those activities.
 */
const PRUNE_GPU_SAMPLES = 'prune-gpu-samples';

/** Receipt hashes a run reports back; older ones are in the audit chain. */
const MAX_REPORTED_RECEIPTS = 100;

/**
 * RetentionExpiry: deletes payload captures whose expiry has passed, in
 * bounded batches, each batch ending in a `payload.delete` receipt; an
 * expiry pass then deletes GPU samples past their window, in batches of the
 * same size (no receipt: they are the fleet's own figures, not anyone's data).
 *
 * `expired` is the standing loop the worker keeps running under one fixed id:
 * a pass deletes batch after batch until a batch comes back short, then the
 * workflow sleeps `intervalSeconds` and goes again, continuing as new every
 * PASSES_PER_RUN passes. `purge` deletes every capture of one tenant once and
 * finishes (an operator's `purgePayloadCaptures`).
 */
export async function retentionExpiryWorkflow(
  input: RetentionExpiryWorkflowInput,
): Promise<RetentionExpiryWorkflowResult> {
  let passes = 0;
  let deleted = 0;
  const receiptHashes: string[] = [];
  for (;;) {
    for (let batch = 0; ; batch++) {
      const result = await steps.deletePayloadCaptureBatch({
        mode: input.mode,
        ...(input.tenantId === undefined ? {} : { tenantId: input.tenantId }),
        batchSize: input.batchSize,
        pass: passes,
        batch,
        actor: input.actor,
        correlationId: input.correlationId,
      });
      deleted += result.deleted;
      if (result.receiptHash !== null) {
        receiptHashes.push(result.receiptHash);
        if (receiptHashes.length > MAX_REPORTED_RECEIPTS) receiptHashes.shift();
      }
      if (result.deleted < input.batchSize) break;
    }
    if (input.mode === 'expired' && patched(PRUNE_GPU_SAMPLES)) {
      for (;;) {
        const pruned = await steps.deleteExpiredGpuSamples({ batchSize: input.batchSize });
        if (pruned.deleted < input.batchSize) break;
      }
    }
    passes += 1;
    const total = (input.passesSoFar ?? 0) + passes;
    if (input.mode === 'purge' || (input.maxPasses !== undefined && total >= input.maxPasses)) {
      return { passes: total, deleted, receiptHashes };
    }
    await sleep(input.intervalSeconds * 1000);
    if (passes >= PASSES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof retentionExpiryWorkflow>({ ...input, passesSoFar: total });
    }
  }
}
