import { OPAQUE_ID_PATTERN } from '@lunanexa/contracts/correlation';
import {
  REGISTRY_MUTATION_PERMISSIONS,
  SIGNING_MUTATION_PERMISSIONS,
  type Permission,
} from '@lunanexa/contracts/roles';

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

/** Signing keys decide which artifacts are trusted: an administrator's decision, like the runtime allowlist. */
export function canManageSigningKeys(can: (permission: Permission) => boolean): boolean {
  return can(SIGNING_MUTATION_PERMISSIONS.registerSigningKey);
}

const PEM_PUBLIC_KEY = /^-----BEGIN PUBLIC KEY-----\s+[A-Za-z0-9+/=\s]+-----END PUBLIC KEY-----$/;
const RAW_ED25519_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** Why a key cannot be registered (null when it can be sent; the API verifies the key itself). */
export function signingKeyInputProblem(label: string, publicKey: string): string | null {
  const trimmed = label.trim();
  if (trimmed.length < 1 || trimmed.length > 200) return 'A label of 1 to 200 characters.';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return 'The label may not contain control characters.';
  const key = publicKey.trim();
  if (!PEM_PUBLIC_KEY.test(key) && !RAW_ED25519_BASE64.test(key))
    return 'An Ed25519 public key: base64 of its 32 raw bytes, or a PEM "BEGIN PUBLIC KEY" block.';
  return null;
}
