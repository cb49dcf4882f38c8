import { ErrorCode, isErrorCode, type FieldViolation } from '@lunanexa/contracts';

/**
 * Codes the CLI raises itself, for failures that never reached (or never came
 * back from) a LunaNexa API. Everything else the CLI prints is a code the API
 * sent, from `@lunanexa/contracts` `ErrorCode`.
 */
export const CliErrorCode = {
  /** The command line is wrong; nothing was sent. */
  USAGE: 'USAGE',
  /** No HTTP answer: connection refused, DNS failure, TLS failure, timeout. */
  API_UNREACHABLE: 'API_UNREACHABLE',
  /** An answer that is not what a LunaNexa v1 API sends (not JSON, wrong shape). */
  BAD_RESPONSE: 'BAD_RESPONSE',
  /** A GraphQL error that carried no `extensions.code`. */
  GRAPHQL_ERROR: 'GRAPHQL_ERROR',
  /** `deploy create --wait`: the deployment ended Failed or Stopped instead of Ready. */
  DEPLOYMENT_FAILED: 'DEPLOYMENT_FAILED',
  /** `invoke`: the connection closed before the stream's final chunk; the answer is incomplete. */
  STREAM_INTERRUPTED: 'STREAM_INTERRUPTED',
  /** `evidence verify`: the bundle does not verify; each problem names the file in the bundle it is in. */
  EVIDENCE_INVALID: 'EVIDENCE_INVALID',
} as const;
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** sysexits(3) codes the CLI uses; the table in apps/cli/README.md documents them. */
export const ExitCode = {
  OK: 0,
  /** The command ran and the answer is "no" (status: not ready), or a business error. */
  FAILURE: 1,
  USAGE: 64,
  DATA: 65,
  UNAVAILABLE: 69,
  SOFTWARE: 70,
  TEMPFAIL: 75,
  PROTOCOL: 76,
  NOPERM: 77,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One error as the API (or the CLI) stated it. */
export interface ErrorDetail {
  /** An `ErrorCode`, a `CliErrorCode`, `HTTP_<status>`, or a code from a newer API. */
  readonly code: string;
  readonly message: string;
  readonly violations?: readonly FieldViolation[];
}

/**
 * A failed command. GraphQL can return several errors for one request; they
 * are all kept so the operator sees each, and the first decides the exit code.
 */
export class CliError extends Error {
  readonly details: readonly [ErrorDetail, ...ErrorDetail[]];
  /** The x-request-id of the failed call, when one was made. */
  readonly requestId: string | undefined;

  constructor(details: ErrorDetail | readonly [ErrorDetail, ...ErrorDetail[]], requestId?: string) {
    const list: readonly [ErrorDetail, ...ErrorDetail[]] = isDetailList(details) ? details : [details];
    super(list[0].message);
    this.name = 'CliError';
    this.details = list;
    this.requestId = requestId;
  }

  get code(): string {
    return this.details[0].code;
  }

  get exitCode(): ExitCode {
    return exitCodeFor(this.code);
  }
}

function isDetailList(
  value: ErrorDetail | readonly [ErrorDetail, ...ErrorDetail[]],
): value is readonly [ErrorDetail, ...ErrorDetail[]] {
  return Array.isArray(value);
}

export function usageError(message: string): CliError {
  return new CliError({ code: CliErrorCode.USAGE, message });
}

/**
 * Exit code for an API error code. Exhaustive over `ErrorCode`, so adding a
 * code to the contract does not compile until someone decides what a script
 * should see for it.
 */
export function exitCodeForErrorCode(code: ErrorCode): ExitCode {
  switch (code) {
    case ErrorCode.VALIDATION_FAILED:
    case ErrorCode.MALFORMED_REQUEST:
    case ErrorCode.PAYLOAD_TOO_LARGE:
    case ErrorCode.QUERY_TOO_COSTLY:
      return ExitCode.DATA;
    case ErrorCode.UNAUTHENTICATED:
    case ErrorCode.FORBIDDEN:
    case ErrorCode.TOKEN_EXPIRED:
    case ErrorCode.TOKEN_REUSED:
    case ErrorCode.TOKEN_UNKNOWN:
    case ErrorCode.SIGNATURE_INVALID:
      return ExitCode.NOPERM;
    // ARTIFACT_UNAUTHORIZED: an artifact store refused the server's credentials, not the caller's.
    case ErrorCode.DEPENDENCY_UNAVAILABLE:
    case ErrorCode.ARTIFACT_UNAUTHORIZED:
    case ErrorCode.NO_CAPACITY:
    case ErrorCode.UPSTREAM_FAILED:
      return ExitCode.UNAVAILABLE;
    case ErrorCode.RATE_LIMITED:
    case ErrorCode.QUOTA_EXCEEDED:
    case ErrorCode.DEADLINE_EXCEEDED:
      return ExitCode.TEMPFAIL;
    case ErrorCode.INTERNAL:
    case ErrorCode.INVALID_CONFIG:
      return ExitCode.SOFTWARE;
    // The CLI used a method the API does not serve: CLI and API disagree on the protocol.
    case ErrorCode.METHOD_NOT_ALLOWED:
      return ExitCode.PROTOCOL;
    case ErrorCode.NOT_FOUND:
    case ErrorCode.CONFLICT:
    case ErrorCode.IDEMPOTENCY_KEY_REUSED:
    case ErrorCode.REPLAY_DETECTED:
    case ErrorCode.STALE_GENERATION:
    case ErrorCode.LEASE_EXPIRED:
    case ErrorCode.INVALID_TRANSITION:
    case ErrorCode.LICENSE_NOT_APPROVED:
    case ErrorCode.DATA_CLASS_NOT_ALLOWED:
    case ErrorCode.DIGEST_MISMATCH:
    case ErrorCode.EVALUATION_NOT_PASSED:
    case ErrorCode.HARDWARE_INCOMPATIBLE:
    case ErrorCode.NO_ELIGIBLE_NODE:
    case ErrorCode.DRAIN_WOULD_STRAND_REPLICAS:
    case ErrorCode.RUNTIME_NOT_ALLOWED:
    case ErrorCode.MODEL_VERSION_NOT_APPROVED:
    case ErrorCode.UNSIGNED_VERSION_NOT_ALLOWED:
    case ErrorCode.MODEL_NOT_FOUND:
    case ErrorCode.CANCELLED:
      return ExitCode.FAILURE;
    default:
      return assertNever(code);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled error code ${String(value)}`);
}

/** Exit code for any code the CLI may print, including its own and ones from a newer API. */
export function exitCodeFor(code: string): ExitCode {
  if (isErrorCode(code)) return exitCodeForErrorCode(code);
  switch (code) {
    case CliErrorCode.USAGE:
      return ExitCode.USAGE;
    case CliErrorCode.API_UNREACHABLE:
      return ExitCode.UNAVAILABLE;
    case CliErrorCode.BAD_RESPONSE:
      return ExitCode.PROTOCOL;
    case CliErrorCode.GRAPHQL_ERROR:
    case CliErrorCode.DEPLOYMENT_FAILED:
    case CliErrorCode.EVIDENCE_INVALID:
      return ExitCode.FAILURE;
    case CliErrorCode.STREAM_INTERRUPTED:
      return ExitCode.UNAVAILABLE;
  }
  const http = /^HTTP_(\d{3})$/.exec(code);
  if (http?.[1] !== undefined) {
    // A bare 5xx is usually a proxy in front of a down API; a bare 4xx means
    // whatever answered is not speaking LunaNexa problem+json.
    return Number(http[1]) >= 500 ? ExitCode.UNAVAILABLE : ExitCode.PROTOCOL;
  }
  // A code added by a newer API: a failure, but nothing more specific can be promised.
  return ExitCode.FAILURE;
}

/** `error[CODE]: message (request <id>)`, then one indented line per field violation. */
export function formatError(error: CliError): string {
  const suffix = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
  return error.details
    .flatMap((detail) => [
      `error[${detail.code}]: ${detail.message}${suffix}`,
      ...(detail.violations ?? []).map((violation) => `  ${violation.path}: ${violation.message}`),
    ])
    .map((line) => `${line}\n`)
    .join('');
}
