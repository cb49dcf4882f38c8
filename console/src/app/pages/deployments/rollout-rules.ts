import type { RolloutState } from '@lunanexa/contracts/rollout';
import type { Permission } from '@lunanexa/contracts/roles';

import type { RolloutAction } from '@lunanexa/sdk/generated/graphql';
import type { ActionState } from './deployment-rules';
import type { AliasRevision, Rollout, RolloutAnalysis, RolloutSummary } from './rollouts.queries';

/*
 * Type-only imports of the contracts (their modules build zod schemas the
 * console must not bundle): every state named here is checked against
 * ROLLOUT_STATES by the compiler.
 */
const ACTIVE: readonly string[] = [
  'Verifying',
  'Deploying',
  'Canary',
  'Paused',
] satisfies readonly RolloutState[];
const PROMOTED = 'Promoted' satisfies RolloutState;
/** The workflow's last receipt of a promotion, written once the bake period is over and the old stable stopped. */
const COMPLETE_RECEIPT = 'rollout.complete';

/** While a rollout moves, the operator watches each step: the panel polls at this pace. */
export const ROLLOUT_PROGRESS_INTERVAL_MS = 2_000;

/** "10, 50, 100": the canary weights a plan steps through, as the start dialog accepts them. */
export const STEPS_PATTERN = /^\s*\d{1,3}(\s*,\s*\d{1,3}){0,9}\s*$/;

export function isRolloutActive(rollout: Pick<RolloutSummary, 'state'>): boolean {
  return ACTIVE.includes(rollout.state);
}

/**
 * A promoted rollout whose workflow still keeps the previous stable running
 * (plan.bakeSeconds): until it writes `rollout.complete` a rollback restores
 * the previous revision at once. The API decides finally (it asks the workflow).
 */
export function isBaking(rollout: Pick<Rollout, 'state' | 'bakeSeconds' | 'receipts'>): boolean {
  return (
    rollout.state === PROMOTED &&
    rollout.bakeSeconds > 0 &&
    !rollout.receipts.some((receipt) => receipt.action === COMPLETE_RECEIPT)
  );
}

/** Whether the panel should keep polling quickly: something can still change on its own. */
export function isRolloutMoving(rollout: Pick<Rollout, 'state' | 'bakeSeconds' | 'receipts'>): boolean {
  return isRolloutActive(rollout) || isBaking(rollout);
}

/**
 * "10, 50, 100" → [10, 50, 100], or the reason it is not a plan the API
 * accepts (RolloutPlanSchema: 1–10 weights from 1 to 100, strictly increasing, ending at 100).
 */
export function parseSteps(text: string): readonly number[] | string {
  if (!STEPS_PATTERN.test(text)) {
    return 'Enter 1 to 10 whole percentages separated by commas, e.g. 10, 50, 100.';
  }
  const steps = text.split(',').map((part) => Number(part.trim()));
  if (steps.some((weight) => weight < 1 || weight > 100)) {
    return 'Each weight is a percentage from 1 to 100.';
  }
  if (steps.some((weight, i) => i > 0 && weight <= (steps[i - 1] ?? 0))) {
    return 'Weights must increase from step to step.';
  }
  if (steps.at(-1) !== 100) {
    return 'The last step must be 100: the canary takes all traffic before it is promoted.';
  }
  return steps;
}

/** `stopped`: where an ended rollout that was not promoted stood; `unreached`: the steps after it. */
export type StepStatus = 'done' | 'current' | 'pending' | 'stopped' | 'unreached';

export interface RolloutStepView {
  readonly index: number;
  readonly weight: number;
  readonly status: StepStatus;
  /** The step's last analysis window, once judged. */
  readonly analysis: RolloutAnalysis | undefined;
}

/** Each canary step with where the rollout is and the verdict of its last window. */
export function rolloutSteps(
  rollout: Pick<Rollout, 'steps' | 'currentStep' | 'state' | 'analyses'>,
): readonly RolloutStepView[] {
  const promoted = rollout.state === PROMOTED;
  const ended = !promoted && !isRolloutActive(rollout);
  return rollout.steps.map((weight, index): RolloutStepView => {
    const analyses = rollout.analyses.filter((analysis) => analysis.step === index);
    const analysis = analyses.reduce<RolloutAnalysis | undefined>(
      (last, next) => (last === undefined || next.window > last.window ? next : last),
      undefined,
    );
    const status: StepStatus =
      promoted || index < rollout.currentStep || analysis?.verdict === 'pass'
        ? 'done'
        : index === rollout.currentStep
          ? ended
            ? 'stopped'
            : 'current'
          : ended
            ? 'unreached'
            : 'pending';
    return { index, weight, status, analysis };
  });
}

