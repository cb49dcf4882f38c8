import { expect } from 'chai';
import { answerError, graphqlError, jsonBody, problemError, type HttpAnswer } from '../src/api-client';
import { CliError } from '../src/errors';

function answer(status: number, body: unknown, contentType = 'application/json'): HttpAnswer {
  return {
    status,
    contentType,
    text: typeof body === 'string' ? body : JSON.stringify(body),
    requestId: 'req-42',
  };
}

function thrown(fn: () => unknown): CliError {
  try {
    fn();
  } catch (error: unknown) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected a CliError');
}

describe('reading API error bodies', () => {
  describe('GraphQL', () => {
    it('takes the code from extensions.code and keeps field violations', () => {
      const body = {
        errors: [
          {
            message: 'input failed validation',
            extensions: {
              code: 'VALIDATION_FAILED',
              violations: [{ path: 'input.message', message: 'must be 1-200 characters' }],
            },
          },
        ],
        data: null,
      };
      const error = graphqlError(answer(200, body), body);
      expect(error?.code).to.equal('VALIDATION_FAILED');
      expect(error?.details[0].violations).to.deep.equal([
        { path: 'input.message', message: 'must be 1-200 characters' },
      ]);
      expect(error?.requestId).to.equal('req-42');
    });

    it('keeps every error, in order', () => {
      const body = {
        errors: [
          { message: 'first', extensions: { code: 'FORBIDDEN' } },
          { message: 'second', extensions: { code: 'NOT_FOUND' } },
        ],
      };
      expect(graphqlError(answer(200, body), body)?.details.map((d) => d.code)).to.deep.equal([
        'FORBIDDEN',
        'NOT_FOUND',
      ]);
    });

    it('reads errors from a 400 graphql-response+json answer (Apollo validation failures)', () => {
      const body = {
        errors: [
          {
            message: 'Cannot query field "nope" on type "Query".',
            extensions: { code: 'VALIDATION_FAILED' },
          },
        ],
      };
      const error = answerError(answer(400, body, 'application/graphql-response+json; charset=utf-8'), body);
      expect(error?.code).to.equal('VALIDATION_FAILED');
      expect(error?.exitCode).to.equal(65);
    });

    it('names an error without a code GRAPHQL_ERROR rather than guessing', () => {
      const body = { errors: [{ message: 'something broke' }] };
      expect(graphqlError(answer(200, body), body)?.code).to.equal('GRAPHQL_ERROR');
    });

    it('is not an error when there are no errors', () => {
      const body = { data: { ping: {} } };
      expect(answerError(answer(200, body), body)).to.equal(undefined);
    });
  });

  describe('problem+json', () => {
    const problem = {
      type: 'urn:lunanexa:error:unauthenticated',
      title: 'Unauthenticated',
      status: 401,
      code: 'UNAUTHENTICATED',
      detail: 'missing bearer token',
      requestId: 'req-42',
    };

    it('takes code and detail', () => {
      const error = problemError(answer(401, problem, 'application/problem+json'), problem);
      expect(error?.code).to.equal('UNAUTHENTICATED');
      expect(error?.message).to.equal('missing bearer token');
      expect(error?.exitCode).to.equal(77);
    });

    it('recognises a problem by shape when a proxy rewrote the content type', () => {
      expect(problemError(answer(401, problem, 'application/json'), problem)?.code).to.equal(
        'UNAUTHENTICATED',
      );
    });

    it('falls back to the title when there is no detail, and keeps violations', () => {
      const body = {
        ...problem,
        code: 'VALIDATION_FAILED',
        status: 400,
        detail: undefined,
        title: 'Validation failed',
        violations: [{ path: 'x', message: 'y' }],
      };
      const error = problemError(answer(400, body, 'application/problem+json'), body);
      expect(error?.message).to.equal('Validation failed');
      expect(error?.details[0].violations).to.deep.equal([{ path: 'x', message: 'y' }]);
    });

    it('calls a declared problem+json that is not one a bad response', () => {
      expect(
        problemError(answer(500, { oops: true }, 'application/problem+json'), { oops: true })?.code,
      ).to.equal('BAD_RESPONSE');
    });

    it('does not read a successful JSON answer as a problem', () => {
      expect(problemError(answer(200, problem), problem)).to.equal(undefined);
    });
  });

  describe('bodies that are not JSON', () => {
    it('turns a proxy error page into HTTP_<status> with a one-line excerpt', () => {
      const error = thrown(() =>
        jsonBody(answer(502, '<html>\n<h1>502 Bad Gateway</h1>\n</html>', 'text/html')),
      );
      expect(error.code).to.equal('HTTP_502');
      expect(error.message).to.equal('<html> <h1>502 Bad Gateway</h1> </html>');
      expect(error.exitCode).to.equal(69);
    });

    it('calls a 200 that is not JSON a bad response', () => {
      const error = thrown(() => jsonBody(answer(200, 'hello', 'text/plain')));
      expect(error.code).to.equal('BAD_RESPONSE');
      expect(error.exitCode).to.equal(76);
    });

    it('reports a bare non-2xx JSON answer by status', () => {
      expect(answerError(answer(418, { teapot: true }), { teapot: true })?.code).to.equal('HTTP_418');
    });
  });
});
