import type { ErrorCode } from '@lunanexa/contracts';

/**
 * - `refused`: the controller answered with a problem (an expired, reused or
 *   unknown token, a name conflict…): the operator must fix the token or the
 *   configuration, so retrying would not help.
 * - `untrusted-response`: the answer did not prove it came from the controller
 *   the operator pinned (another key fingerprint, a bad signature, a reply to
 *   another request). Nothing from it is kept.
 * - `unreachable`: no usable answer within the retry window.
 */
export type EnrollmentFailure = 'refused' | 'untrusted-response' | 'unreachable';

export class EnrollmentError extends Error {
  constructor(
    readonly failure: EnrollmentFailure,
    /** The controller's problem code for `refused`; the check that failed for `untrusted-response`. */
    readonly code: ErrorCode | null,
    message: string,
    /** The HTTP status of the last answer, if there was one. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'EnrollmentError';
  }
}
