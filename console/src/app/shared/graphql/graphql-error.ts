import type { ErrorHandler } from '@angular/core';
import { ErrorCode, type FieldViolation, isErrorCode, titleFor } from '@lunanexa/contracts/errors';

/**
 * Failures the console detects itself, when no GraphQL response came back to
 * carry a contract code, or the console failed on one that did. They never travel over the wire, so they live here
 * rather than in the v1 error vocabulary.
 */
export const TransportErrorCode = {
  /** No HTTP response at all: network down, API process not running, timeout. */
  API_UNREACHABLE: 'API_UNREACHABLE',
  /** An HTTP response that is not a GraphQL response (proxy error page, 404). */
  UNEXPECTED_RESPONSE: 'UNEXPECTED_RESPONSE',
  /** The console itself failed while handling an answer: a console bug, logged to the browser console. */
  CONSOLE_FAILURE: 'CONSOLE_FAILURE',
} as const;

export type TransportErrorCode = (typeof TransportErrorCode)[keyof typeof TransportErrorCode];

/**
 * Error codes the console can branch on. `code` on {@link GraphqlRequestError}
 * is typed as plain `string` because a newer API may add contract codes
 * (adding one is a compatible change) and the console must still show them
 * verbatim; compare against these constants or narrow with `isErrorCode`.
 */
export type KnownErrorCode = ErrorCode | TransportErrorCode;

export interface GraphqlErrorInit {
  readonly code: string;
  readonly message: string;
  readonly requestId: string;
  readonly correlationId: string;
  readonly httpStatus?: number | undefined;
  readonly violations?: readonly FieldViolation[] | undefined;
}

/** The one error type every GraphQL call rejects with (besides an abort). */
export class GraphqlRequestError extends Error {
  readonly code: string;
  /** The `x-request-id` of the failed call: the key to its log lines. */
  readonly requestId: string;
  /** The `x-correlation-id` of the flow the call belonged to. */
  readonly correlationId: string;
  readonly httpStatus: number | undefined;
  readonly violations: readonly FieldViolation[];
  /** When the console saw the failure; operators match it against log timestamps. */
  readonly at = new Date();

  constructor(init: GraphqlErrorInit) {
    super(init.message);
    this.name = 'GraphqlRequestError';
    this.code = init.code;
    this.requestId = init.requestId;
    this.correlationId = init.correlationId;
    this.httpStatus = init.httpStatus;
    this.violations = init.violations ?? [];
  }
}

/**
 * Every failure of an operator's action reaches the operator as a
 * {@link GraphqlRequestError} (an error panel, a toast), a console bug
 * included: anything else is reported to Angular's handler (the browser
 * console) and shown as CONSOLE_FAILURE.
 */
export function asRequestError(failure: unknown, errorHandler: ErrorHandler): GraphqlRequestError {
  if (failure instanceof GraphqlRequestError) {
    return failure;
  }
  errorHandler.handleError(failure);
  return new GraphqlRequestError({
    code: TransportErrorCode.CONSOLE_FAILURE,
    message: failure instanceof Error ? failure.message : 'The console failed to process the answer.',
    requestId: '',
    correlationId: '',
  });
}

/** A short, human heading for an error code. */
export function errorTitle(code: string): string {
  switch (code) {
    case TransportErrorCode.API_UNREACHABLE:
      return 'API unreachable';
    case TransportErrorCode.UNEXPECTED_RESPONSE:
      return 'Unexpected response from the API';
    case TransportErrorCode.CONSOLE_FAILURE:
      return 'Console error';
    default:
      return isErrorCode(code) ? titleFor(code) : code;
  }
}

/** The ids an operator pastes into a ticket or a log search, as plain text. */
export function errorReport(error: GraphqlRequestError): string {
  return [
    `code: ${error.code}`,
    `message: ${error.message}`,
    `request id: ${error.requestId}`,
    `correlation id: ${error.correlationId}`,
    ...(error.httpStatus === undefined ? [] : [`http status: ${error.httpStatus}`]),
    `time: ${error.at.toISOString()}`,
  ].join('\n');
}

interface ResponseIds {
  readonly requestId: string;
  readonly correlationId: string;
  readonly httpStatus?: number | undefined;
}

/**
 * Maps the `errors` array of a GraphQL response to one typed error. The first
 * error decides code and message (it is the one the API raised first); field
 * violations are collected from all of them so a form can mark every field.
 */
export function fromGraphqlErrors(errors: readonly unknown[], ids: ResponseIds): GraphqlRequestError {
  const first = asRecord(errors[0]);
  const firstExtensions = asRecord(first?.['extensions']);
  const code = stringOr(firstExtensions?.['code'], ErrorCode.INTERNAL);
  const message = stringOr(first?.['message'], 'The API reported an error without a message.');
  const violations = errors.flatMap((error) => violationsOf(asRecord(asRecord(error)?.['extensions'])));
  return new GraphqlRequestError({ code, message, violations, ...ids });
}

function violationsOf(extensions: Record<string, unknown> | undefined): FieldViolation[] {
  const raw = extensions?.['violations'];
  if (!Array.isArray(raw)) {
    return [];
  }
  return raw.flatMap((item: unknown) => {
    const violation = asRecord(item);
    const path = violation?.['path'];
    const message = violation?.['message'];
    return typeof path === 'string' && typeof message === 'string' ? [{ path, message }] : [];
  });
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.length > 0 ? value : fallback;
}
