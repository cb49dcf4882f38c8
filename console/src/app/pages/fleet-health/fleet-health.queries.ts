import {
  ConsoleHealingPlanDocument,
  ConsoleHealDocument,
  ConsoleReconcileDocument,
  type ConsoleHealingPlanFragment,
  type ConsoleReconcileRunFragment,
} from '@lunanexa/sdk/generated/operations';

/* Healing and reconcile (libs/sdk/graphql/console/fleet-health.graphql). */

export type HealingPlan = ConsoleHealingPlanFragment;
export type ReconcileRun = ConsoleReconcileRunFragment;

export const HEALING_PLAN = ConsoleHealingPlanDocument;
export const HEAL = ConsoleHealDocument;
export const RECONCILE = ConsoleReconcileDocument;
