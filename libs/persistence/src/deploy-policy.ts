import type { CompatibleHardware, DataClass, Runtime } from '@lunanexa/contracts';
import { fleetHardwareFit, type DeployPolicyFacts } from '@lunanexa/domain';
import type { ModelVersionRow, Queryable } from './fleet';
import { listPlacementNodeRows } from './placement-load';
import { findLicense, findRuntime } from './registry';
import { loadArtifactSignatureDecision } from './signing-keys';

/**
 * Everything the deploy gate (libs/domain `decideDeployPolicy`) decides on,
 * read from the registry and the fleet as they are now: the version's
 * license and its data classes, its runtime and whether that is on the
 * allowlist, whether one replica fits on any Active node, the latest
 * evaluation, the last recorded digest verification and the artifact
 * signature's verdict against the trusted keys as they are now (a key
 * revoked since registration refuses the next deployment).
 *
 * The one reader of these facts: `createDeployment` (api) and the rollout's
 * `checkRolloutPolicy` (activities) both call it, so the two paths cannot
 * disagree about a version. `dataClass` is the traffic's data class when one
 * is known (an alias's, for a rollout) and null otherwise.
 *
 * A license or runtime row that is missing reads as not approved / not
 * allowed: the gate refuses rather than guesses.
 */
export async function loadDeployPolicyFacts(
  q: Queryable,
  version: ModelVersionRow,
  options: {
    readonly dataClass: DataClass | null;
    /** The alias the deployment will serve (a rollout's): its tenants' unsigned policy applies. */
    readonly aliasName?: string | null;
    readonly now?: Date;
  },
): Promise<DeployPolicyFacts> {
  const license = await findLicense(q, version.licenseId);
  const runtime = await findRuntime(q, version.runtimeId);
  const licenseDocument = (license?.document ?? {}) as { allowedDataClasses?: DataClass[] };
  let hardware: { fits: boolean; reasons: readonly string[] };
  if (runtime) {
    const activeNodes = (await listPlacementNodeRows(q)).filter((node) => node.lifecycle === 'Active');
    hardware = fleetHardwareFit(
      version.requirements as CompatibleHardware,
      (runtime.document as Runtime).supportedHardware,
      activeNodes.map((node) => ({ name: node.name, inventory: node.inventory })),
    );
  } else {
    hardware = { fits: false, reasons: [`runtime ${version.runtimeId} is not registered`] };
  }
  const evaluation = version.evaluation as { passed: boolean; suite: string } | null;
  return {
    modelRef: version.ref,
    versionState: version.state,
    licenseName: license?.name ?? version.licenseId,
    licenseApproval: license?.approvalState ?? 'PendingReview',
    licenseAllowedDataClasses: licenseDocument.allowedDataClasses ?? [],
    dataClass: options.dataClass,
    runtimeId: version.runtimeId,
    runtimeAllowed: runtime?.allowed ?? false,
    hardwareFits: hardware.fits,
    hardwareReasons: hardware.reasons,
    evaluation: evaluation ? { passed: evaluation.passed, suite: evaluation.suite } : null,
    verification: version.verification,
    signature: await loadArtifactSignatureDecision(q, version, {
      aliasName: options.aliasName ?? null,
      now: options.now ?? new Date(),
    }),
  };
}
