import { ERROR_CODES, ErrorCode } from '@lunanexa/contracts';
import { expect } from 'chai';
import { CliError, CliErrorCode, ExitCode, exitCodeFor, formatError } from '../src/errors';

describe('CLI error codes and exit codes', () => {
  const expectations: readonly [string, number][] = [
    [ErrorCode.VALIDATION_FAILED, 65],
    [ErrorCode.MALFORMED_REQUEST, 65],
    [ErrorCode.PAYLOAD_TOO_LARGE, 65],
    [ErrorCode.QUERY_TOO_COSTLY, 65],
    [ErrorCode.UNAUTHENTICATED, 77],
    [ErrorCode.FORBIDDEN, 77],
    [ErrorCode.DEPENDENCY_UNAVAILABLE, 69],
    [ErrorCode.RATE_LIMITED, 75],
    [ErrorCode.DEADLINE_EXCEEDED, 75],
    [ErrorCode.INTERNAL, 70],
    [ErrorCode.METHOD_NOT_ALLOWED, 76],
    [ErrorCode.NOT_FOUND, 1],
    [ErrorCode.IDEMPOTENCY_KEY_REUSED, 1],
    [CliErrorCode.USAGE, 64],
    [CliErrorCode.API_UNREACHABLE, 69],
    [CliErrorCode.BAD_RESPONSE, 76],
    [CliErrorCode.GRAPHQL_ERROR, 1],
    [CliErrorCode.DEPLOYMENT_FAILED, 1],
    [CliErrorCode.STREAM_INTERRUPTED, 69],
    [CliErrorCode.EVIDENCE_INVALID, 1],
    [ErrorCode.MODEL_NOT_FOUND, 1],
    [ErrorCode.CONFLICT, 1],
    [ErrorCode.UPSTREAM_FAILED, 69],
    ['HTTP_502', 69],
    ['HTTP_404', 76],
    ['SOMETHING_A_NEWER_API_ADDED', 1],
  ];
  for (const [code, exit] of expectations) {
    it(`${code} exits ${exit}`, () => {
      expect(exitCodeFor(code)).to.equal(exit);
    });
  }

  it('maps every contract code to a documented exit code', () => {
    const documented = new Set<number>(Object.values(ExitCode));
    for (const code of ERROR_CODES) expect(documented.has(exitCodeFor(code)), code).to.equal(true);
  });

  it('formats one line per error with the request id, then the field violations', () => {
    const error = new CliError(
      [
        {
          code: 'VALIDATION_FAILED',
          message: 'input failed validation',
          violations: [{ path: 'input.idempotencyKey', message: 'too long' }],
        },
        { code: 'INTERNAL', message: 'internal error' },
      ],
      'req-1',
    );
    expect(formatError(error)).to.equal(
      'error[VALIDATION_FAILED]: input failed validation (request req-1)\n' +
        '  input.idempotencyKey: too long\n' +
        'error[INTERNAL]: internal error (request req-1)\n',
    );
    expect(error.exitCode).to.equal(65);
  });

  it('omits the request part when no request was made', () => {
    expect(formatError(new CliError({ code: 'USAGE', message: 'bad' }))).to.equal('error[USAGE]: bad\n');
  });
});
