// No zod here: the console loads this file at start-up and must not pull a
// validation library into its first bundle. The schemas are in roles-schemas.ts.
/**
 * Operator roles and what each may do. The API enforces this table (its
 * deny-by-default guard); the console and the CLI read it to decide which
 * actions to offer. Roles are ordered: every role can do everything the roles
 * below it can.
 *
 * - `viewer`   — read-only queries.
 * - `operator` — additionally every mutation that changes fleet or system
 *                state (ping, enrollment, rollouts, …).
 * - `admin`    — additionally operator accounts and API tokens.
 *
 * Adding a role or a permission is compatible; renaming or removing one, or
 * taking a permission away from a role, is breaking (docs/CONTRACTS.md).
 */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Position in the order viewer < operator < admin. */
export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

/** True when `role` is `minimum` or above it. */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}

/** The lower of two roles: what an API token may do when its owner was demoted after it was issued. */
export function lowerRole(a: Role, b: Role): Role {
  return roleRank(a) <= roleRank(b) ? a : b;
}

/**
 * - `session`    — the caller's own identity and session (`me`, `logout`).
 * - `read`       — read-only queries of fleet and system state.
 * - `operate`    — mutations that change fleet or system state.
 * - `administer` — operator accounts and API tokens (create, change role,
 *                  disable, list, revoke); see also the mutation tables below.
 */
export const PERMISSIONS = ['session', 'read', 'operate', 'administer'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  viewer: ['session', 'read'],
  operator: ['session', 'read', 'operate'],
  admin: ['session', 'read', 'operate', 'administer'],
};

/**
 * The model registry's mutations and the permission each needs. Registering
 * and moving versions through their lifecycle is fleet work (`operate`);
 * deciding a license review and the runtime allowlist decide what may run on
 * the fleet at all, so they are `administer`, like credentials.
 */
export const REGISTRY_MUTATION_PERMISSIONS = {
  createModel: 'operate',
  createLicense: 'operate',
  approveLicense: 'administer',
  rejectLicense: 'administer',
  registerRuntime: 'operate',
  setRuntimeAllowed: 'administer',
  createModelVersion: 'operate',
  verifyModelVersion: 'operate',
  approveModelVersion: 'operate',
  deprecateModelVersion: 'operate',
  reinstateModelVersion: 'operate',
  retireModelVersion: 'operate',
} as const satisfies Readonly<Record<string, Permission>>;
export type RegistryMutation = keyof typeof REGISTRY_MUTATION_PERMISSIONS;

/**
 * Payload privacy's mutations: what is kept of tenants' prompts, and deleting
 * it on demand, decide who may see customer data — `administer`, like credentials.
 */
export const PRIVACY_MUTATION_PERMISSIONS = {
  setDataPolicy: 'administer',
  purgePayloadCaptures: 'administer',
} as const satisfies Readonly<Record<string, Permission>>;

/**
 * Tenants and gateway keys: who may call the data plane, which aliases and how
 * much — a credential decision, so `administer`, like operator accounts and
 * API tokens. Reading them (never a secret) is `read`.
 */
export const TENANCY_MUTATION_PERMISSIONS = {
  createTenant: 'administer',
  updateTenant: 'administer',
  createGatewayKey: 'administer',
  revokeGatewayKey: 'administer',
} as const satisfies Readonly<Record<string, Permission>>;

/**
 * Artifact signing trust: which Ed25519 keys vouch for model artifacts and
 * whether a tenant accepts unsigned versions decide what may run on the
 * fleet at all — `administer`, like license review. Reading them is `read`.
 */
export const SIGNING_MUTATION_PERMISSIONS = {
  registerSigningKey: 'administer',
  revokeSigningKey: 'administer',
  setTenantUnsignedPolicy: 'administer',
} as const satisfies Readonly<Record<string, Permission>>;

/** Evaluation's mutations: storing suites and profiles and evaluating a version are fleet work. */
export const EVALUATION_MUTATION_PERMISSIONS = {
  createEvaluationSuite: 'operate',
  createBenchmarkProfile: 'operate',
  startEvaluation: 'operate',
  startBenchmarkRun: 'operate',
} as const satisfies Readonly<Record<string, Permission>>;

export function roleHasPermission(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** The roles holding `permission`, lowest first. */
export function rolesWithPermission(permission: Permission): Role[] {
  return ROLES.filter((role) => roleHasPermission(role, permission));
}

/**
 * API tokens start with this prefix, so a bearer credential is recognisable
 * as an API token (and secret scanners can find leaked ones); anything else
 * in `Authorization: Bearer` is read as a session JWT.
 */
export const API_TOKEN_PREFIX = 'lnx_';

/** `operator:<username>` or `token:<display prefix>`: who an audit event or workflow says acted. */
export function operatorActor(username: string): string {
  return `operator:${username}`;
}

export function apiTokenActor(displayPrefix: string): string {
  return `token:${displayPrefix}`;
}

/** Operator usernames: stored lower-case; unique regardless of the case they were typed in. */
export const USERNAME_PATTERN = /^[a-z][a-z0-9._-]{1,63}$/;

/** Passwords set through the API: long enough to resist guessing, bounded so hashing cost is bounded. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;
