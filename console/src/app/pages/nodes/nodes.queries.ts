import { graphqlOperation } from '../../shared/graphql/graphql-operation';

/*
 * Result shapes of the fleet queries and mutations this view sends, mirroring
 * the field names of apps/api/schema.gql (FleetNode, Assignment, Gpu, …).
 * Kept here rather than in shared/graphql/schema-types.ts while that file has
 * another owner; move them there when the shared mirror covers the fleet.
 * Lifecycle, readiness, intent and condition values are plain strings in
 * schema v1, so they are typed as such: a newer API may add values and the
 * console must still show them as sent.
 */

type DateTimeString = string;

export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string | null;
  readonly lastTransitionAt: DateTimeString;
}

export interface Label {
  readonly key: string;
  readonly value: string;
}

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
}

export interface Gpu {
  readonly index: number;
  readonly name: string;
  readonly uuid: string;
  readonly memoryModel: string;
  readonly memorySource: string;
  readonly totalMemoryBytes: number | null;
  readonly freeMemoryBytes: number | null;
  readonly computeCapability: string;
}

export interface Assignment {
  readonly id: string;
  readonly deploymentId: string;
  readonly nodeName: string;
  readonly generation: number;
  readonly intent: string;
  readonly leaseExpiresAt: DateTimeString;
  readonly ackedGeneration: number | null;
  readonly observedState: string | null;
  readonly observedGeneration: number | null;
  readonly endpointPort: number | null;
  readonly inFlight: number | null;
  readonly message: string | null;
  readonly observedAt: DateTimeString | null;
}

export interface FleetNode {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: string;
  readonly readiness: string;
  readonly conditions: readonly NodeCondition[];
  readonly cordoned: boolean;
  readonly labels: readonly Label[];
  readonly taints: readonly Taint[];
  readonly address: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
  readonly keyId: string;
  readonly nextKeyId: string | null;
  readonly credentialSerial: number;
  readonly credentialExpiresAt: DateTimeString | null;
  readonly leaseRenewedAt: DateTimeString | null;
  readonly leaseExpiresAt: DateTimeString | null;
  readonly heartbeatAgeSeconds: number | null;
  readonly architecture: string;
  readonly cpuCores: number;
  readonly systemMemoryBytes: number;
  readonly agentVersion: string;
  readonly agentProtocol: number;
  readonly agentOutdated: boolean;
  readonly agentOutdatedReason: string | null;
  readonly gpus: readonly Gpu[];
  readonly assignments: readonly Assignment[];
  readonly enrollWorkflowId: string;
  readonly temporalUiUrl: string;
  readonly enrolledAt: DateTimeString;
  readonly updatedAt: DateTimeString;
}

export interface BootstrapToken {
  readonly id: string;
  readonly prefix: string;
  readonly nodeName: string | null;
  readonly labels: readonly Label[];
  readonly autoApprove: boolean;
  readonly createdAt: DateTimeString;
  readonly createdBy: string;
  readonly expiresAt: DateTimeString;
  readonly usedAt: DateTimeString | null;
  readonly usedByNodeId: string | null;
  readonly revokedAt: DateTimeString | null;
}

export interface CreatedBootstrapToken {
  readonly token: string;
  readonly bootstrapToken: BootstrapToken;
  readonly controllerUrl: string;
  readonly controllerKeyFingerprint: string;
  readonly agentInvocation: string;
}

export interface NodeOperation {
  readonly node: FleetNode;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly correlationId: string;
  readonly receiptHash: string | null;
}

export interface DrainResult {
  readonly node: FleetNode;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly correlationId: string;
  readonly replicasAtStart: number;
  readonly inFlightAtStart: number;
  readonly inFlightAtTimeout: number;
  readonly receiptHash: string;
}

export interface LabelInput {
  readonly key: string;
  readonly value: string;
}

export interface TaintInput {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
}

export interface CreateBootstrapTokenInput {
  readonly nodeName?: string;
  readonly labels?: readonly LabelInput[];
  readonly ttlSeconds?: number;
  readonly autoApprove: boolean;
}

