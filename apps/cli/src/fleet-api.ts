import { z } from 'zod';
import type { Conforms, Graphql, Narrow } from './generated-types';

/**
 * The fleet operations the CLI sends, and the shapes it reads back. State
 * names (lifecycle, readiness, deployment state) are read as plain strings:
 * the contract lets a newer API add states, and an older CLI should print
 * them rather than fail. test/schema.spec.ts validates every document here
 * against the API's committed schema.
 */

const LABEL_FIELDS = 'key value';
const TAINT_FIELDS = 'key value effect';
const ASSIGNMENT_FIELDS =
  'id deploymentId nodeId nodeName intent generation ackedGeneration observedGeneration observedState observedAt inFlight endpointPort leaseExpiresAt message';
const NODE_FIELDS = `id name lifecycle readiness cordoned heartbeatAgeSeconds address sshPort agentVersion agentProtocol agentOutdated agentOutdatedReason architecture cpuCores systemMemoryBytes hostKeyFingerprint keyId nextKeyId credentialSerial credentialExpiresAt leaseRenewedAt leaseExpiresAt enrolledAt updatedAt enrollWorkflowId temporalUiUrl labels { ${LABEL_FIELDS} } taints { ${TAINT_FIELDS} } conditions { type status reason message lastTransitionAt } gpus { index name uuid memoryModel memorySource totalMemoryBytes freeMemoryBytes computeCapability } assignments { ${ASSIGNMENT_FIELDS} }`;
const BOOTSTRAP_TOKEN_FIELDS = `id prefix nodeName labels { ${LABEL_FIELDS} } autoApprove createdBy createdAt expiresAt usedAt usedByNodeId revokedAt`;
const MODEL_VERSION_FIELDS = 'id ref model version runtimeKind artifactDigest createdAt createdBy';
const DEPLOYMENT_FIELDS = `id name modelRef purpose state stateReason desiredReplicas readyReplicas generation observedGeneration workflowId temporalUiUrl createdAt createdBy updatedAt assignments { ${ASSIGNMENT_FIELDS} }`;
const NODE_OPERATION_FIELDS = `workflowId temporalUiUrl correlationId receiptHash node { ${NODE_FIELDS} }`;
const DEPLOYMENT_OPERATION_FIELDS = `deploymentId workflowId temporalUiUrl correlationId deployment { ${DEPLOYMENT_FIELDS} }`;

export const FLEET_DOCUMENTS = {
  nodes: `query Nodes { nodes { ${NODE_FIELDS} } }`,
  node: `query Node($node: String!) { node(node: $node) { ${NODE_FIELDS} } }`,
  bootstrapTokens: `query BootstrapTokens { bootstrapTokens { ${BOOTSTRAP_TOKEN_FIELDS} } }`,
  createBootstrapToken: `mutation CreateBootstrapToken($input: CreateBootstrapTokenInput!) { createBootstrapToken(input: $input) { token agentInvocation controllerUrl controllerKeyFingerprint bootstrapToken { ${BOOTSTRAP_TOKEN_FIELDS} } } }`,
  revokeBootstrapToken: `mutation RevokeBootstrapToken($id: ID!) { revokeBootstrapToken(id: $id) { ${BOOTSTRAP_TOKEN_FIELDS} } }`,
  approveNode: `mutation ApproveNode($node: String!) { approveNode(node: $node) { ${NODE_OPERATION_FIELDS} } }`,
  rejectNode: `mutation RejectNode($node: String!, $reason: String!) { rejectNode(node: $node, reason: $reason) { ${NODE_OPERATION_FIELDS} } }`,
  setNodeLabels: `mutation SetNodeLabels($node: String!, $labels: [LabelInput!]!) { setNodeLabels(node: $node, labels: $labels) { ${NODE_FIELDS} } }`,
  setNodeTaints: `mutation SetNodeTaints($node: String!, $taints: [TaintInput!]!) { setNodeTaints(node: $node, taints: $taints) { ${NODE_FIELDS} } }`,
  // Aliased to `node` so cordon and uncordon read back through one schema.
  cordonNode: `mutation CordonNode($node: String!) { node: cordonNode(node: $node) { ${NODE_FIELDS} } }`,
  uncordonNode: `mutation UncordonNode($node: String!) { node: uncordonNode(node: $node) { ${NODE_FIELDS} } }`,
  drainNode: `mutation DrainNode($node: String!, $timeoutSeconds: Int!, $idempotencyKey: String) { drainNode(node: $node, timeoutSeconds: $timeoutSeconds, idempotencyKey: $idempotencyKey) { workflowId temporalUiUrl correlationId receiptHash replicasAtStart inFlightAtStart inFlightAtTimeout node { ${NODE_FIELDS} } } }`,
  rotateNodeCredential: `mutation RotateNodeCredential($node: String!, $idempotencyKey: String) { rotateNodeCredential(node: $node, idempotencyKey: $idempotencyKey) { ${NODE_OPERATION_FIELDS} } }`,
  registerModelVersion: `mutation RegisterModelVersion($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ${MODEL_VERSION_FIELDS} } }`,
  deployments: `query Deployments { deployments { ${DEPLOYMENT_FIELDS} } }`,
  deployment: `query Deployment($deployment: String!) { deployment(deployment: $deployment) { ${DEPLOYMENT_FIELDS} } }`,
  placementPlan: `query PlacementPlan($input: PlacementPlanInput!) { placementPlan(input: $input) { strategy replicas chosen { node reason } rejected { node reasons } unplaced } }`,
  createDeployment: `mutation CreateDeployment($input: CreateDeploymentInput!) { createDeployment(input: $input) { ${DEPLOYMENT_OPERATION_FIELDS} } }`,
  stopDeployment: `mutation StopDeployment($deployment: String!) { stopDeployment(deployment: $deployment) { ${DEPLOYMENT_OPERATION_FIELDS} } }`,
} as const;

