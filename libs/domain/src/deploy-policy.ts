import type { DataClass, ErrorCode, LicenseApprovalState, ModelVersionState } from '@lunanexa/contracts';

/**
 * Whether a model version may be rolled out to serve an alias's traffic.
 * Pure: the caller gathers the facts (registry rows, the fleet's hardware
 * fit); this decides, in a fixed order so a version that fails several
 * checks always names the same, most fundamental reason first:
 *
 *   license → data class → runtime allowlist → hardware → evaluation →
 *   approval → digest
 *
 * Licensing comes first because nothing else matters if we may not run the
 * weights at all; hardware before evaluation because a version that cannot
 * be placed cannot be evaluated either. The digest is re-checked against the
 * store by the Rollout workflow itself (bytes can change after registration);
 * here only the last recorded verification is considered.
 */

export interface DeployPolicyFacts {
  readonly modelRef: string;
  readonly versionState: ModelVersionState;
  readonly licenseName: string;
  readonly licenseApproval: LicenseApprovalState;
  readonly licenseAllowedDataClasses: readonly DataClass[];
  /** The data class of the traffic the alias serves. */
  readonly dataClass: DataClass;
  readonly runtimeId: string;
  readonly runtimeAllowed: boolean;
  /** From the fleet's hardware fit: at least one node could run a replica. */
  readonly hardwareFits: boolean;
  readonly hardwareReasons: readonly string[];
  /** The latest evaluation; null when none ran. */
  readonly evaluation: { readonly passed: boolean; readonly suite: string } | null;
  /** The last digest verification; null when never verified. */
  readonly verification: { readonly ok: boolean; readonly code?: string; readonly message?: string } | null;
}

export type DeployPolicyDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly code: ErrorCode; readonly reason: string };

const refuse = (code: ErrorCode, reason: string): DeployPolicyDecision => ({ allowed: false, code, reason });

export function decideDeployPolicy(facts: DeployPolicyFacts): DeployPolicyDecision {
  const ref = facts.modelRef;
  if (facts.licenseApproval !== 'Approved') {
    return refuse(
      'LICENSE_NOT_APPROVED',
      `${ref}: license ${facts.licenseName} is ${facts.licenseApproval}, not Approved`,
    );
  }
  if (!facts.licenseAllowedDataClasses.includes(facts.dataClass)) {
    return refuse(
      'DATA_CLASS_NOT_ALLOWED',
      `${ref}: license ${facts.licenseName} allows ${facts.licenseAllowedDataClasses.join(', ')}, not ${facts.dataClass}`,
    );
  }
  if (!facts.runtimeAllowed) {
    return refuse(
      'RUNTIME_NOT_ALLOWED',
      `${ref}: runtime ${facts.runtimeId} is not on the runtime allowlist`,
    );
  }
  if (!facts.hardwareFits) {
    const why = facts.hardwareReasons.length > 0 ? `: ${facts.hardwareReasons.slice(0, 8).join('; ')}` : '';
    return refuse('HARDWARE_INCOMPATIBLE', `${ref}: no node in the fleet can run one replica${why}`);
  }
  if (facts.evaluation === null) {
    return refuse('EVALUATION_NOT_PASSED', `${ref}: no evaluation has run`);
  }
  if (!facts.evaluation.passed || facts.versionState === 'EvaluationFailed') {
    return refuse('EVALUATION_NOT_PASSED', `${ref}: evaluation suite ${facts.evaluation.suite} did not pass`);
  }
  if (facts.versionState !== 'Approved') {
    return refuse(
      'MODEL_VERSION_NOT_APPROVED',
      `${ref}: is ${facts.versionState}, only Approved versions roll out`,
    );
  }
  if (facts.verification !== null && !facts.verification.ok) {
    return refuse(
      facts.verification.code === 'DIGEST_MISMATCH' ? 'DIGEST_MISMATCH' : 'DEPENDENCY_UNAVAILABLE',
      `${ref}: last artifact verification failed: ${facts.verification.message ?? facts.verification.code ?? 'unknown'}`,
    );
  }
  return { allowed: true };
}
