import { createHash } from 'node:crypto';

/**
 * Idempotency keys derived from a call's arguments, for calls made without one (docs/ARCHITECTURE.md,
 * "Idempotency keys"). Derived only where the same arguments can only mean the same act; a retried call
 * then finds the run (or the update) the first one started and gets its answer instead of acting twice.
 */
export function derivedKey(operation: string, ...parts: readonly (string | number | null)[]): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([operation, ...parts]))
    .digest('hex')
    .slice(0, 32);
  return `${operation}:${digest}`;
}

/** A deployment is stopped once: its id is the stop's key. */
export function stopIdempotencyKey(deploymentId: string): string {
  return derivedKey('stop', deploymentId);
}
