import {
  ConsoleCreateDeploymentDocument,
  ConsolePlacementPlanDocument,
  type ConsolePlacementPlanQuery,
  ConsoleDeployChoicesDocument,
  ConsoleDeploymentDocument,
  ConsoleDeploymentRecoveriesDocument,
  ConsoleDeploymentsDocument,
  ConsoleRegisterModelVersionDocument,
  ConsoleStopDeploymentDocument,
  type ConsoleCreateDeploymentMutation,
  type ConsoleDeployChoicesQuery,
  type ConsoleDeploymentsQuery,
} from '@lunanexa/sdk/generated/operations';

/*
 * The deployment queries and mutations this view sends
 * (libs/sdk/graphql/console/deployments.graphql). Result types are generated
 * from each selection, so a field added to the schema is not claimed by a
 * query that does not select it. Every query and mutation that returns a
 * deployment selects the same fields, so a mutation's answer can stand in for
 * the polled one.
 */

export type Deployment = ConsoleDeploymentsQuery['deployments'][number];
/** One replica of a deployment on one node: desired (generation, intent, lease) and observed. */
export type DeploymentAssignment = Deployment['assignments'][number];
export type DeploymentOperation = ConsoleCreateDeploymentMutation['createDeployment'];
export type ModelVersion = ConsoleDeployChoicesQuery['modelVersions'][number];
/** What the deploy dialog needs of a node to offer it as a placement. */
export type PlacementNode = ConsoleDeployChoicesQuery['nodes'][number];

export const DEPLOYMENTS = ConsoleDeploymentsDocument;
export const DEPLOYMENT = ConsoleDeploymentDocument;
/** The deploy dialog's choices, in one request: model versions to serve and nodes to place on. */
export const DEPLOY_CHOICES = ConsoleDeployChoicesDocument;
export const CREATE_DEPLOYMENT = ConsoleCreateDeploymentDocument;
export const PLACEMENT_PLAN = ConsolePlacementPlanDocument;
export type PlacementPlan = ConsolePlacementPlanQuery['placementPlan'];
export const STOP_DEPLOYMENT = ConsoleStopDeploymentDocument;
export const REGISTER_MODEL_VERSION = ConsoleRegisterModelVersionDocument;

/** NodeRecovery receipts fleet-wide and the nodes' names: the deployment page keeps the runs that name it. */
export const DEPLOYMENT_RECOVERIES = ConsoleDeploymentRecoveriesDocument;
