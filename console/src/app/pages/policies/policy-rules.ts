import { OPAQUE_ID_PATTERN } from '@lunanexa/contracts/correlation';
import { REGISTRY_MUTATION_PERMISSIONS, type Permission } from '@lunanexa/contracts/roles';

import type { AllowlistRuntime, DataPolicy } from './policies.queries';

type Can = (permission: Permission) => boolean;

/** Data policies are an administrator's decision (setDataPolicy needs administer). */
export function canSetDataPolicy(can: Can): boolean {
  return can('administer');
}

export function canSetRuntimeAllowed(can: Can): boolean {
  return can(REGISTRY_MUTATION_PERMISSIONS.setRuntimeAllowed);
}

/** SetDataPolicyInput.retentionMode. */
export const RETENTION_MODES = ['none', 'days'] as const;
export const MAX_RETENTION_DAYS = 3650;
/** The tenant id requests without x-lunanexa-tenant-id count under. */
export const DEFAULT_TENANT = 'default';
/** Tenant ids are opaque ids, as the gateway reads them from x-lunanexa-tenant-id. */
export const TENANT_ID_PATTERN = OPAQUE_ID_PATTERN;

/** "kept 30 days" / "never kept". */
export function retentionText(policy: Pick<DataPolicy, 'retentionMode' | 'retentionDays'>): string {
  if (policy.retentionMode === 'days' && policy.retentionDays !== null) {
    return `kept ${policy.retentionDays} day${policy.retentionDays === 1 ? '' : 's'}, then deleted with a receipt`;
  }
  return policy.retentionMode === 'none' ? 'never kept' : policy.retentionMode;
}

/** What changing a runtime's allowlist flag does, for the confirmation. */
export function allowlistEffect(runtime: Pick<AllowlistRuntime, 'name' | 'version' | 'allowed'>): string {
  const name = `${runtime.name} ${runtime.version}`;
  return runtime.allowed
    ? `Takes ${name} off the runtime allowlist: no rollout may move an alias to a version on it. ` +
        'Deployments already running keep running.'
    : `Puts ${name} on the runtime allowlist: versions on it may be rolled out once approved.`;
}
