import { errorFromFailure, errorFromResponse, LunaNexaError } from './errors';
import type { Alias, AliasRevision, Deployment, Model, ModelVersion } from './generated/graphql';

/**
 * The operations this client sends, each checked against apps/api/schema.gql
 * by the SDK's drift test; the result types below pick the same fields from
 * the generated schema types, so a renamed or retyped field fails the build.
 */
export const OPERATOR_OPERATIONS = {
  models: `query SdkModels {
  models { name displayName description versions { ref state runtimeKind contextLength } }
}`,
  aliases: `query SdkAliases {
  aliases { name dataClass description currentRevision current { revision modelRef deploymentName } }
}`,
  deployments: `query SdkDeployments {
  deployments { name modelRef state desiredReplicas readyReplicas purpose }
}`,
} as const;

export type ModelSummary = Pick<Model, 'name' | 'displayName' | 'description'> & {
  readonly versions: readonly Pick<ModelVersion, 'ref' | 'state' | 'runtimeKind' | 'contextLength'>[];
};
export type AliasSummary = Pick<Alias, 'name' | 'dataClass' | 'description' | 'currentRevision'> & {
  readonly current: Pick<AliasRevision, 'revision' | 'modelRef' | 'deploymentName'> | null;
};
export type DeploymentSummary = Pick<
  Deployment,
  'name' | 'modelRef' | 'state' | 'desiredReplicas' | 'readyReplicas' | 'purpose'
>;

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
    return (await this.query<{ models: ModelSummary[] }>(OPERATOR_OPERATIONS.models, signal)).models;
  }

  async aliases(signal?: AbortSignal): Promise<readonly AliasSummary[]> {
    return (await this.query<{ aliases: AliasSummary[] }>(OPERATOR_OPERATIONS.aliases, signal)).aliases;
  }

  async deployments(signal?: AbortSignal): Promise<readonly DeploymentSummary[]> {
    return (await this.query<{ deployments: DeploymentSummary[] }>(OPERATOR_OPERATIONS.deployments, signal))
      .deployments;
  }

  private async query<T>(query: string, signal: AbortSignal | undefined): Promise<T> {
    let response: Response;
    try {
      response = await this.fetcher(`${this.options.apiUrl.replace(/\/+$/, '')}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.token}` },
        body: JSON.stringify({ query }),
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
