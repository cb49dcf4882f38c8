import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type * as Schema from '@lunanexa/sdk/generated/graphql';

/*
 * What the Requests view reads: the traffic report behind the charts and the
 * per-deployment table, one page of request records (metadata only: the
 * gateway never keeps prompts or replies), and the deployments to filter by
 * and send playground requests to.
 */

const BUCKET_FIELDS = `
  start
  requests
  errors
  requestsPerSecond
  meanConcurrency
  latencyP50Ms
  latencyP95Ms
  latencyP99Ms
  ttftP50Ms
  ttftP95Ms
  completionTokens
`;

export const REQUESTS_TRAFFIC = graphqlOperation<
  { readonly traffic: Schema.TrafficReport },
  {
    readonly windowMinutes: number;
    readonly bucketSeconds: number;
    readonly deployment: string | null;
  }
>(`
  query ConsoleRequestsTraffic($windowMinutes: Int!, $bucketSeconds: Int!, $deployment: String) {
    traffic(windowMinutes: $windowMinutes, bucketSeconds: $bucketSeconds, deployment: $deployment) {
      windowStart
      windowEnd
      bucketSeconds
      inFlightNow
      queuedNow
      buckets { ${BUCKET_FIELDS} }
      totals { ${BUCKET_FIELDS} }
      deployments {
        deploymentId
        deploymentName
        modelRef
        inFlightNow
        queuedNow
        totals { ${BUCKET_FIELDS} }
      }
    }
  }
`);

export const REQUEST_RECORDS = graphqlOperation<
  { readonly requestRecords: Schema.RequestRecordPage },
  {
    readonly first: number;
    readonly before: string | null;
    readonly filter: Schema.RequestRecordFilter;
  }
>(`
  query ConsoleRequestRecords($first: Int!, $before: String, $filter: RequestRecordFilter) {
    requestRecords(first: $first, before: $before, filter: $filter) {
      nextBefore
      items {
        id
        requestId
        correlationId
        receivedAt
        finishedAt
        kind
        dialect
        requestedModel
        modelRef
        deploymentId
        deploymentName
        stream
        outcome
        errorCode
        httpStatus
        timeToFirstTokenMs
        durationMs
        promptTokens
        completionTokens
      }
    }
  }
`);

/** A deployment as a choice: to filter the view by, or to send a playground request to. */
export type DeploymentChoice = Pick<
  Schema.Deployment,
  'id' | 'name' | 'modelRef' | 'state' | 'readyReplicas' | 'desiredReplicas'
>;

export const REQUESTS_DEPLOYMENTS = graphqlOperation<{ readonly deployments: readonly DeploymentChoice[] }>(`
  query ConsoleRequestsDeployments {
    deployments { id name modelRef state readyReplicas desiredReplicas }
  }
`);
