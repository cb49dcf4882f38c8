import { DOCUMENT } from '@angular/common';
import { Injectable, InjectionToken, inject } from '@angular/core';
import { REQUEST_ID_HEADER } from '@lunanexa/contracts/correlation';

import { GraphqlRequestError, TransportErrorCode } from '../../shared/graphql/graphql-error';
import { randomId } from '../../shared/graphql/random-id';
import { Session, refusesCredential } from '../../shared/session/session';

/** The API's evidence route (REST, on the console's origin); override it only in tests. */
export const EVIDENCE_ENDPOINT = new InjectionToken<string>('EVIDENCE_ENDPOINT', {
  providedIn: 'root',
  factory: () => '/v1/evidence',
});

/**
 * Downloads an alias revision's evidence bundle (`GET /v1/evidence/<alias>`)
 * with the session's token and hands it to the browser as a file. Auditors
 * check it offline with `lunanexa evidence verify`. Failures reject with the
 * console's one error type, carrying the API's code and request id.
 */
@Injectable({ providedIn: 'root' })
export class EvidenceDownload {
  private readonly endpoint = inject(EVIDENCE_ENDPOINT);
  private readonly session = inject(Session);
  private readonly document = inject(DOCUMENT);

  async download(alias: string, revision: number): Promise<void> {
    const bearer = this.session.accessToken();
    const requestId = randomId();
    const correlationId = randomId();
    let response: Response;
    try {
      response = await fetch(`${this.endpoint}/${encodeURIComponent(alias)}?revision=${revision}`, {
        headers: {
          accept: 'application/gzip, application/problem+json',
          [REQUEST_ID_HEADER]: requestId,
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
      });
    } catch {
      throw new GraphqlRequestError({
        code: TransportErrorCode.API_UNREACHABLE,
        message: 'The API could not be reached.',
        requestId,
        correlationId,
      });
    }
    if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('application/gzip')) {
      let body: Record<string, unknown> = {};
      try {
        body = (await response.json()) as Record<string, unknown>;
      } catch {
        // Not a problem report: the status says what there is to say.
      }
      const code = typeof body['code'] === 'string' ? body['code'] : TransportErrorCode.UNEXPECTED_RESPONSE;
      if (bearer !== undefined && refusesCredential(code)) {
        this.session.refused(bearer, code);
      }
      throw new GraphqlRequestError({
        code,
        message: typeof body['detail'] === 'string' ? body['detail'] : `HTTP ${response.status}`,
        requestId: response.headers.get(REQUEST_ID_HEADER) ?? requestId,
        correlationId,
        httpStatus: response.status,
      });
    }
    const url = URL.createObjectURL(await response.blob());
    try {
      const link = this.document.createElement('a');
      link.href = url;
      link.download = `evidence-${alias}-r${revision}.tar.gz`;
      link.click();
    } finally {
      setTimeout(() => URL.revokeObjectURL(url), 0);
    }
  }
}