// One selection for every node a query or mutation returns, so a mutation's
// answer can replace the polled node without a gap in what the page shows.
const FLEET_NODE_FIELDS = `
  id
  name
  lifecycle
  readiness
  conditions { type status reason message lastTransitionAt }
  cordoned
  labels { key value }
  taints { key value effect }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
`;

const NODE_OPERATION_FIELDS = `
  node { ${FLEET_NODE_FIELDS} }
  workflowId
  temporalUiUrl
  correlationId
  receiptHash
`;

export const FLEET_NODES = graphqlOperation<{ readonly nodes: readonly FleetNode[] }>(`
  query ConsoleFleetNodes {
    nodes { ${FLEET_NODE_FIELDS} }
  }
`);

export const FLEET_NODE = graphqlOperation<{ readonly node: FleetNode | null }, { readonly node: string }>(`
  query ConsoleFleetNode($node: String!) {
    node(node: $node) { ${FLEET_NODE_FIELDS} }
  }
`);

export const CREATE_BOOTSTRAP_TOKEN = graphqlOperation<
  { readonly createBootstrapToken: CreatedBootstrapToken },
  { readonly input: CreateBootstrapTokenInput }
>(`
  mutation ConsoleCreateBootstrapToken($input: CreateBootstrapTokenInput!) {
    createBootstrapToken(input: $input) {
      token
      bootstrapToken {
        id
        prefix
        nodeName
        labels { key value }
        autoApprove
        createdAt
        createdBy
        expiresAt
        usedAt
        usedByNodeId
        revokedAt
      }
      controllerUrl
      controllerKeyFingerprint
      agentInvocation
    }
  }
`);

export const APPROVE_NODE = graphqlOperation<
  { readonly approveNode: NodeOperation },
  { readonly node: string }
>(`
  mutation ConsoleApproveNode($node: String!) {
    approveNode(node: $node) { ${NODE_OPERATION_FIELDS} }
  }
`);

export const CORDON_NODE = graphqlOperation<{ readonly cordonNode: FleetNode }, { readonly node: string }>(`
  mutation ConsoleCordonNode($node: String!) {
    cordonNode(node: $node) { ${FLEET_NODE_FIELDS} }
  }
`);

export const UNCORDON_NODE = graphqlOperation<
  { readonly uncordonNode: FleetNode },
  { readonly node: string }
>(`
  mutation ConsoleUncordonNode($node: String!) {
    uncordonNode(node: $node) { ${FLEET_NODE_FIELDS} }
  }
`);

export const DRAIN_NODE = graphqlOperation<
  { readonly drainNode: DrainResult },
  { readonly node: string; readonly idempotencyKey: string }
>(`
  mutation ConsoleDrainNode($node: String!, $idempotencyKey: String) {
    drainNode(node: $node, idempotencyKey: $idempotencyKey) {
      node { ${FLEET_NODE_FIELDS} }
      workflowId
      temporalUiUrl
      correlationId
      replicasAtStart
      inFlightAtStart
      inFlightAtTimeout
      receiptHash
    }
  }
`);

export const ROTATE_NODE_CREDENTIAL = graphqlOperation<
  { readonly rotateNodeCredential: NodeOperation },
  { readonly node: string; readonly idempotencyKey: string }
>(`
  mutation ConsoleRotateNodeCredential($node: String!, $idempotencyKey: String) {
    rotateNodeCredential(node: $node, idempotencyKey: $idempotencyKey) { ${NODE_OPERATION_FIELDS} }
  }
`);

export const SET_NODE_LABELS = graphqlOperation<
  { readonly setNodeLabels: FleetNode },
  { readonly node: string; readonly labels: readonly LabelInput[] }
>(`
  mutation ConsoleSetNodeLabels($node: String!, $labels: [LabelInput!]!) {
    setNodeLabels(node: $node, labels: $labels) { ${FLEET_NODE_FIELDS} }
  }
`);

export const SET_NODE_TAINTS = graphqlOperation<
  { readonly setNodeTaints: FleetNode },
  { readonly node: string; readonly taints: readonly TaintInput[] }
>(`
  mutation ConsoleSetNodeTaints($node: String!, $taints: [TaintInput!]!) {
    setNodeTaints(node: $node, taints: $taints) { ${FLEET_NODE_FIELDS} }
  }
`);
