import { errorFromFailure, errorFromResponse, LunaNexaError } from './errors';
import {
  SdkAliasesDocument,
  SdkDeploymentsDocument,
  SdkModelsDocument,
  type SdkAliasesQuery,
  type SdkDeploymentsQuery,
  type SdkModelsQuery,
  type TypedDocument,
} from './generated/operations';

/**
 * The operations this client sends (libs/sdk/graphql/sdk/operator.graphql), validated against
 * apps/api/schema.gql by the generator; their result types are generated from the same
 * documents, so a renamed or retyped field fails the build.
 */
export const OPERATOR_OPERATIONS = {
  models: SdkModelsDocument.document,
  aliases: SdkAliasesDocument.document,
  deployments: SdkDeploymentsDocument.document,
} as const;

export type ModelSummary = SdkModelsQuery['models'][number];
export type AliasSummary = SdkAliasesQuery['aliases'][number];
export type DeploymentSummary = SdkDeploymentsQuery['deployments'][number];

export interface OperatorClientOptions {
  /** The API's base URL (its GraphQL endpoint is `/graphql`). */
  readonly apiUrl: string;
  /** An operator token. */
  readonly token: string;
  readonly fetch?: typeof fetch;
}

interface GraphqlAnswer<T> {
  readonly data?: T | null;
  readonly errors?: readonly {
    readonly message: string;
    readonly extensions?: {
      readonly code?: string;
      readonly requestId?: string;
      readonly correlationId?: string;
    };
  }[];
}

/** Discovery on the operator API: models and their versions, aliases, deployments. Queries only, so retried by nobody but the caller. */
export class OperatorClient {
  private readonly fetcher: typeof fetch;
  constructor(private readonly options: OperatorClientOptions) {
    this.fetcher = options.fetch ?? fetch;
  }

  async models(signal?: AbortSignal): Promise<readonly ModelSummary[]> {
    return (await this.query(SdkModelsDocument, signal)).models;
  }

  async aliases(signal?: AbortSignal): Promise<readonly AliasSummary[]> {
    return (await this.query(SdkAliasesDocument, signal)).aliases;
  }

  async deployments(signal?: AbortSignal): Promise<readonly DeploymentSummary[]> {
    return (await this.query(SdkDeploymentsDocument, signal)).deployments;
  }

  private async query<T>(
    operation: TypedDocument<T, Record<string, never>>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    let response: Response;
    try {
      response = await this.fetcher(`${this.options.apiUrl.replace(/\/+$/, '')}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.token}` },
        body: JSON.stringify({ query: operation.document }),
        signal,
      });
    } catch (error) {
      throw errorFromFailure(error, signal);
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const correlationId = response.headers.get('x-correlation-id') ?? undefined;
    let answer: GraphqlAnswer<T>;
    try {
      answer = (await response.clone().json()) as GraphqlAnswer<T>;
    } catch {
      throw await errorFromResponse(response);
    }
    const first = answer.errors?.[0];
    if (first !== undefined || !answer.data) {
      throw new LunaNexaError(
        first?.message ?? `HTTP ${response.status}`,
        first?.extensions?.code ?? `HTTP_${response.status}`,
        response.status,
        first?.extensions?.requestId ?? requestId,
        first?.extensions?.correlationId ?? correlationId,
        undefined,
      );
    }
    return answer.data;
  }
}
