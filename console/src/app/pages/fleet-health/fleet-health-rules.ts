import type { Permission } from '@lunanexa/contracts/roles';

import type { HealingPlan, ReconcileRun } from './fleet-health.queries';

type Can = (permission: Permission) => boolean;

/** Healing and reconcile change the fleet (cordons, restarts, re-placements, pushes): operators and up. */
export function canRunFleetRepairs(can: Can): boolean {
  return can('operate');
}

/** The confirmation of a healing run: what the dry run just listed, which the run may still change. */
export function healingScope(plan: Pick<HealingPlan, 'actions'>): string {
  if (plan.actions.length === 0) return 'The dry run found nothing to do; a run now records an empty pass.';
  const counts = new Map<string, number>();
  for (const action of plan.actions) counts.set(action.kind, (counts.get(action.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}`);
  return `Runs one healing pass now: the dry run lists ${parts.join(', ')}. The pass decides again when it runs.`;
}

/** The confirmation of a reconcile run: the drift found, and how much of it the controller repairs. */
export function reconcileScope(plan: Pick<ReconcileRun, 'drift' | 'inSync'>): string {
  if (plan.inSync) return 'No drift was found; a run now records an empty pass.';
  const repairable = plan.drift.filter((item) => item.repair !== null && item.repair !== undefined).length;
  return (
    `Repairs the drift found: ${plan.drift.length} item${plan.drift.length === 1 ? '' : 's'}, ` +
    `${repairable} of them the controller's to repair (the others are listed with why not).`
  );
}
