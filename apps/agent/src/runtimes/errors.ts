import { ErrorCode, LunaNexaError, type FieldViolation } from '@lunanexa/contracts';

/**
 * Why the agent refused or failed to run a runtime. Each reason maps onto one
 * LunaNexa error code, so whatever reports it upward (a heartbeat message, an
 * activity failure) speaks the shared vocabulary; tests assert the reason.
 */
export const RuntimeErrorReason = {
  /** The launch spec does not satisfy the contract schema (shells, inline code, unknown placeholders…). */
  LAUNCH_SPEC_INVALID: 'LAUNCH_SPEC_INVALID',
  /** The runtime record's kind is not the one this adapter runs. */
  WRONG_RUNTIME_KIND: 'WRONG_RUNTIME_KIND',
  /** The adapter cannot run this packaging (e.g. the fake runtime as a container). */
  PACKAGING_UNSUPPORTED: 'PACKAGING_UNSUPPORTED',
  /** An environment variable outside the allowlist, or one the agent never passes on. */
  ENV_NOT_ALLOWED: 'ENV_NOT_ALLOWED',
  EXECUTABLE_NOT_FOUND: 'EXECUTABLE_NOT_FOUND',
  /** The binary on disk is not the one the registry pinned. */
  DIGEST_MISMATCH: 'DIGEST_MISMATCH',
  SPAWN_FAILED: 'SPAWN_FAILED',
  /** A handle this adapter did not create. */
  FOREIGN_HANDLE: 'FOREIGN_HANDLE',
  /** Multi-node inference has not been validated for this model/runtime/network profile. */
  MULTI_NODE_NOT_VALIDATED: 'MULTI_NODE_NOT_VALIDATED',
} as const;
export type RuntimeErrorReason = (typeof RuntimeErrorReason)[keyof typeof RuntimeErrorReason];

export const ERROR_CODE_BY_RUNTIME_REASON: Readonly<Record<RuntimeErrorReason, ErrorCode>> = {
  LAUNCH_SPEC_INVALID: ErrorCode.VALIDATION_FAILED,
  WRONG_RUNTIME_KIND: ErrorCode.VALIDATION_FAILED,
  PACKAGING_UNSUPPORTED: ErrorCode.VALIDATION_FAILED,
  ENV_NOT_ALLOWED: ErrorCode.VALIDATION_FAILED,
  EXECUTABLE_NOT_FOUND: ErrorCode.HARDWARE_INCOMPATIBLE,
  DIGEST_MISMATCH: ErrorCode.DIGEST_MISMATCH,
  SPAWN_FAILED: ErrorCode.INTERNAL,
  FOREIGN_HANDLE: ErrorCode.INTERNAL,
  MULTI_NODE_NOT_VALIDATED: ErrorCode.HARDWARE_INCOMPATIBLE,
};

export class RuntimeError extends LunaNexaError {
  readonly reason: RuntimeErrorReason;

  constructor(reason: RuntimeErrorReason, message: string, violations: readonly FieldViolation[] = []) {
    super(ERROR_CODE_BY_RUNTIME_REASON[reason], message, violations);
    this.name = 'RuntimeError';
    this.reason = reason;
  }
}