const LabelSchema = z.object({ key: z.string(), value: z.string() });
const TaintSchema = z.object({ key: z.string(), value: z.string(), effect: z.string() });

export const AssignmentSchema = z.object({
  id: z.string(),
  deploymentId: z.string(),
  nodeId: z.string(),
  nodeName: z.string(),
  intent: z.string(),
  generation: z.number(),
  ackedGeneration: z.number().nullable(),
  observedGeneration: z.number().nullable(),
  observedState: z.string().nullable(),
  observedAt: z.string().nullable(),
  inFlight: z.number().nullable(),
  endpointPort: z.number().nullable(),
  leaseExpiresAt: z.string(),
  message: z.string().nullable(),
});
export type Assignment = Narrow<Graphql.Assignment, z.infer<typeof AssignmentSchema>>;
const assignmentConforms: Conforms<z.infer<typeof AssignmentSchema>, Assignment> = true;

export const FleetNodeSchema = z.object({
  id: z.string(),
  name: z.string(),
  lifecycle: z.string(),
  readiness: z.string(),
  cordoned: z.boolean(),
  heartbeatAgeSeconds: z.number().nullable(),
  address: z.string(),
  sshPort: z.number(),
  agentVersion: z.string(),
  agentProtocol: z.number(),
  agentOutdated: z.boolean(),
  agentOutdatedReason: z.string().nullable(),
  architecture: z.string(),
  cpuCores: z.number(),
  systemMemoryBytes: z.number(),
  hostKeyFingerprint: z.string(),
  keyId: z.string(),
  nextKeyId: z.string().nullable(),
  credentialSerial: z.number(),
  credentialExpiresAt: z.string().nullable(),
  leaseRenewedAt: z.string().nullable(),
  leaseExpiresAt: z.string().nullable(),
  enrolledAt: z.string(),
  updatedAt: z.string(),
  enrollWorkflowId: z.string(),
  temporalUiUrl: z.string(),
  labels: z.array(LabelSchema),
  taints: z.array(TaintSchema),
  conditions: z.array(
    z.object({
      type: z.string(),
      status: z.string(),
      reason: z.string(),
      message: z.string().nullable(),
      lastTransitionAt: z.string(),
    }),
  ),
  gpus: z.array(
    z.object({
      index: z.number(),
      name: z.string(),
      uuid: z.string(),
      memoryModel: z.string(),
      memorySource: z.string(),
      totalMemoryBytes: z.number().nullable(),
      freeMemoryBytes: z.number().nullable(),
      computeCapability: z.string(),
    }),
  ),
  assignments: z.array(AssignmentSchema),
});
export type FleetNode = Narrow<Graphql.FleetNode, z.infer<typeof FleetNodeSchema>>;
const fleetNodeConforms: Conforms<z.infer<typeof FleetNodeSchema>, FleetNode> = true;

