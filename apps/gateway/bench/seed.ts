import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { hasGatewayKeysTable, queryableClient, seedBenchRoute, seedBenchTenant } from '@lunanexa/persistence';

/**
 * What the gateway needs in its database to route the bench's requests to
 * the fake runtime, inserted the way the control plane would leave it: a
 * node Active with a lease, a model version under the approved synthetic
 * license, a Serving deployment and a Ready assignment at its generation
 * with the runtime's port. Leases lie far in the future so no refresh during
 * the run drops the route.
 */

export const BENCH_MODEL = 'bench-model';
export const BENCH_VERSION = '1';
/** What the runtime serves and what direct and nginx requests name. */
export const BENCH_MODEL_REF = `${BENCH_MODEL}@${BENCH_VERSION}`;
/** What a tenant calls through the gateway: as long as the ref, so every target gets a body of the same size. */
export const BENCH_ALIAS = `${BENCH_MODEL}-${BENCH_VERSION}`;
export const BENCH_TENANT_ID = 'bench';
/** Completion length of every bench request. */
export const MAX_TOKENS = 16;
const PROMPT = 'Measure the proxy, not the model.';
export const BENCH_DEPLOYMENT_ID = 'dep-bench';

/** The built-in license that approves synthetic (fake-runtime) weights; allows every data class. */
const SYNTHETIC_LICENSE_ID = '00000000-0000-4000-8000-000000000001';
const CREATED_BY = 'data-plane-bench';

/** How the load generator calls the gateway, and the same headers for direct and nginx. */
export interface BenchCaller {
  /** `tenant-key`: a tenant's gateway key calling an alias; `none`: no credential, `model@version`. */
  readonly mode: 'tenant-key' | 'none';
  /** The `model` the gateway is asked for (direct and nginx always ask for BENCH_MODEL_REF). */
  readonly gatewayModel: string;
  /** Extra request headers, sent unchanged to every target (`authorization` when a key exists). */
  readonly headers: Readonly<Record<string, string>>;
  /** The key's display prefix, for the results (never the key). */
  readonly keyPrefix: string | null;
}

/** The replica the gateway routes to: the fake runtime on this machine. */
export async function seedRoute(sql: Client, runtimePort: number): Promise<void> {
  await seedBenchRoute(queryableClient(sql), {
    model: BENCH_MODEL,
    version: BENCH_VERSION,
    modelRef: BENCH_MODEL_REF,
    deploymentId: BENCH_DEPLOYMENT_ID,
    licenseId: SYNTHETIC_LICENSE_ID,
    createdBy: CREATED_BY,
    runtimePort,
  });
}

/** Whether the migrations created tenant gateway keys (the gateway then requires a credential). */
export async function hasGatewayKeys(sql: Client): Promise<boolean> {
  return hasGatewayKeysTable(queryableClient(sql));
}

/** `lnxk_` and 43 base64url characters (32 random bytes): the tenant key format. */
export function newGatewayKey(): string {
  return `lnxk_${randomBytes(32).toString('base64url')}`;
}

/**
 * A tenant with an alias on the bench deployment and a key for that alias:
 * the path a tenant's request takes (authentication, alias, quota
 * accounting).
 */
export async function seedTenantCaller(sql: Client): Promise<BenchCaller> {
  const key = newGatewayKey();
  const keyPrefix = key.slice(0, 'lnxk_'.length + 8);
  await seedBenchTenant(queryableClient(sql), {
    alias: BENCH_ALIAS,
    tenantId: BENCH_TENANT_ID,
    deploymentId: BENCH_DEPLOYMENT_ID,
    createdBy: CREATED_BY,
    key,
    keyPrefix,
  });
  return {
    mode: 'tenant-key',
    gatewayModel: BENCH_ALIAS,
    headers: { authorization: `Bearer ${key}` },
    keyPrefix,
  };
}

/** Before tenant keys exist the gateway takes anonymous `model@version` calls. */
export const ANONYMOUS_CALLER: BenchCaller = {
  mode: 'none',
  gatewayModel: BENCH_MODEL_REF,
  headers: {},
  keyPrefix: null,
};

/** The caller the gateway's schema allows: a tenant key on an alias when keys exist, anonymous otherwise. */
export async function seedCaller(sql: Client): Promise<BenchCaller> {
  return (await hasGatewayKeys(sql)) ? seedTenantCaller(sql) : ANONYMOUS_CALLER;
}

/** The request body; only `model` differs between targets, and never in length. */
export function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    stream,
    max_tokens: MAX_TOKENS,
    seed: 7,
    messages: [{ role: 'user', content: PROMPT }],
  });
}
