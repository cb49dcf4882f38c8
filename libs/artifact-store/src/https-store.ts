import type { IncomingMessage } from 'node:http';
import { rootCertificates } from 'node:tls';
import type { HttpsStoreConfig } from './config';
import { discard, rangedAnswer, send, statusError, StoreError, type RangedAnswer } from './http';

const MAX_REDIRECTS = 5;

export interface HttpsObjectStream extends RangedAnswer {
  readonly body: IncomingMessage;
}

/**
 * Opens an https:// artifact for reading from `offset` (a Range request when
 * > 0). Redirects are followed (at most 5, to https only: a mirror or a
 * presigned URL); the certificate must chain to the system's roots or to the
 * configured extra CA. No credentials are ever sent: whoever serves the URL,
 * only the pinned digest decides whether the bytes are used.
 */
export async function getHttpsObject(
  config: HttpsStoreConfig,
  location: string,
  options: { readonly signal?: AbortSignal; readonly idleTimeoutMs: number; readonly offset?: number },
): Promise<HttpsObjectStream> {
  const offset = options.offset ?? 0;
  const ca = config.extraCaPem === null ? undefined : [...rootCertificates, config.extraCaPem];
  let url = new URL(location);
  const what = `${url.origin}${url.pathname}`;
  for (let hop = 0; ; hop++) {
    const response = await send({
      method: 'GET',
      url,
      headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      idleTimeoutMs: options.idleTimeoutMs,
      ...(ca === undefined ? {} : { ca }),
    });
    const status = response.statusCode ?? 0;
    const next = response.headers.location;
    if ([301, 302, 303, 307, 308].includes(status) && next !== undefined) {
      discard(response);
      if (hop >= MAX_REDIRECTS) {
        throw new StoreError('DEPENDENCY_UNAVAILABLE', `${what}: more than ${MAX_REDIRECTS} redirects`);
      }
      url = new URL(next, url);
      if (url.protocol !== 'https:') {
        throw new StoreError(
          'DEPENDENCY_UNAVAILABLE',
          `${what} redirected to a non-https URL (${url.origin})`,
        );
      }
      continue;
    }
    if (status === 416) {
      discard(response);
      throw new StoreError('DEPENDENCY_UNAVAILABLE', `${what} has no bytes from offset ${offset}`, 416);
    }
    if (status !== 200 && status !== 206) {
      discard(response);
      throw statusError(status, what, '');
    }
    return { body: response, ...rangedAnswer(response, offset, what) };
  }
}
