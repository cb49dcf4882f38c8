import type { LiveEvent } from '../../shared/graphql/schema-types';

/**
 * Whether a live event may change the registry: an audited model, version,
 * license, runtime or evaluation step, or a gap after which anything may have.
 */
export function changesRegistry(event: LiveEvent): boolean {
  const action = event.action ?? '';
  return (
    event.dropped > 0 ||
    (event.kind === 'audit' &&
      ['model.', 'model-version.', 'license.', 'runtime.', 'evaluation.', 'alias.', 'rollout.'].some(
        (prefix) => action.startsWith(prefix),
      ))
  );
}
