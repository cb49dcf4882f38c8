import { expect } from 'chai';
import type { ArgumentsHost } from '@nestjs/common';
import type { Logger } from '@lunanexa/observability';
import { payloadSafeError, ProblemJsonFilter } from '../src/common/problem.filter';
import { PLAYGROUND_CHAT_PATH } from '../src/requests/playground.controller';

/** Short enough that Node's JSON.parse quotes all of it in its message. */
const MARKER = 'secret-7f3a9c';

/** A logger that keeps what `error` was called with, serialised as a log line would be. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const serialise = (value: unknown): string =>
    JSON.stringify(value, (_key, inner: unknown) =>
      inner instanceof Error ? { ...inner, message: inner.message, stack: inner.stack } : inner,
    );
  const logger = {
    error: (fields: unknown, message?: string) => lines.push(`${serialise(fields)} ${message ?? ''}`),
  } as unknown as Logger;
  return { logger, lines };
}

function httpHost(url: string): { host: ArgumentsHost; sent: () => { status: number; body: string } } {
  let status = 0;
  let body = '';
  const res = {
    headersSent: false,
    set statusCode(value: number) {
      status = value;
    },
    setHeader: () => undefined,
    end: (text: string) => {
      body = text;
    },
  };
  const req = { url, headers: {} };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
  } as unknown as ArgumentsHost;
  return { host, sent: () => ({ status, body }) };
}

/** An unexpected error whose message quotes a request body, as Node's JSON.parse does. */
function errorQuotingTheBody(): Error {
  try {
    JSON.parse(MARKER);
  } catch (error) {
    return error as Error;
  }
  throw new Error('JSON.parse accepted a bare word');
}

describe('api problem filter: unexpected errors on payload paths are logged without their message', () => {
  it('payloadSafeError keeps the class, the code and the frames, and drops the message that quotes the body', () => {
    const error = errorQuotingTheBody();
    expect(error.message, 'the premise: Node quotes the text it could not parse').to.contain(MARKER);
    const safe = payloadSafeError(Object.assign(error, { code: 'E_PARSE' }));
    expect(safe.type).to.equal('SyntaxError');
    expect(safe.code).to.equal('E_PARSE');
    expect(safe.frames.length).to.be.greaterThan(0);
    expect(safe.frames.every((frame) => frame.startsWith('at '))).to.equal(true);
    expect(JSON.stringify(safe)).not.to.contain(MARKER);
    expect(payloadSafeError('a thrown string')).to.deep.equal({ type: 'string', code: null, frames: [] });
  });

  it('the playground path logs the safe form and answers INTERNAL; other paths keep the full error for debugging', () => {
    const { logger, lines } = recordingLogger();
    const filter = new ProblemJsonFilter(logger);

    const playground = httpHost(`/${PLAYGROUND_CHAT_PATH}?trace=1`);
    filter.catch(errorQuotingTheBody(), playground.host);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.contain('SyntaxError').and.not.contain(MARKER);
    expect(playground.sent().status).to.equal(500);
    expect(JSON.parse(playground.sent().body)).to.include({ code: 'INTERNAL' });
    expect(playground.sent().body).not.to.contain(MARKER);

    const elsewhere = httpHost('/api/v1/something');
    filter.catch(errorQuotingTheBody(), elsewhere.host);
    expect(lines).to.have.length(2);
    // A filter that redacted nothing would fail the first half; one that redacted everything, this half.
    expect(lines[1]).to.contain(MARKER);
  });

  it('a database out of reach answers 503 DEPENDENCY_UNAVAILABLE (worth retrying), still logged; other errors stay INTERNAL', () => {
    const { logger, lines } = recordingLogger();
    const filter = new ProblemJsonFilter(logger);
    for (const error of [
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ]) {
      const call = httpHost('/agent/v1/heartbeat');
      filter.catch(error, call.host);
      expect(call.sent().status, error.message).to.equal(503);
      expect(JSON.parse(call.sent().body)).to.include({ code: 'DEPENDENCY_UNAVAILABLE' });
    }
    expect(lines).to.have.length(3);
    const other = httpHost('/agent/v1/heartbeat');
    filter.catch(Object.assign(new Error('duplicate key'), { code: '23505' }), other.host);
    expect(other.sent().status).to.equal(500);
  });
});
