import { z } from 'zod';
import { ByteCountSchema, GenerationSchema, IsoTimestampSchema, NameSchema, OpaqueIdSchema } from './common';
import { ArtifactSchema } from './artifact';
import { DeploymentStateSchema } from './lifecycle';
import { GPU_UUID_PATTERN, LabelKeySchema, NodeLabelsSchema, TaintEffectSchema } from './node';
import { LaunchSpecSchema, RuntimeKindSchema, RuntimePackagingSchema } from './runtime';
import { ModelVersionRefSchema } from './workload';

/**
 * Desired state and its observation. `generation` increases with every change
 * of intent; `observedGeneration` is the newest generation the agents have
 * reported acting on. A deployment whose observedGeneration lags is still
 * converging, whatever its replica counts say.
 */

export const TolerationSchema = z
  .object({
    key: LabelKeySchema,
    /** Null tolerates the taint key with any effect. */
    effect: TaintEffectSchema.nullable(),
  })
  .strict();
export type Toleration = z.infer<typeof TolerationSchema>;

export const ReplicaResourcesSchema = z
  .object({
    gpus: z.int().min(0).max(64),
    /** Memory reserved per replica, fitted against the figure the node's memory model dictates. */
    memoryBytes: ByteCountSchema,
  })
  .strict();
export type ReplicaResources = z.infer<typeof ReplicaResourcesSchema>;

export const DeploymentSchema = z
  .object({
    id: OpaqueIdSchema,
    name: NameSchema,
    modelVersion: ModelVersionRefSchema,
    modelVersionId: OpaqueIdSchema,
    runtimeId: OpaqueIdSchema,
    state: DeploymentStateSchema,
    /** Why the deployment is in its state, e.g. "NoEligibleNode: 4 nodes filtered". Null when nothing to say. */
    stateReason: z.string().min(1).max(2048).nullable(),
    generation: GenerationSchema,
    observedGeneration: GenerationSchema,
    desiredReplicas: z.int().min(0).max(1024),
    /** Replicas the agents report at observedGeneration, in any state. */
    observedReplicas: z.int().min(0),
    /** Of those, the ones passing health checks and receiving traffic. */
    readyReplicas: z.int().min(0),
    resources: ReplicaResourcesSchema,
    nodeSelector: NodeLabelsSchema,
    tolerations: z.array(TolerationSchema).max(32),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
  })
  .strict()
  .superRefine((deployment, ctx) => {
    if (deployment.observedGeneration > deployment.generation) {
      ctx.addIssue({ code: 'custom', path: ['observedGeneration'], message: 'must not exceed generation' });
    }
    if (deployment.readyReplicas > deployment.observedReplicas) {
      ctx.addIssue({ code: 'custom', path: ['readyReplicas'], message: 'must not exceed observedReplicas' });
    }
  });
export type Deployment = z.infer<typeof DeploymentSchema>;

/**
 * How the scheduler ranks the nodes that can take a replica: Spread puts it
 * where the least memory is claimed (failure isolation, headroom), Binpack
 * where the most is claimed that still fits (keeps whole nodes free for big
 * models).
 */
export const PLACEMENT_STRATEGIES = ['Spread', 'Binpack'] as const;
export const PlacementStrategySchema = z.enum(PLACEMENT_STRATEGIES);
export type PlacementStrategy = z.infer<typeof PlacementStrategySchema>;

/**
 * Why a deployment exists, which decides the deploy gate it passes
 * (libs/domain `decideDeployPolicy`):
 *
 * - `Serving`: serves traffic — Approved versions only, the same gate as a
 *   rollout (rollouts create their canaries as Serving).
 * - `Candidate`: runs a version so it can be evaluated before approval; the
 *   gate minus evaluation and approval. Reachable only by its pinned
 *   `name@version`, never through an alias.
 */
export const DEPLOYMENT_PURPOSES = ['Serving', 'Candidate'] as const;
export const DeploymentPurposeSchema = z.enum(DEPLOYMENT_PURPOSES);
export type DeploymentPurpose = z.infer<typeof DeploymentPurposeSchema>;

/** What the controller wants a replica to be. */
/**
 * The scheduler's last decision for a deployment (deployments.placement):
 * the nodes it put replicas on and why, every node it passed over with its
 * reasons, and how many replicas found no node.
 */