export const BootstrapTokenSchema = z.object({
  id: z.string(),
  prefix: z.string(),
  nodeName: z.string().nullable(),
  labels: z.array(LabelSchema),
  autoApprove: z.boolean(),
  createdBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  usedAt: z.string().nullable(),
  usedByNodeId: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type BootstrapToken = Narrow<Graphql.BootstrapToken, z.infer<typeof BootstrapTokenSchema>>;
const bootstrapTokenConforms: Conforms<z.infer<typeof BootstrapTokenSchema>, BootstrapToken> = true;

export const CreatedBootstrapTokenSchema = z.object({
  token: z.string(),
  agentInvocation: z.string(),
  controllerUrl: z.string(),
  controllerKeyFingerprint: z.string(),
  bootstrapToken: BootstrapTokenSchema,
});
export type CreatedBootstrapToken = Narrow<
  Graphql.CreatedBootstrapToken,
  z.infer<typeof CreatedBootstrapTokenSchema>
>;
const createdBootstrapTokenConforms: Conforms<
  z.infer<typeof CreatedBootstrapTokenSchema>,
  CreatedBootstrapToken
> = true;

export const ModelVersionSchema = z.object({
  id: z.string(),
  ref: z.string(),
  model: z.string(),
  version: z.string(),
  runtimeKind: z.string(),
  artifactDigest: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type ModelVersion = Narrow<Graphql.ModelVersion, z.infer<typeof ModelVersionSchema>>;
const modelVersionConforms: Conforms<z.infer<typeof ModelVersionSchema>, ModelVersion> = true;

export const DeploymentSchema = z.object({
  id: z.string(),
  name: z.string(),
  modelRef: z.string(),
  purpose: z.string(),
  state: z.string(),
  stateReason: z.string().nullable(),
  desiredReplicas: z.number(),
  readyReplicas: z.number(),
  generation: z.number(),
  observedGeneration: z.number(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  updatedAt: z.string(),
  assignments: z.array(AssignmentSchema),
});
export type Deployment = Narrow<Graphql.Deployment, z.infer<typeof DeploymentSchema>>;
const deploymentConforms: Conforms<z.infer<typeof DeploymentSchema>, Deployment> = true;

export const NodeOperationSchema = z.object({
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  correlationId: z.string(),
  receiptHash: z.string().nullable(),
  node: FleetNodeSchema,
});
export type NodeOperation = Narrow<Graphql.NodeOperation, z.infer<typeof NodeOperationSchema>>;
const nodeOperationConforms: Conforms<z.infer<typeof NodeOperationSchema>, NodeOperation> = true;

export const DrainResultSchema = z.object({
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  correlationId: z.string(),
  receiptHash: z.string(),
  replicasAtStart: z.number(),
  inFlightAtStart: z.number(),
  inFlightAtTimeout: z.number(),
  node: FleetNodeSchema,
});
export type DrainResult = Narrow<Graphql.DrainResult, z.infer<typeof DrainResultSchema>>;
const drainResultConforms: Conforms<z.infer<typeof DrainResultSchema>, DrainResult> = true;

export const PlacementPlanSchema = z.object({
  strategy: z.string(),
  replicas: z.number(),
  chosen: z.array(z.object({ node: z.string(), reason: z.string() })),
  rejected: z.array(z.object({ node: z.string(), reasons: z.array(z.string()) })),
  unplaced: z.number(),
});
export type PlacementPlan = z.infer<typeof PlacementPlanSchema>;

export const DeploymentOperationSchema = z.object({
  deploymentId: z.string(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  correlationId: z.string(),
  deployment: DeploymentSchema.nullable(),
});
export type DeploymentOperation = Narrow<
  Graphql.DeploymentOperation,
  z.infer<typeof DeploymentOperationSchema>
>;
const deploymentOperationConforms: Conforms<
  z.infer<typeof DeploymentOperationSchema>,
  DeploymentOperation
> = true;

/** `{ <field>: <schema> }`: the data of a one-field GraphQL operation. */
export function dataOf<K extends string, T extends z.ZodType>(field: K, schema: T) {
  return z.object({ [field]: schema } as { [P in K]: T });
}

// Compile-time only: each response schema agrees with the generated GraphQL type it narrows.
void [
  assignmentConforms,
  fleetNodeConforms,
  bootstrapTokenConforms,
  createdBootstrapTokenConforms,
  modelVersionConforms,
  deploymentConforms,
  nodeOperationConforms,
  drainResultConforms,
  deploymentOperationConforms,
];
