import type { ModelVersionState } from '@lunanexa/contracts/lifecycle';
import { type Permission, REGISTRY_MUTATION_PERMISSIONS } from '@lunanexa/contracts/roles';

import type { ActionState } from '../deployments/deployment-rules';
import type { AliasUse, HardwareRequirements, ModelVersionDetail } from './models.queries';

/*
 * Type-only imports of the lifecycle lists (their modules build zod schemas):
 * each state and event named here is checked by the compiler or matches the
 * API's `allowedEvents` (libs/domain model-version-lifecycle.ts).
 */
const RETIRED = 'Retired' satisfies ModelVersionState;
const APPROVED = 'Approved' satisfies ModelVersionState;

/** The registry changes on operators' actions; a slow poll keeps a long-open page honest. */
export const REFRESH_INTERVAL_MS = 10_000;
/** While an evaluation runs, its progress is what the operator waits for. */
export const EVALUATION_PROGRESS_INTERVAL_MS = 2_000;

/** The route parameter of `/models/:ref` (`chat@1`). */
export const VERSION_REF_PARAM = 'ref';

export function versionDetailLink(ref: string): readonly string[] {
  return ['/models', ref];
}

export type VersionAction = 'verify' | 'evaluate' | 'approve' | 'deprecate' | 'reinstate' | 'retire';

export interface VersionActionView extends ActionState {
  readonly action: VersionAction;
  readonly label: string;
}

type Can = (permission: Permission) => boolean;

/**
 * What an operator may do with a version now: the role decides whether a
 * control is offered (REGISTRY_MUTATION_PERMISSIONS, the table the API
 * enforces), the version's lifecycle (`allowedEvents`) whether it is enabled.
 */
export function versionActions(
  version: Pick<ModelVersionDetail, 'state' | 'allowedEvents' | 'ref'>,
  can: Can,
): readonly VersionActionView[] {
  const allows = (event: string): boolean => version.allowedEvents.includes(event);
  const because = (what: string): string => `${version.ref} is ${version.state}; ${what}`;
  const verifiable = version.state !== RETIRED;
  return [
    {
      action: 'verify',
      label: 'Verify digest',
      offered: can(REGISTRY_MUTATION_PERMISSIONS.verifyModelVersion),
      enabled: verifiable,
      ...(verifiable ? {} : { reason: because('a retired version is never verified again') }),
    },
    {
      action: 'evaluate',
      label: 'Evaluate',
      // startEvaluation needs operate (apps/api/src/registry/evaluation.resolver.ts).
      offered: can('operate'),
      enabled: allows('startEvaluation'),
      ...(allows('startEvaluation')
        ? {}
        : { reason: because('only Verified, Evaluated or EvaluationFailed versions are evaluated') }),
    },
    {
      action: 'approve',
      label: 'Approve',
      offered: can(REGISTRY_MUTATION_PERMISSIONS.approveModelVersion),
      enabled: allows('approve'),
      ...(allows('approve') ? {} : { reason: because('only an Evaluated version is approved') }),
    },
    {
      action: 'deprecate',
      label: 'Deprecate',
      offered: can(REGISTRY_MUTATION_PERMISSIONS.deprecateModelVersion),
      enabled: allows('deprecate'),
      ...(allows('deprecate') ? {} : { reason: because('only an Approved version is deprecated') }),
    },
    // Reinstating and retiring are offered only where the lifecycle allows them: a button that can
    // never be enabled in most states would only crowd the page.
    ...(allows('reinstate')
      ? [
          {
            action: 'reinstate' as const,
            label: 'Reinstate',
            offered: can(REGISTRY_MUTATION_PERMISSIONS.reinstateModelVersion),
            enabled: true,
          },
        ]
      : []),
    ...(allows('retire') || allows('withdraw')
      ? [
          {
            action: 'retire' as const,
            // From Approved the only way out of service is the emergency withdrawal (no deprecation first).
            label: allows('retire') ? 'Retire' : 'Withdraw',
            offered: can(REGISTRY_MUTATION_PERMISSIONS.retireModelVersion),
            enabled: true,
          },
        ]
      : []),
  ];
}

/**
 * How a retirement is sent: `withdraw` when the lifecycle allows only the
 * emergency path (an Approved version), or when the operator chose it for a
 * Deprecated one. Null: neither move is allowed from this state.
 */
export function retirementMode(
  version: Pick<ModelVersionDetail, 'allowedEvents'>,
  withdrawChosen: boolean,
): { readonly withdraw: boolean; readonly choice: boolean } | null {
  const retire = version.allowedEvents.includes('retire');
  const withdraw = version.allowedEvents.includes('withdraw');
  if (!retire && !withdraw) {
    return null;
  }
  return { withdraw: withdraw && (!retire || withdrawChosen), choice: retire && withdraw };
}

export function canCreateModelVersion(can: Can): boolean {
  return can(REGISTRY_MUTATION_PERMISSIONS.createModelVersion);
}

