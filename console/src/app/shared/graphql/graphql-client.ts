import { Injectable, InjectionToken, inject } from '@angular/core';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER, isOpaqueId } from '@lunanexa/contracts/correlation';

import { Session } from '../session/session';
import { GraphqlRequestError, TransportErrorCode, fromGraphqlErrors } from './graphql-error';
import type { GraphqlOperation, GraphqlVariables } from './graphql-operation';
import { randomId } from './random-id';

/**
 * Where GraphQL requests go. The API serves the console and `/graphql` from
 * one origin, so a path is enough; override it only in tests.
 */
export const GRAPHQL_ENDPOINT = new InjectionToken<string>('GRAPHQL_ENDPOINT', {
  providedIn: 'root',
  factory: () => '/graphql',
});

/** Long enough for a slow dependency check, short enough that a hung API turns into an error panel. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * For mutations that wait for their workflow (approve, drain, deploy, stop,
 * rotate): the API answers within its own workflow wait (30 s by default,
 * a drain's in-flight timeout on top), so the console must wait longer than
 * that or it reports a failure while the operation carries on.
 */
export const WORKFLOW_CALL_TIMEOUT_MS = 180_000;

/**
 * One operator flow (a page visit, a wizard, a rollout being watched). Every
 * call in the flow sends the same `x-correlation-id`, so the API logs, the
 * workflows it starts and their audit receipts can all be found from it.
 *
 * The id is minted here rather than taken from the first response because a
 * flow's first calls often run in parallel and must not end up in two flows,
 * and because an error panel needs the id even when the API never answered.
 * If the API answers with a different id, that one is kept from then on.
 */
export class GraphqlFlow {
  #correlationId: string;

  constructor(correlationId: string) {
    this.#correlationId = correlationId;
  }

  get correlationId(): string {
    return this.#correlationId;
  }

  /** Keeps the correlation id the API echoed; returns the id now in force. */
  adopt(echoed: string | null): string {
    if (echoed !== null && isOpaqueId(echoed)) {
      this.#correlationId = echoed;
    }
    return this.#correlationId;
  }
}

/**
 * What the call authenticates with.
 *
 * - `session` (default): this tab's session token, if there is one. When the
 *   API refuses it (UNAUTHENTICATED, TOKEN_EXPIRED) the session ends and the
 *   operator is sent to sign in.
 * - `none`: no credential, for `login`, whose UNAUTHENTICATED means wrong
 *   credentials rather than an ended session.
 * - `{ bearer }`: a token this tab no longer holds as its session, such as
 *   the one sign-out ends; a refusal of it changes nothing here.
 */
export type GraphqlCredential = 'session' | 'none' | { readonly bearer: string };

export interface GraphqlRequestOptions {
  /** The flow the call belongs to; without one the call is a flow of its own. */
  readonly flow?: GraphqlFlow;
  /** Cancels the call; the promise then rejects with the abort reason, not a GraphqlRequestError. */
  readonly signal?: AbortSignal;
  readonly credential?: GraphqlCredential;
  /** How long to wait for the answer; {@link WORKFLOW_CALL_TIMEOUT_MS} for workflow-backed mutations. */
  readonly timeoutMs?: number;
}

interface ResponseIds {
  readonly requestId: string;
  readonly correlationId: string;
  readonly httpStatus: number;
}

/**
 * A successful call's data with the ids it ran under, for a receipt that
 * must name the call (a workflow an operator started from a dialog).
 */
export interface GraphqlResult<TData> {
  readonly data: TData;
  /** The `x-request-id` of the call, as the API echoed it: the key to its log lines. */
  readonly requestId: string;
  /** The `x-correlation-id` of the flow the call belonged to, as the API echoed it. */
  readonly correlationId: string;
}

/**
 * The console's only way to talk to the API. Each call gets a fresh
 * `x-request-id` and, unless told otherwise, the session token; every
 * failure (GraphQL errors, HTTP errors, no response) rejects with a
 * {@link GraphqlRequestError} that carries the ids an operator needs to find
 * the call in the logs.
 */
