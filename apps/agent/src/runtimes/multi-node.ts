import type { RuntimeContext, RuntimeHealth, RuntimeSpec } from './adapter';
import { RuntimeError } from './errors';

/**
 * Multi-node inference (one model sharded across nodes, e.g. tensor or
 * pipeline parallel over the network) — the interface only. It stays
 * disabled until a combination of model, runtime and network profile has been
 * validated end to end; until then every request for it is refused with
 * MULTI_NODE_NOT_VALIDATED and replicas are single-node.
 */

/** The combination a multi-node deployment would have to be validated for. */
export interface MultiNodeProfile {
  readonly modelVersion: string;
  readonly runtimeId: string;
  /** The interconnect the shards talk over, e.g. `connectx-7-200g` or `ethernet-10g`. */
  readonly networkProfile: string;
}

/** One node's part of a multi-node replica. */
export interface MultiNodeMember {
  readonly nodeId: string;
  /** 0 is the leader, whose endpoint serves the OpenAI API. */
  readonly rank: number;
  readonly spec: RuntimeSpec;
}

export interface MultiNodeRuntimeSpec {
  readonly profile: MultiNodeProfile;
  readonly members: readonly MultiNodeMember[];
}

export interface MultiNodeRuntimeHandle {
  /** The leader's OpenAI-compatible endpoint. */
  readonly endpoint: string;
  readonly members: readonly { readonly nodeId: string; readonly rank: number }[];
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

export interface MultiNodeRuntimeAdapter {
  readonly profile: MultiNodeProfile;
  start(spec: MultiNodeRuntimeSpec, ctx: RuntimeContext): Promise<MultiNodeRuntimeHandle>;
  /** Ready only when every member is. */
  health(handle: MultiNodeRuntimeHandle): Promise<RuntimeHealth>;
}

/**
 * The adapter for a multi-node profile. No profile is validated yet, so this
 * always refuses; a validated profile gets its adapter here, and only then.
 */
export function multiNodeRuntimeAdapter(profile: MultiNodeProfile): MultiNodeRuntimeAdapter {
  throw new RuntimeError(
    'MULTI_NODE_NOT_VALIDATED',
    `multi-node inference is not validated for model ${profile.modelVersion} on runtime ${profile.runtimeId} ` +
      `over network profile ${profile.networkProfile}; replicas run on a single node`,
  );
}
