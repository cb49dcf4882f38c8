import { HttpException } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ErrorCode, LunaNexaError, isErrorCode, type FieldViolation } from '@lunanexa/contracts';

/** class-validator errors → one VALIDATION_FAILED with a violation per field. */
export function validationErrorToLunaNexa(errors: ValidationError[]): LunaNexaError {
  const violations: FieldViolation[] = [];
  const walk = (list: ValidationError[], prefix: string) => {
    for (const error of list) {
      const path = prefix ? `${prefix}.${error.property}` : error.property;
      for (const message of Object.values(error.constraints ?? {})) violations.push({ path, message });
      if (error.children?.length) walk(error.children, path);
    }
  };
  walk(errors, '');
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'input failed validation', violations);
}

/** Apollo's own codes for documents it cannot parse or validate, mapped onto ours. */
const APOLLO_CODE_MAP: Readonly<Record<string, ErrorCode>> = {
  GRAPHQL_PARSE_FAILED: ErrorCode.MALFORMED_REQUEST,
  GRAPHQL_VALIDATION_FAILED: ErrorCode.VALIDATION_FAILED,
  BAD_USER_INPUT: ErrorCode.VALIDATION_FAILED,
  BAD_REQUEST: ErrorCode.MALFORMED_REQUEST,
  PERSISTED_QUERY_NOT_FOUND: ErrorCode.MALFORMED_REQUEST,
  PERSISTED_QUERY_NOT_SUPPORTED: ErrorCode.MALFORMED_REQUEST,
  OPERATION_RESOLUTION_FAILURE: ErrorCode.VALIDATION_FAILED,
};

const HTTP_STATUS_CODE_MAP: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.VALIDATION_FAILED,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  429: ErrorCode.RATE_LIMITED,
  503: ErrorCode.DEPENDENCY_UNAVAILABLE,
};

/** Any thrown value → a LunaNexaError; unknown failures become INTERNAL without leaking details. */
export function toLunaNexaError(error: unknown): { error: LunaNexaError; expected: boolean } {
  if (error instanceof LunaNexaError) return { error, expected: true };
  const bodyParserFailure = bodyParserCode(error);
  if (bodyParserFailure)
    return { error: new LunaNexaError(bodyParserFailure, bodyParserMessage(error)), expected: true };
  if (error instanceof HttpException) {
    const code = HTTP_STATUS_CODE_MAP[error.getStatus()] ?? ErrorCode.INTERNAL;
    return { error: new LunaNexaError(code, error.message), expected: code !== ErrorCode.INTERNAL };
  }
  if (databaseUnavailable(error)) {
    // Still logged (not expected), but the caller learns it is worth retrying, not a bug of ours.
    return {
      error: new LunaNexaError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'the database did not answer in time; retry',
      ),
      expected: false,
    };
  }
  return { error: new LunaNexaError(ErrorCode.INTERNAL, 'internal error'), expected: false };
}

/** SQLSTATEs of a server that refuses connections for now: admin shutdown, starting up, too many clients. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P03', '53300']);

/**
 * PostgreSQL out of reach or saturated: no pooled connection within the pool's
 * timeout (pg-pool's own message), refused or dropped connections, a server
 * that is shutting down or full.
 */
export function databaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code === 'ECONNREFUSED')) return true;
  return (
    error.message === 'timeout exceeded when trying to connect' ||
    error.message === 'Connection terminated unexpectedly' ||
    error.message === 'Connection terminated due to connection timeout'
  );
}

/**
 * Apollo `formatError`: every error leaves with one of our codes in
 * `extensions.code`. Unexpected errors are reported by the caller's logger and
 * reach the client as INTERNAL with no stack or message.
 */
export function formatGraphQLError(
  formatted: GraphQLFormattedError,
  error: unknown,
  report: (error: unknown) => void,
): GraphQLFormattedError {
  const original = error instanceof GraphQLError ? (error.originalError ?? undefined) : error;
  const apolloCode = formatted.extensions?.['code'];
  if (!original || original instanceof GraphQLError) {
    const mapped = typeof apolloCode === 'string' ? APOLLO_CODE_MAP[apolloCode] : undefined;
    if (mapped)
      return { message: formatted.message, locations: formatted.locations, extensions: { code: mapped } };
    if (typeof apolloCode === 'string' && isErrorCode(apolloCode)) return formatted;
  }
  const { error: typed, expected } = toLunaNexaError(original);
  if (!expected) report(original ?? error);
  return {
    message: typed.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: {
      code: typed.code,
      ...(typed.violations.length > 0 ? { violations: typed.violations } : {}),
    },
  };
}

/**
 * The JSON body parser reports unparseable and oversized bodies with a `type`
 * (sometimes wrapped by Nest as the exception's cause); they are the caller's
 * fault, not a validation failure of a well-formed request.
 */
function bodyParserCode(error: unknown): ErrorCode | undefined {
  for (const candidate of [error, (error as { cause?: unknown } | null)?.cause]) {
    const type = (candidate as { type?: unknown } | null)?.type;
    if (type === 'entity.parse.failed') return ErrorCode.MALFORMED_REQUEST;
    if (type === 'entity.too.large') return ErrorCode.PAYLOAD_TOO_LARGE;
    if (type === 'charset.unsupported' || type === 'encoding.unsupported') return ErrorCode.MALFORMED_REQUEST;
  }
  return undefined;
}

function bodyParserMessage(error: unknown): string {
  return bodyParserCode(error) === ErrorCode.PAYLOAD_TOO_LARGE
    ? 'request body too large'
    : 'request body is not valid JSON';
}
