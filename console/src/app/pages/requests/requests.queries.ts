import {
  ConsoleRequestRecordsDocument,
  ConsoleRequestsDeploymentsDocument,
  ConsoleRequestsTrafficDocument,
  type ConsoleRequestsDeploymentsQuery,
} from '@lunanexa/sdk/generated/operations';

/*
 * What the Requests view reads (libs/sdk/graphql/console/requests.graphql):
 * the traffic report behind the charts and the per-deployment table, one page
 * of request records (metadata only: the gateway never keeps prompts or
 * replies), and the deployments to filter by and send playground requests to.
 */

export const REQUESTS_TRAFFIC = ConsoleRequestsTrafficDocument;
export const REQUEST_RECORDS = ConsoleRequestRecordsDocument;

/** A deployment as a choice: to filter the view by, or to send a playground request to. */
export type DeploymentChoice = ConsoleRequestsDeploymentsQuery['deployments'][number];
export const REQUESTS_DEPLOYMENTS = ConsoleRequestsDeploymentsDocument;
