/**
 * The one error-code vocabulary of LunaNexa v1. GraphQL errors carry it in
 * `extensions.code`; HTTP endpoints return it as the `code` member of an
 * RFC 9457 problem+json body; activities throw `ApplicationFailure` with it as
 * the failure type. Tests assert codes, never messages.
 *
 * Adding a code is compatible; renaming or removing one is breaking (see
 * docs/CONTRACTS.md).
 */
export const ErrorCode = {
  /** Input failed schema or field validation; nothing was changed. */
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  /** Request body is not parseable (not JSON, wrong content type). */
  MALFORMED_REQUEST: 'MALFORMED_REQUEST',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  /** The same idempotency key was reused with a different request. */
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  /** A dependency (PostgreSQL, Temporal, an agent) is not reachable. */
  DEPENDENCY_UNAVAILABLE: 'DEPENDENCY_UNAVAILABLE',
  /** A process was started with configuration that does not validate. */
  INVALID_CONFIG: 'INVALID_CONFIG',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL: 'INTERNAL',
  // Enrollment and the southbound channel.
  TOKEN_EXPIRED: 'TOKEN_EXPIRED',
  TOKEN_REUSED: 'TOKEN_REUSED',
  TOKEN_UNKNOWN: 'TOKEN_UNKNOWN',
  SIGNATURE_INVALID: 'SIGNATURE_INVALID',
  REPLAY_DETECTED: 'REPLAY_DETECTED',
  STALE_GENERATION: 'STALE_GENERATION',
  LEASE_EXPIRED: 'LEASE_EXPIRED',
  INVALID_TRANSITION: 'INVALID_TRANSITION',
  // Registry, policy and placement.
  LICENSE_NOT_APPROVED: 'LICENSE_NOT_APPROVED',
  DATA_CLASS_NOT_ALLOWED: 'DATA_CLASS_NOT_ALLOWED',
  DIGEST_MISMATCH: 'DIGEST_MISMATCH',
  /** An artifact store (S3, OCI registry, https) wants credentials that are not configured, or refused them. */
  ARTIFACT_UNAUTHORIZED: 'ARTIFACT_UNAUTHORIZED',
  EVALUATION_NOT_PASSED: 'EVALUATION_NOT_PASSED',
  HARDWARE_INCOMPATIBLE: 'HARDWARE_INCOMPATIBLE',
  NO_ELIGIBLE_NODE: 'NO_ELIGIBLE_NODE',
  /** A drain would leave replicas with no other node to run on; nothing changed (force with a reason overrides). */
  DRAIN_WOULD_STRAND_REPLICAS: 'DRAIN_WOULD_STRAND_REPLICAS',
  /** The version's runtime is not on the runtime allowlist. */
  RUNTIME_NOT_ALLOWED: 'RUNTIME_NOT_ALLOWED',
  /** The version passed evaluation but no one approved it for serving (or it was deprecated or retired). */
  MODEL_VERSION_NOT_APPROVED: 'MODEL_VERSION_NOT_APPROVED',
  /** The version has no provenance signature and a tenant served by the alias forbids unsigned versions. */
  UNSIGNED_VERSION_NOT_ALLOWED: 'UNSIGNED_VERSION_NOT_ALLOWED',
  // Data plane.
  MODEL_NOT_FOUND: 'MODEL_NOT_FOUND',
  NO_CAPACITY: 'NO_CAPACITY',
  QUOTA_EXCEEDED: 'QUOTA_EXCEEDED',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  CANCELLED: 'CANCELLED',
  UPSTREAM_FAILED: 'UPSTREAM_FAILED',
  /** The request body exceeds the endpoint's configured size limit; nothing was read past it. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The path exists but not for this HTTP method; the response carries `Allow`. */
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  /**
   * A GraphQL document exceeds the API's budget (tokens, depth, aliases or
   * cost); `extensions` carry `limit`, `measured` and `max`. Nothing ran.
   */
  QUERY_TOO_COSTLY: 'QUERY_TOO_COSTLY',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCode);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** HTTP status each code maps to on REST endpoints and in problem+json. */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  MALFORMED_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  DEPENDENCY_UNAVAILABLE: 503,
  INVALID_CONFIG: 500,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  TOKEN_EXPIRED: 401,
  TOKEN_REUSED: 401,
  TOKEN_UNKNOWN: 401,
  SIGNATURE_INVALID: 401,
  REPLAY_DETECTED: 409,
  STALE_GENERATION: 409,
  LEASE_EXPIRED: 409,
  INVALID_TRANSITION: 409,
  LICENSE_NOT_APPROVED: 422,
  DATA_CLASS_NOT_ALLOWED: 422,
  DIGEST_MISMATCH: 422,
  ARTIFACT_UNAUTHORIZED: 502,
  EVALUATION_NOT_PASSED: 422,
  HARDWARE_INCOMPATIBLE: 422,
  NO_ELIGIBLE_NODE: 422,
  DRAIN_WOULD_STRAND_REPLICAS: 409,
  RUNTIME_NOT_ALLOWED: 422,
  MODEL_VERSION_NOT_APPROVED: 422,
  UNSIGNED_VERSION_NOT_ALLOWED: 422,
  MODEL_NOT_FOUND: 404,
  NO_CAPACITY: 503,
  QUOTA_EXCEEDED: 429,
  DEADLINE_EXCEEDED: 504,
  CANCELLED: 499,
  UPSTREAM_FAILED: 502,
  PAYLOAD_TOO_LARGE: 413,
  METHOD_NOT_ALLOWED: 405,
  QUERY_TOO_COSTLY: 400,
};

