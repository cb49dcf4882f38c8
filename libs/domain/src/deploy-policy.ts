import type {
  DataClass,
  DeploymentPurpose,
  ErrorCode,
  LicenseApprovalState,
  ModelVersionState,
} from '@lunanexa/contracts';

/**
 * The deploy gate: whether a model version may get a deployment of the given
 * purpose. `startRollout` (whose canary is a Serving deployment) and
 * `createDeployment` both ask it, with facts from one loader
 * (libs/persistence `loadDeployPolicyFacts`), so a version refused on one
 * path is refused on the other with the same code.
 *
 * Pure: the caller gathers the facts (registry rows, the fleet's hardware
 * fit); this decides, in a fixed order so a version that fails several
 * checks always names the same, most fundamental reason first.
 *
 * Serving (traffic; what a rollout deploys):
 *
 *   license → signature → data class → runtime allowlist → hardware →
 *   evaluation → approval → digest
 *
 * Candidate (a deployment to evaluate a version that has not passed yet):
 * the same checks minus evaluation and approval; in approval's place the
 * version must be one that may still be evaluated:
 *
 *   license → signature → data class → runtime allowlist → hardware → not
 *   Deprecated or Retired → digest → verified
 *
 * The signature comes right after the license: a signature that does not
 * verify against a trusted, unrevoked key (SIGNATURE_INVALID) means the
 * bytes' origin is unknown, and an unsigned version where a tenant of the
 * alias forbids unsigned ones (UNSIGNED_VERSION_NOT_ALLOWED) must not serve
 * that tenant, whatever else holds.
 *
 * Licensing comes first because nothing else matters if we may not run the
 * weights at all; hardware before evaluation because a version that cannot
 * be placed cannot be evaluated either. A candidate's recorded digest
 * failure is named before its state, so a version whose bytes did not match
 * says DIGEST_MISMATCH rather than just "VerificationFailed". The digest is
 * re-checked against the store by the Rollout workflow itself (bytes can
 * change after registration); here only the last recorded verification is
 * considered.
 */

export interface DeployPolicyFacts {
  readonly modelRef: string;
  readonly versionState: ModelVersionState;
  readonly licenseName: string;
  readonly licenseApproval: LicenseApprovalState;
  readonly licenseAllowedDataClasses: readonly DataClass[];
  /**
   * The data class of the traffic the deployment will serve: an alias's for a
   * rollout. Null when none applies yet (a deployment created directly: the
   * gateway checks each request's data class against the license).
   */
  readonly dataClass: DataClass | null;
  readonly runtimeId: string;
  readonly runtimeAllowed: boolean;
  /** From the fleet's hardware fit: at least one Active node could run a replica. */
  readonly hardwareFits: boolean;
  readonly hardwareReasons: readonly string[];
  /** The latest evaluation; null when none ran. */
  readonly evaluation: { readonly passed: boolean; readonly suite: string } | null;
  /** The last digest verification; null when never verified. */
  readonly verification: { readonly ok: boolean; readonly code?: string; readonly message?: string } | null;
  /** The artifact signature's verdict (`decideArtifactSignature`) against today's trusted keys and policy. */
  readonly signature: ArtifactSignatureDecision;
}

/**
 * The artifact signature's verdict, decided by libs/credentials
 * `decideArtifactSignature` (Ed25519 needs node:crypto, which the domain may
 * not import) and passed in as a fact.
 */
export type ArtifactSignatureDecision =
  | { readonly ok: true; readonly signed: boolean; readonly keyId: string | null }
  | {
      readonly ok: false;
      readonly code: 'SIGNATURE_INVALID' | 'UNSIGNED_VERSION_NOT_ALLOWED';
      readonly reason: string;
    };

export type DeployPolicyDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly code: ErrorCode; readonly reason: string };

const refuse = (code: ErrorCode, reason: string): DeployPolicyDecision => ({ allowed: false, code, reason });

/** States a version never leaves for service again (Deprecated until reinstated, Retired for good). */
const OUT_OF_SERVICE: readonly ModelVersionState[] = ['Deprecated', 'Retired'];
/** States whose digest check has not passed: nothing may run their bytes, not even to evaluate them. */
const UNVERIFIED: readonly ModelVersionState[] = ['Registered', 'VerificationFailed'];

/** License, data class, runtime and hardware: the checks every purpose makes, in this order. */
function commonRefusal(facts: DeployPolicyFacts): DeployPolicyDecision | null {
  const ref = facts.modelRef;
  if (facts.licenseApproval !== 'Approved') {
    return refuse(
      'LICENSE_NOT_APPROVED',
      `${ref}: license ${facts.licenseName} is ${facts.licenseApproval}, not Approved`,
    );
  }
  if (!facts.signature.ok) return refuse(facts.signature.code, facts.signature.reason);
  if (facts.dataClass !== null && !facts.licenseAllowedDataClasses.includes(facts.dataClass)) {
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
  return null;
}

function digestRefusal(facts: DeployPolicyFacts): DeployPolicyDecision | null {
  if (facts.verification === null || facts.verification.ok) return null;
  return refuse(
    facts.verification.code === 'DIGEST_MISMATCH' || facts.verification.code === 'SIGNATURE_INVALID'
      ? facts.verification.code
      : 'DEPENDENCY_UNAVAILABLE',
    `${facts.modelRef}: last artifact verification failed: ${facts.verification.message ?? facts.verification.code ?? 'unknown'}`,
  );
}

function servingRefusal(facts: DeployPolicyFacts): DeployPolicyDecision | null {
  const ref = facts.modelRef;
  if (facts.evaluation === null) {
    return refuse('EVALUATION_NOT_PASSED', `${ref}: no evaluation has run`);
  }
  if (!facts.evaluation.passed || facts.versionState === 'EvaluationFailed') {
    return refuse('EVALUATION_NOT_PASSED', `${ref}: evaluation suite ${facts.evaluation.suite} did not pass`);
  }
  if (facts.versionState !== 'Approved') {
    return refuse(
      'MODEL_VERSION_NOT_APPROVED',
      `${ref}: is ${facts.versionState}, only Approved versions serve`,
    );
  }
  return digestRefusal(facts);
}

function candidateRefusal(facts: DeployPolicyFacts): DeployPolicyDecision | null {
  const ref = facts.modelRef;
  if (OUT_OF_SERVICE.includes(facts.versionState)) {
    return refuse(
      'MODEL_VERSION_NOT_APPROVED',
      `${ref}: is ${facts.versionState}, no longer deployed, not even as a candidate`,
    );
  }
  const digest = digestRefusal(facts);
  if (digest !== null) return digest;
  if (UNVERIFIED.includes(facts.versionState)) {
    return refuse(
      'MODEL_VERSION_NOT_APPROVED',
      `${ref}: is ${facts.versionState}; a candidate must be Verified first (verifyModelVersion)`,
    );
  }
  return null;
}

export function decideDeployPolicy(
  facts: DeployPolicyFacts,
  purpose: DeploymentPurpose,
): DeployPolicyDecision {
  return (
    commonRefusal(facts) ??
    (purpose === 'Serving' ? servingRefusal(facts) : candidateRefusal(facts)) ?? { allowed: true }
  );
}
