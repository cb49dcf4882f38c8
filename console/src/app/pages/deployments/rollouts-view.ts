import type { LiveEvent } from '../../shared/graphql/schema-types';

/** The route parameter of `/deployments/aliases/:alias`. */
export const ALIAS_NAME_PARAM = 'alias';

/**
 * Router commands for an alias's page. Two segments, so no deployment name
 * (one DNS label) can shadow it under `/deployments/<name>`.
 */
export function aliasDetailLink(alias: string): readonly string[] {
  return ['/deployments', 'aliases', alias];
}

/** Whether a live event may change aliases or rollouts: any audited alias or rollout step, or a gap. */
export function changesRollouts(event: LiveEvent): boolean {
  const action = event.action ?? '';
  return (
    event.dropped > 0 ||
    (event.kind === 'audit' && (action.startsWith('rollout.') || action.startsWith('alias.')))
  );
}