/** One field-level problem inside a VALIDATION_FAILED error. */
export interface FieldViolation {
  /** Dotted path of the offending field, e.g. `messages.0.role`. */
  readonly path: string;
  readonly message: string;
}

/**
 * RFC 9457 problem details as LunaNexa emits them. `type` is a stable URN per
 * code so clients can switch on either `type` or `code`.
 */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail?: string;
  readonly instance?: string;
  readonly requestId?: string;
  readonly correlationId?: string;
  readonly violations?: readonly FieldViolation[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemTypeFor(code: ErrorCode): string {
  return `urn:lunanexa:error:${code.toLowerCase().replace(/_/g, '-')}`;
}

/**
 * The error every layer throws for an expected, typed failure. Pure (no I/O),
 * so workflows, activities, the API and the gateway share it.
 */
export class LunaNexaError extends Error {
  readonly code: ErrorCode;
  readonly violations: readonly FieldViolation[];

  constructor(code: ErrorCode, message: string, violations: readonly FieldViolation[] = []) {
    super(message);
    this.name = 'LunaNexaError';
    this.code = code;
    this.violations = violations;
  }

  toProblem(extra: { instance?: string; requestId?: string; correlationId?: string } = {}): ProblemDetails {
    return {
      type: problemTypeFor(this.code),
      title: titleFor(this.code),
      status: HTTP_STATUS_BY_CODE[this.code],
      code: this.code,
      detail: this.message,
      ...(this.violations.length > 0 ? { violations: this.violations } : {}),
      ...extra,
    };
  }
}

export function titleFor(code: ErrorCode): string {
  const words = code.toLowerCase().split('_');
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

/**
 * The typed code a Temporal failure carries: the `type` of the first
 * `ApplicationFailure` in its cause chain (activities throw those with an
 * ErrorCode). Structural, so it needs no Temporal import.
 */
export function typedFailureCode(error: unknown): string | undefined {
  return firstApplicationFailure(error)?.type;
}

/**
 * A Temporal failure as the LunaNexaError an activity or workflow raised:
 * the code and message of the first `ApplicationFailure` in its cause chain,
 * not the wrappers' ("Activity task failed", "Workflow execution failed"),
 * which tell an operator nothing. Undefined when no typed failure is in it.
 */
export function typedFailure(error: unknown): LunaNexaError | undefined {
  const failure = firstApplicationFailure(error);
  if (failure === undefined || !isErrorCode(failure.type)) return undefined;
  return new LunaNexaError(failure.type, failure.message);
}

function firstApplicationFailure(error: unknown): { type: string; message: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 10; depth++) {
    const candidate = current as { name?: string; type?: string | null; message?: unknown; cause?: unknown };
    if (candidate.name === 'ApplicationFailure' && candidate.type) {
      return {
        type: candidate.type,
        message: typeof candidate.message === 'string' ? candidate.message : '',
      };
    }
    current = candidate.cause;
  }
  return undefined;
}
