import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

/*
 * The deployment queries and mutations this view sends. Result types are
 * `Pick`s of the types generated from apps/api/schema.gql, naming exactly the
 * fields each selection asks for, so a field added to the schema is not
 * claimed by a query that does not select it. State, intent and lifecycle
 * values are plain strings in schema v1: a newer API may send values this
 * console does not know, and they are shown as sent.
 */

/** One replica of a deployment on one node: desired (generation, intent, lease) and observed. */
export type DeploymentAssignment = Pick<
  Schema.Assignment,
  | 'id'
  | 'nodeId'
  | 'nodeName'
  | 'generation'
  | 'intent'
  | 'leaseExpiresAt'
  | 'ackedGeneration'
  | 'observedState'
  | 'observedGeneration'
  | 'inFlight'
  | 'message'
  | 'observedAt'
>;

export interface Deployment extends Pick<
  Schema.Deployment,
  | 'id'
  | 'name'
  | 'modelRef'
  | 'purpose'
  | 'state'
  | 'stateReason'
  | 'generation'
  | 'observedGeneration'
  | 'desiredReplicas'
  | 'readyReplicas'
  | 'createdBy'
  | 'createdAt'
  | 'updatedAt'
  | 'workflowId'
  | 'temporalUiUrl'
> {
  readonly assignments: readonly DeploymentAssignment[];
  readonly placement: Schema.DeploymentPlacement | null;
}

export interface DeploymentOperation extends Pick<
  Schema.DeploymentOperation,
  'deploymentId' | 'workflowId' | 'temporalUiUrl' | 'correlationId'
> {
  /** Null until the workflow has written the record. */
  readonly deployment: Deployment | null;
}

export type ModelVersion = Pick<
  Schema.ModelVersion,
  'id' | 'ref' | 'model' | 'version' | 'runtimeKind' | 'state' | 'createdAt'
>;

/** What the deploy dialog needs of a node to offer it as a placement. */
export type PlacementNode = Pick<Schema.FleetNode, 'id' | 'name' | 'lifecycle' | 'readiness' | 'cordoned'>;

// One selection for every deployment a query or mutation returns, so a
// mutation's answer can stand in for the polled one.
const DEPLOYMENT_FIELDS = `
  id
  name
  modelRef
  purpose
  state
  stateReason
  generation
  observedGeneration
  desiredReplicas
  readyReplicas
  createdBy
  createdAt
  updatedAt
  workflowId
  temporalUiUrl
  assignments {
    id
    nodeId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    inFlight
    message
    observedAt
  }
  placement {
    decidedAt
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
    unplaced
  }
`;

const DEPLOYMENT_OPERATION_FIELDS = `
  deploymentId
  workflowId
  temporalUiUrl
  correlationId
  deployment { ${DEPLOYMENT_FIELDS} }
`;

const MODEL_VERSION_FIELDS = `
  id
  ref
  model
  version
  runtimeKind
  state
  createdAt
`;

export const DEPLOYMENTS = graphqlOperation<{ readonly deployments: readonly Deployment[] }>(`
  query ConsoleDeployments {
    deployments { ${DEPLOYMENT_FIELDS} }
  }
`);

export const DEPLOYMENT = graphqlOperation<
  { readonly deployment: Deployment | null },
  Readonly<Schema.QueryDeploymentArgs>
>(`
  query ConsoleDeployment($deployment: String!) {
    deployment(deployment: $deployment) { ${DEPLOYMENT_FIELDS} }
  }
`);

/** The deploy dialog's choices, in one request: model versions to serve and nodes to place on. */
export const DEPLOY_CHOICES = graphqlOperation<{
  readonly modelVersions: readonly ModelVersion[];
  readonly nodes: readonly PlacementNode[];
}>(`
  query ConsoleDeployChoices {
    modelVersions { ${MODEL_VERSION_FIELDS} }
    nodes { id name lifecycle readiness cordoned }
  }
`);

export const CREATE_DEPLOYMENT = graphqlOperation<
  { readonly createDeployment: DeploymentOperation },
  Readonly<Schema.MutationCreateDeploymentArgs>
>(`
  mutation ConsoleCreateDeployment($input: CreateDeploymentInput!) {
    createDeployment(input: $input) { ${DEPLOYMENT_OPERATION_FIELDS} }
  }
`);

export const STOP_DEPLOYMENT = graphqlOperation<
  { readonly stopDeployment: DeploymentOperation },
  Readonly<Schema.MutationStopDeploymentArgs>
>(`
  mutation ConsoleStopDeployment($deployment: String!) {
    stopDeployment(deployment: $deployment) { ${DEPLOYMENT_OPERATION_FIELDS} }
  }
`);

export const REGISTER_MODEL_VERSION = graphqlOperation<
  { readonly registerModelVersion: ModelVersion },
  Readonly<Schema.MutationRegisterModelVersionArgs>
>(`
  mutation ConsoleRegisterModelVersion($input: RegisterModelVersionInput!) {
    registerModelVersion(input: $input) { ${MODEL_VERSION_FIELDS} }
  }
`);