export interface DeploymentPlacement {
  readonly decidedAt: string;
  readonly chosen: readonly { readonly node: string; readonly reason: string }[];
  readonly rejected: readonly { readonly node: string; readonly reasons: readonly string[] }[];
  readonly unplaced: number;
}

/** An Ed25519 public key by fingerprint, as an assignment carries it to the agent. */
export const TrustedSigningKeyRefSchema = z
  .object({
    keyId: z.string().regex(/^ed25519:[0-9a-f]{32}$/),
    /** Base64 of the raw 32-byte public key. */
    publicKey: z.string().regex(/^[A-Za-z0-9+/]{43}=$/),
  })
  .strict();
export type TrustedSigningKeyRef = z.infer<typeof TrustedSigningKeyRefSchema>;

export const ASSIGNMENT_INTENTS = ['Run', 'Stop'] as const;
export const AssignmentIntentSchema = z.enum(ASSIGNMENT_INTENTS);
export type AssignmentIntent = z.infer<typeof AssignmentIntentSchema>;

/**
 * One replica's desired state pushed to one node. The agent persists it,
 * rejects generations older than the newest it accepted (fencing), and stops
 * acting on it once `leaseExpiresAt` passes without renewal. It carries
 * everything the agent needs to act while the controller is away — and
 * nothing about who is calling the model. Signing is the envelope's job
 * (libs/agent-protocol).
 */
export const AssignmentSchema = z
  .object({
    id: OpaqueIdSchema,
    deploymentId: OpaqueIdSchema,
    nodeId: OpaqueIdSchema,
    generation: GenerationSchema,
    intent: AssignmentIntentSchema,
    leaseExpiresAt: IsoTimestampSchema,
    modelVersion: ModelVersionRefSchema,
    artifact: ArtifactSchema,
    runtime: z
      .object({
        id: OpaqueIdSchema,
        kind: RuntimeKindSchema,
        packaging: RuntimePackagingSchema,
        launch: LaunchSpecSchema,
      })
      .strict(),
    /** GPUs this replica is pinned to (by uuid: indexes can change across reboots). */
    gpuUuids: z.array(z.string().regex(GPU_UUID_PATTERN)).max(64),
    /** Values for the runtime's allowlisted variables; the agent refuses names outside the allowlist. */
    env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/), z.string().max(4096)),
    /**
     * The trusted, unrevoked Ed25519 key the artifact's provenance signature
     * names, as the controller knew it when it built the assignment (the
     * envelope signature covers it). The agent verifies the signature
     * against it before starting a runtime and refuses with
     * SIGNATURE_INVALID when it does not verify or the key is absent.
     * Omitted for unsigned artifacts.
     */
    trustedSigningKeys: z.array(TrustedSigningKeyRefSchema).max(8).optional(),
  })
  .strict()
  .superRefine((assignment, ctx) => {
    const allowed = new Set(assignment.runtime.launch.envAllowlist);
    for (const name of Object.keys(assignment.env)) {
      if (!allowed.has(name)) {
        ctx.addIssue({ code: 'custom', path: ['env', name], message: 'is not in the runtime envAllowlist' });
      }
    }
  });
export type Assignment = z.infer<typeof AssignmentSchema>;

/**
 * How the gateway picks a deployment's replica for a request
 * (libs/domain routing.ts):
 *
 * - `round-robin`: the next replica in rotation that has room; ignores what
 *   the runtimes report.
 * - `least-loaded`: the replica with the fewest requests running and queued
 *   (this gateway's count plus the runtime's own queue), avoiding one whose
 *   KV cache is nearly full. The default.
 * - `prefix-affinity`: the replica a hash of the system prompt and first
 *   user message maps to on a consistent-hash ring, so a repeated prefix
 *   finds its KV cache warm; bounded load: never above 1.25× the mean in flight.
 */
export const ROUTING_POLICIES = ['round-robin', 'least-loaded', 'prefix-affinity'] as const;
export const RoutingPolicySchema = z.enum(ROUTING_POLICIES);
export type RoutingPolicy = z.infer<typeof RoutingPolicySchema>;
export const DEFAULT_ROUTING_POLICY: RoutingPolicy = 'least-loaded';