/** "revision 1: chat@1"; on an alias's first rollout there is no revision to go back to. */
export function revisionText(
  revision: number,
  revisions: readonly Pick<AliasRevision, 'revision' | 'modelRef'>[],
): string {
  if (revision === 0) {
    return 'no revision (the alias served nothing before this rollout)';
  }
  const found = revisions.find((candidate) => candidate.revision === revision);
  return found === undefined ? `revision ${revision}` : `revision ${revision}: ${found.modelRef}`;
}

export interface RolloutActionView extends ActionState {
  readonly action: RolloutAction;
  /** Button label. */
  readonly label: string;
  /** Changes what the alias serves or ends the rollout: behind a confirmation that states the effect. */
  readonly destructive: boolean;
}

/** How the panel presents each signal, in its order; whether one applies now is the API's answer (`Rollout.actions`). */
const SIGNAL_CONTROLS: readonly Pick<RolloutActionView, 'action' | 'label' | 'destructive'>[] = [
  { action: 'PROMOTE', label: 'Promote', destructive: true },
  { action: 'ROLLBACK', label: 'Roll back', destructive: true },
  { action: 'PAUSE', label: 'Pause', destructive: false },
  { action: 'RESUME', label: 'Resume', destructive: false },
  { action: 'ABORT', label: 'Abort', destructive: true },
];

/**
 * The operator's signals to a rollout, enabled as the API says the rollout's
 * state allows them (promote and pause while a canary step runs, resume while
 * paused, roll back or abort until the rollout ends, roll back during a bake
 * period after promotion). Offered to operators and admins; the API checks
 * the state again when the signal is sent.
 */
export function rolloutActions(
  rollout: Pick<Rollout, 'actions'>,
  can: (permission: Permission) => boolean,
): readonly RolloutActionView[] {
  const offered = can('operate');
  return SIGNAL_CONTROLS.map((control): RolloutActionView => {
    const availability = rollout.actions.find((candidate) => candidate.action === control.action);
    const enabled = availability?.allowed ?? false;
    const reason = enabled ? null : (availability?.reason ?? 'the API did not say whether it applies');
    return { ...control, offered, enabled, ...(reason === null ? {} : { reason }) };
  });
}

/**
 * What a signal does, in the words the confirmation dialog asks the operator
 * to accept: which revision serves the alias afterwards.
 */
export function signalEffectText(
  action: RolloutAction,
  rollout: Pick<
    Rollout,
    'alias' | 'modelRef' | 'baseRevision' | 'state' | 'currentStep' | 'steps' | 'currentWeight'
  >,
  revisions: readonly Pick<AliasRevision, 'revision' | 'modelRef'>[],
): string {
  const base = revisionText(rollout.baseRevision, revisions);
  switch (action) {
    case 'PROMOTE':
      return (
        `Promotes ${rollout.modelRef} now: alias ${rollout.alias} gets a new revision serving ` +
        `${rollout.modelRef} with all of its traffic. The remaining steps and their analyses are skipped.`
      );
    case 'ROLLBACK':
      return rollout.state === PROMOTED
        ? `Traffic returns to ${base}. The alias gets a new revision restoring it, and ${rollout.modelRef} stops serving.`
        : `Traffic returns to ${base}. The canary ${rollout.modelRef} (now ${rollout.currentWeight} %) gets no more traffic and its deployment stops.`;
    case 'ABORT':
      return `Ends the rollout without promoting: ${base} keeps serving alias ${rollout.alias}, and the canary ${rollout.modelRef} stops.`;
    case 'PAUSE':
      return `Holds the rollout at ${rollout.currentWeight} %: the canary keeps its share and no further step starts until you resume.`;
    case 'RESUME':
      return `Resumes the rollout at step ${rollout.currentStep + 1} of ${rollout.steps.length}: the analysis window runs again.`;
  }
}

/** "4.0 %" from a rate of 0.04; "—" when there is no figure. */
export function percentText(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(1)} %`;
}

/** "120 ms"; "—" when there is no figure. */
export function millisecondsText(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : `${Math.round(ms)} ms`;
}

/** Evaluation pass rate 0.92 → "0.92"; "—" when the version has none. */
export function scoreText(score: number | null | undefined): string {
  return score === null || score === undefined ? '—' : score.toFixed(2);
}
