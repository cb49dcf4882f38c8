export { CONTRACT_VERSION, SDK_VERSION } from './version';
export { LunaNexaError } from './errors';
export {
  GatewayClient,
  type CallOptions,
  type ChatCompletionStream,
  type ChatUsage,
  type DiscoveredModel,
  type GatewayClientOptions,
  type ModelDiscovery,
  type ServingHealth,
  type ResponseIds,
} from './gateway-client';
export {
  OperatorClient,
  OPERATOR_OPERATIONS,
  type AliasSummary,
  type DeploymentSummary,
  type ModelSummary,
  type OperatorClientOptions,
} from './operator-client';
export { DEFAULT_RETRY_POLICY, retryableFailure, retryableStatus, type RetryPolicy } from './retry';
export type * as Gateway from './generated/gateway';
export { GATEWAY_ERROR_STATUS, type GatewayErrorCode } from './generated/gateway';
export type * as Graphql from './generated/graphql';
