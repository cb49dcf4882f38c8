import { z } from 'zod';
import type { OperationContext } from './fleet-workflows';

/**
 * Versioned aliases and rollouts. Callers name an alias (`chat-default`);
 * the alias's current revision names the model version and the deployment
 * serving it. A rollout moves an alias to a new version through canary steps:
 * the gateway sends `weight` percent of the alias's traffic to the canary
 * deployment, an analysis window per step compares canary against stable
 * (error rate, p95 latency, evaluation score), and the rollout promotes (a new
 * alias revision) or rolls back (the base revision keeps serving, untouched)
 * on its own or on an operator's signal. Workflow id: `rollout/<rolloutId>`.
 */

export const ROLLOUT_STATES = [
  'Verifying',
  'Deploying',
  'Canary',
  'Paused',
  'Promoted',
  'RolledBack',
  'Aborted',
  'Refused',
  'Failed',
] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
export const ACTIVE_ROLLOUT_STATES: readonly RolloutState[] = ['Verifying', 'Deploying', 'Canary', 'Paused'];

export const RolloutThresholdsSchema = z
  .object({
    /** Breach when canary error rate exceeds stable's by more than this (0.05 = 5 percentage points). */
    maxErrorRateIncrease: z.number().min(0).max(1),
    /** Breach when canary p95 latency exceeds stable p95 × this ratio and by more than `p95SlackMs`. */
    maxP95LatencyRatio: z.number().min(1).max(100),
    /** Latency differences below this are noise on small windows. */
    p95SlackMs: z.number().min(0).max(600_000),
    /** Breach when the canary version's evaluation pass rate is below stable's by more than this. */
    maxEvaluationScoreDrop: z.number().min(0).max(1),
  })
  .strict();
export type RolloutThresholds = z.infer<typeof RolloutThresholdsSchema>;

export const RolloutPlanSchema = z
  .object({
    /** Canary weights in percent, strictly increasing, ending at 100 (e.g. [10, 50, 100]). */
    steps: z
      .array(z.int().min(1).max(100))
      .min(1)
      .max(10)
      .refine((steps) => steps.every((weight, i) => i === 0 || weight > (steps[i - 1] ?? 0)), {
        message: 'must be strictly increasing',
      })
      .refine((steps) => steps[steps.length - 1] === 100, { message: 'must end at 100' }),
    /** How long each step's traffic is observed before it is judged. */
    analysisWindowSeconds: z.int().min(1).max(86_400),
    /**
     * Each step is judged on a fixed sample: the first this-many canary
     * requests after the step began (and the stable requests of the same
     * interval). Fixed samples make the verdict reproducible and avoid the
     * bias of judging whenever the numbers look good or bad.
     */
    samplesPerStep: z.int().min(1).max(100_000),
    /** Windows a step may extend while its sample is incomplete before the rollout rolls back. */
    maxWindowsPerStep: z.int().min(1).max(100),
    thresholds: RolloutThresholdsSchema,
    replicas: z.int().min(1).max(64),
    /**
     * After promotion the previous stable deployment keeps running (without
     * traffic) this long, so a rollback restores it at once; then it stops.
     */
    bakeSeconds: z.int().min(0).max(86_400),
  })
  .strict();
export type RolloutPlan = z.infer<typeof RolloutPlanSchema>;

export const DEFAULT_ROLLOUT_PLAN: RolloutPlan = {
  steps: [10, 50, 100],
  analysisWindowSeconds: 60,
  samplesPerStep: 20,
  maxWindowsPerStep: 5,
  thresholds: {
    maxErrorRateIncrease: 0.05,
    maxP95LatencyRatio: 1.5,
    p95SlackMs: 50,
    maxEvaluationScoreDrop: 0.05,
  },
  replicas: 1,
  bakeSeconds: 0,
};

/** Request statistics of one deployment over one analysis window (from the gateway's request records). */
export interface TrafficWindowStats {
  readonly requests: number;
  /** Failed or timed out (Rejected and Cancelled are the caller's, not the deployment's). */
  readonly errors: number;
  readonly errorRate: number;
  /** Null without completed requests. */
  readonly p95LatencyMs: number | null;
}

export type AnalysisVerdict = 'pass' | 'breach' | 'insufficient';

export interface StepAnalysis {
  readonly step: number;
  readonly weight: number;
  /** Which window of this step (1-based); > 1 when earlier ones had too few requests. */
  readonly window: number;
  readonly canary: TrafficWindowStats;
  /** Null on a first rollout (nothing to compare against). */
  readonly stable: TrafficWindowStats | null;
  readonly canaryEvaluationScore: number | null;
  readonly stableEvaluationScore: number | null;
  readonly verdict: AnalysisVerdict;
  /** Each breached or unmet criterion, e.g. `error rate 0.200 > stable 0.000 + 0.050`. */
  readonly reasons: readonly string[];
}

export const ROLLOUT_SIGNAL_ACTIONS = ['promote', 'rollback', 'pause', 'resume', 'abort'] as const;
export type RolloutSignalAction = (typeof ROLLOUT_SIGNAL_ACTIONS)[number];

export interface RolloutSignal {
  readonly action: RolloutSignalAction;
  readonly actor: string;
  readonly correlationId: string;
  readonly requestId: string;
  readonly reason: string | null;
}

// ROLLOUT_SIGNALS and ROLLOUT_QUERIES live in fleet-workflows.ts: workflow code reads them without zod.

export interface RolloutWorkflowInput extends OperationContext {
  readonly rolloutId: string;
  readonly aliasId: string;
  readonly aliasName: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly plan: RolloutPlan;
  /** The deployment the rollout starts for the new version (derived from the rollout id by the API). */
  readonly canaryDeploymentId: string;
  readonly canaryDeploymentName: string;
  /** Assignment lease of the canary deployment it starts. */
  readonly leaseSeconds: number;
}

export interface RolloutWorkflowStatus {
  readonly rolloutId: string;
  readonly state: RolloutState;
  readonly step: number;
  readonly weight: number;
  readonly analyses: readonly StepAnalysis[];
  /** Promoted and still baking: a rollback or abort still applies (absent in runs that predate it). */
  readonly baking?: boolean;
  /** Set once refused: the typed code and reason. */
  readonly refusal?: { readonly code: string; readonly reason: string } | null;
}

export interface RolloutWorkflowResult {
  readonly rolloutId: string;
  readonly state: Extract<RolloutState, 'Promoted' | 'RolledBack' | 'Aborted' | 'Refused' | 'Failed'>;
  /** The typed refusal or failure code, when there is one. */
  readonly code: string | null;
  readonly reason: string | null;
  /** The alias revision serving when the workflow finished. */
  readonly aliasRevision: number;
  readonly receiptHash: string;
}