/** What approving, deprecating, reinstating or retiring means, for the confirmation dialog. */
export function versionActionEffect(
  action: 'approve' | 'deprecate' | 'reinstate' | 'retire',
  version: Pick<ModelVersionDetail, 'ref' | 'license' | 'evaluation'>,
  serving: readonly AliasServing[] = [],
): string {
  const scope =
    serving.length === 0
      ? 'No alias serves it.'
      : `Serving it now: ${serving.map((use) => `${use.alias} (${use.how})`).join(', ')}.`;
  if (action === 'reinstate') {
    return `Reinstates ${version.ref} to Approved: rollouts may target it again. ${scope}`;
  }
  if (action === 'retire') {
    return (
      `Retires ${version.ref} for good: it is never served, verified or rolled out again, and cannot be ` +
      `reinstated. ${scope}`
    );
  }
  if (action === 'approve') {
    const evaluation = version.evaluation;
    const evaluated =
      evaluation === null
        ? 'It has no evaluation on record.'
        : `Its latest evaluation (${evaluation.suite}) ${evaluation.passed ? 'passed' : 'failed'}.`;
    return (
      `Approves ${version.ref} for rollouts: any alias may then be moved to it (license ` +
      `${version.license.name} is ${version.license.approvalState}). ${evaluated}`
    );
  }
  return (
    `Deprecates ${version.ref}: aliases that serve it keep serving it, but no new rollout may target it ` +
    `until it is reinstated. ${scope}`
  );
}

export function isApproved(version: Pick<ModelVersionDetail, 'state'>): boolean {
  return version.state === APPROVED;
}

/** "1.4 GiB" from a byte count. */
export function bytesText(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) {
    return '—';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** "7.2 B" parameters. */
export function parameterText(count: number | null): string {
  if (count === null) {
    return '—';
  }
  return count >= 1e9 ? `${(count / 1e9).toFixed(1)} B` : `${(count / 1e6).toFixed(0)} M`;
}

/** "2 × GPU, compute ≥ 8.0, CUDA ≥ 12.1, arm64/amd64, unified/discrete memory, ≥ 40.0 GiB". */
export function hardwareText(hardware: HardwareRequirements): string {
  const parts = [
    `${hardware.gpusPerReplica} GPU${hardware.gpusPerReplica === 1 ? '' : 's'} per replica`,
    `compute capability ${hardware.minComputeCapability}${
      hardware.maxComputeCapability === null ? '+' : `–${hardware.maxComputeCapability}`
    }`,
    hardware.minCudaVersion === null ? 'no CUDA dependency' : `CUDA ${hardware.minCudaVersion}+`,
    hardware.architectures.join(' or '),
    `${hardware.memoryModels.join(' or ')} memory`,
  ];
  if (hardware.minMemoryBytesPerReplica !== null) {
    parts.push(`${bytesText(hardware.minMemoryBytesPerReplica)} per replica`);
  }
  return parts.join(', ');
}

/**
 * Where the version asks for hardware its runtime cannot run on (an
 * architecture or memory model the runtime does not list). The placement
 * check against nodes is the API's (libs/domain hardware-compatibility); this
 * only names the mismatches a registry record carries by itself.
 */
export function runtimeMismatches(
  requirements: HardwareRequirements,
  supported: HardwareRequirements,
): readonly string[] {
  const mismatches: string[] = [];
  if (!requirements.architectures.some((arch) => supported.architectures.includes(arch))) {
    mismatches.push(
      `needs ${requirements.architectures.join(' or ')}; the runtime runs on ${supported.architectures.join(', ')}`,
    );
  }
  if (!requirements.memoryModels.some((memory) => supported.memoryModels.includes(memory))) {
    mismatches.push(
      `needs ${requirements.memoryModels.join(' or ')} memory; the runtime supports ${supported.memoryModels.join(', ')}`,
    );
  }
  return mismatches;
}

export interface AliasServing {
  readonly alias: string;
  /** "revision 2" or "canary at 10 %". */
  readonly how: string;
}

/** Aliases whose current revision is this version, and those a rollout is moving to it. */
export function aliasesServing(ref: string, aliases: readonly AliasUse[]): readonly AliasServing[] {
  const serving: AliasServing[] = [];
  for (const alias of aliases) {
    if (alias.current?.modelRef === ref) {
      serving.push({ alias: alias.name, how: `current revision ${alias.current.revision}` });
    }
    if (alias.activeRollout?.modelRef === ref) {
      serving.push({
        alias: alias.name,
        how: `canary at ${alias.canaryWeight} % (rollout ${alias.activeRollout.state})`,
      });
    }
  }
  return serving.sort((a, b) => a.alias.localeCompare(b.alias));
}

/** A sha256 digest shortened for a table; the detail shows it whole with a copy button. */
export function shortDigest(digest: string): string {
  const [algorithm, hex] = digest.includes(':') ? digest.split(':', 2) : ['', digest];
  return `${algorithm ? `${algorithm}:` : ''}${(hex ?? '').slice(0, 12)}…`;
}
