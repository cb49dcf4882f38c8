import {
  AssignmentSchema,
  type Assignment,
  type AssignmentIntent,
  type Runtime,
  type TrustedSigningKeyRef,
} from '@lunanexa/contracts';
import {
  listTrustedSigningKeys,
  signedArtifactOf,
  type DeploymentRow,
  type ModelVersionRow,
  type NodeRow,
  type Queryable,
} from '@lunanexa/persistence';

/** Assignment ids are derived, so a retried placement finds the row it created. */
export function assignmentIdFor(deploymentId: string, nodeId: string): string {
  return `asg-${deploymentId}-${nodeId}`.slice(0, 128);
}

/** What the agent on `node` is told to do for one replica of `deployment`, at `generation`. */
export function buildAssignment(
  id: string,
  deployment: DeploymentRow,
  version: ModelVersionRow,
  node: Pick<NodeRow, 'id' | 'inventory'>,
  intent: AssignmentIntent,
  generation: number,
  leaseExpiresAt: Date,
  signingKeys: readonly TrustedSigningKeyRef[],
): Assignment {
  const runtime = version.runtime as Runtime;
  // The one key the artifact's signature names, if it is trusted and not revoked: the agent verifies against it.
  const { signature } = signedArtifactOf(version.artifact);
  const signingKey =
    signature === null ? undefined : signingKeys.find((key) => key.keyId === signature.keyId);
  return AssignmentSchema.parse({
    id,
    deploymentId: deployment.id,
    nodeId: node.id,
    generation,
    intent,
    leaseExpiresAt: leaseExpiresAt.toISOString(),
    modelVersion: version.ref,
    artifact: version.artifact,
    runtime: { id: runtime.id, kind: runtime.kind, packaging: runtime.packaging, launch: runtime.launch },
    gpuUuids:
      runtime.supportedHardware.gpusPerReplica > 0
        ? node.inventory.gpus.slice(0, runtime.supportedHardware.gpusPerReplica).map((gpu) => gpu.uuid)
        : [],
    env: version.runtimeEnv,
    ...(signature === null
      ? {}
      : {
          trustedSigningKeys: signingKey
            ? [{ keyId: signingKey.keyId, publicKey: signingKey.publicKey }]
            : [],
        }),
  });
}

/** The trusted keys an assignment may carry: registered and not revoked. */
export async function unrevokedSigningKeys(q: Queryable): Promise<TrustedSigningKeyRef[]> {
  return (await listTrustedSigningKeys(q))
    .filter((key) => key.revokedAt === null)
    .map((key) => ({ keyId: key.keyId, publicKey: key.publicKey }));
}

/** When a lease granted `leaseSeconds` from `now` runs out. */
export function leaseUntil(now: Date, leaseSeconds: number): Date {
  return new Date(now.getTime() + leaseSeconds * 1000);
}