@Injectable({ providedIn: 'root' })
export class GraphqlClient {
  private readonly endpoint = inject(GRAPHQL_ENDPOINT);
  private readonly session = inject(Session);

  startFlow(): GraphqlFlow {
    return new GraphqlFlow(randomId());
  }

  async request<TData, TVariables extends GraphqlVariables>(
    operation: GraphqlOperation<TData, TVariables>,
    variables: TVariables,
    options: GraphqlRequestOptions = {},
  ): Promise<TData> {
    return (await this.requestWithIds(operation, variables, options)).data;
  }

  /**
   * {@link request}, answering with the request and correlation ids of the
   * call as well as its data. A failure carries the same ids on its
   * {@link GraphqlRequestError}; this is how a success gets them.
   */
  async requestWithIds<TData, TVariables extends GraphqlVariables>(
    operation: GraphqlOperation<TData, TVariables>,
    variables: TVariables,
    options: GraphqlRequestOptions = {},
  ): Promise<GraphqlResult<TData>> {
    const flow = options.flow ?? this.startFlow();
    const credential = options.credential ?? 'session';
    const bearer =
      credential === 'none'
        ? undefined
        : credential === 'session'
          ? this.session.accessToken()
          : credential.bearer;
    const requestId = randomId();
    const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

    const unreachable = (cause: unknown): unknown => {
      if (options.signal?.aborted) {
        return options.signal.reason ?? cause;
      }
      return new GraphqlRequestError({
        code: TransportErrorCode.API_UNREACHABLE,
        message: timeout.aborted
          ? `The API did not answer within ${timeoutMs / 1000} s.`
          : 'The API could not be reached. Check that the API process is running and the network path to it.',
        requestId,
        correlationId: flow.correlationId,
      });
    };

    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          [REQUEST_ID_HEADER]: requestId,
          [CORRELATION_ID_HEADER]: flow.correlationId,
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        body: JSON.stringify({
          operationName: operation.operationName,
          query: operation.document,
          variables,
        }),
        signal,
      });
    } catch (cause: unknown) {
      throw unreachable(cause);
    }

    const ids: ResponseIds = {
      // Prefer what the API echoed: it is what its log lines carry.
      requestId: response.headers.get(REQUEST_ID_HEADER) ?? requestId,
      correlationId: flow.adopt(response.headers.get(CORRELATION_ID_HEADER)),
      httpStatus: response.status,
    };

    let text: string;
    try {
      text = await response.text();
    } catch (cause: unknown) {
      throw unreachable(cause);
    }

    const body = parseJsonObject(text);
    const errors = body?.['errors'];
    if (Array.isArray(errors) && errors.length > 0) {
      const error = fromGraphqlErrors(errors, ids);
      if (credential === 'session' && bearer !== undefined) {
        // Ends the session only if the refused token is still the one in force.
        this.session.refused(bearer, error.code);
      }
      throw error;
    }
    const data = body?.['data'];
    if (response.ok && typeof data === 'object' && data !== null) {
      // The API validated the operation against its schema, so the shape is the operation's result type.
      return { data: data as TData, requestId: ids.requestId, correlationId: ids.correlationId };
    }
    throw notGraphql(response, ids);
  }
}

function notGraphql(response: Response, ids: ResponseIds): GraphqlRequestError {
  // 502/503/504 without a GraphQL body come from whatever sits in front of the
  // API (a proxy or load balancer) when the API itself is down.
  const gatewayFailure = response.status === 502 || response.status === 503 || response.status === 504;
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return new GraphqlRequestError({
    code: gatewayFailure ? TransportErrorCode.API_UNREACHABLE : TransportErrorCode.UNEXPECTED_RESPONSE,
    message: gatewayFailure
      ? `${status}: the API behind this address is not answering.`
      : `${status}: the answer was not a GraphQL response.`,
    ...ids,
  });
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
