import { MODEL_VERSION_STATES, type ModelVersionState } from '@lunanexa/contracts';
import { defineStateMachine } from './state-machine';

/**
 * Model version lifecycle: the gates a digest-pinned artifact passes before
 * it may serve traffic, and how it leaves service.
 *
 * - Registered: recorded, nothing checked yet.
 * - Verified / VerificationFailed: digest, signature, license approval and
 *   declared hardware checked. A failure can be retried (the license may get
 *   approved, the artifact store may come back) — the bytes cannot change,
 *   since a new artifact is a new version.
 * - Evaluating → Evaluated / EvaluationFailed: the evaluation suite and
 *   benchmark ran against a candidate deployment. Either outcome may be
 *   re-evaluated (new suite, new runtime); an evaluation may be cancelled
 *   back to Verified.
 * - Approved: the only state rollouts accept. The ONLY way in is `approve`
 *   from Evaluated (or `reinstate` of a deprecated version that was approved
 *   before) — no path skips verification and evaluation.
 * - Deprecated: still serving where deployed, no new rollouts; consumers get
 *   time to move. `reinstate` undoes a premature deprecation.
 * - Retired (terminal): never served again. Normally `retire` after
 *   deprecation; candidates that never reached Approved may be retired
 *   directly. `withdraw` is the emergency path (license withdrawn, weights
 *   compromised) that skips deprecation.
 */
export const MODEL_VERSION_EVENTS = [
  'verificationPassed',
  'verificationFailed',
  'retryVerification',
  'startEvaluation',
  'cancelEvaluation',
  'evaluationPassed',
  'evaluationFailed',
  'approve',
  'deprecate',
  'reinstate',
  'retire',
  'withdraw',
] as const;
export type ModelVersionEvent = (typeof MODEL_VERSION_EVENTS)[number];

export const modelVersionLifecycle = defineStateMachine<ModelVersionState, ModelVersionEvent>({
  name: 'model version',
  states: MODEL_VERSION_STATES,
  events: MODEL_VERSION_EVENTS,
  initial: 'Registered',
  terminal: ['Retired'],
  transitions: [
    { from: 'Registered', event: 'verificationPassed', to: 'Verified' },
    { from: 'Registered', event: 'verificationFailed', to: 'VerificationFailed' },
    { from: 'Registered', event: 'retire', to: 'Retired' },
    { from: 'VerificationFailed', event: 'retryVerification', to: 'Registered' },
    { from: 'VerificationFailed', event: 'retire', to: 'Retired' },
    { from: 'Verified', event: 'startEvaluation', to: 'Evaluating' },
    { from: 'Verified', event: 'retire', to: 'Retired' },
    { from: 'Evaluating', event: 'evaluationPassed', to: 'Evaluated' },
    { from: 'Evaluating', event: 'evaluationFailed', to: 'EvaluationFailed' },
    { from: 'Evaluating', event: 'cancelEvaluation', to: 'Verified' },
    { from: 'EvaluationFailed', event: 'startEvaluation', to: 'Evaluating' },
    { from: 'EvaluationFailed', event: 'retire', to: 'Retired' },
    { from: 'Evaluated', event: 'approve', to: 'Approved' },
    { from: 'Evaluated', event: 'startEvaluation', to: 'Evaluating' },
    { from: 'Evaluated', event: 'retire', to: 'Retired' },
    { from: 'Approved', event: 'deprecate', to: 'Deprecated' },
    { from: 'Approved', event: 'withdraw', to: 'Retired' },
    { from: 'Deprecated', event: 'reinstate', to: 'Approved' },
    { from: 'Deprecated', event: 'retire', to: 'Retired' },
    { from: 'Deprecated', event: 'withdraw', to: 'Retired' },
  ],
});
