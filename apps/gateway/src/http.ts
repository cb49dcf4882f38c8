import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ErrorCode,
  type FieldViolation,
  HTTP_STATUS_BY_CODE,
  LunaNexaError,
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  openAiErrorFromProblem,
} from '@lunanexa/contracts';
import type { RequestIds } from '@lunanexa/observability';
import type { z } from 'zod';

export const JSON_CONTENT_TYPE = 'application/json';

/**
 * Reads a JSON request body with a hard size limit. The limit is checked
 * against Content-Length before reading and against the bytes actually
 * received while reading, so a chunked or lying client cannot get more than
 * `maxBytes` into memory. Rejection reasons map to typed codes:
 * wrong media type / encoding / not JSON → MALFORMED_REQUEST, too large →
 * PAYLOAD_TOO_LARGE, client went away → CANCELLED.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const contentType = req.headers['content-type'] ?? '';
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== JSON_CONTENT_TYPE) {
    throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, `Content-Type must be ${JSON_CONTENT_TYPE}`);
  }
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  if (charset !== undefined && charset.replace(/"/g, '') !== 'charset=utf-8') {
    throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'JSON bodies must be UTF-8');
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'compressed request bodies are not accepted');
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw tooLarge(maxBytes);
  }
  const bytes = await readLimited(req, maxBytes);
  if (bytes.length === 0) {
    throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'request body is empty');
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The parser's message quotes the body; say where, not what.
    throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'request body is not valid JSON');
  }
}

/** One decoder for every body: a whole-buffer decode keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(maxBytes: number): LunaNexaError {
  return new LunaNexaError(ErrorCode.PAYLOAD_TOO_LARGE, `request body exceeds ${maxBytes} bytes`);
}

function readLimited(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        // Nothing more is read: the 413 goes out and the connection is closed (closeWithoutReadingBody).
        chunks.length = 0;
        req.pause();
        settle(() => reject(tooLarge(maxBytes)));
        return;
      }
      chunks.push(chunk);
    };
    // A small body arrives in one chunk: no copy then.
    const onEnd = (): void =>
      settle(() => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)));
    const onError = (): void =>
      settle(() => reject(new LunaNexaError(ErrorCode.CANCELLED, 'client aborted the request body')));
    const onClose = (): void => {
      if (!req.complete)
        settle(() => reject(new LunaNexaError(ErrorCode.CANCELLED, 'client aborted the request body')));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** zod issues → `{ path, message }` with dotted paths; unknown keys are named one by one. */
export function violationsFrom(error: z.ZodError): FieldViolation[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'is not a known field' }));
    }
    return [{ path: path.join('.'), message: issue.message }];
  });
}

/** Parses with `schema` or throws VALIDATION_FAILED listing every violation. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new LunaNexaError(
      ErrorCode.VALIDATION_FAILED,
      `${what} does not match the v1 schema`,
      violationsFrom(result.error),
    );
  }
  return result.data;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** sendJson for a body already serialised. */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': `${JSON_CONTENT_TYPE}; charset=utf-8`,
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export interface ProblemContext {
  readonly ids: RequestIds;
  readonly instance: string;
  /** Adds the OpenAI `error` member (OpenAI-compatible endpoints only). */
  readonly openAi: boolean;
  readonly headers?: Record<string, string>;
}

export function problemBody(
  error: LunaNexaError,
  context: ProblemContext,
): ProblemDetails & { error?: ReturnType<typeof openAiErrorFromProblem> } {
  const problem = error.toProblem({
    instance: context.instance,
    requestId: context.ids.requestId,
    correlationId: context.ids.correlationId,
  });
  return context.openAi ? { ...problem, error: openAiErrorFromProblem(problem) } : problem;
}

export function sendProblem(res: ServerResponse, error: LunaNexaError, context: ProblemContext): void {
  const body = JSON.stringify(problemBody(error, context));
  res.writeHead(HTTP_STATUS_BY_CODE[error.code], {
    ...(context.headers ?? {}),
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** How long a connection whose request body was refused unread stays half-closed before it is cut. */
export const UNREAD_BODY_LINGER_MS = 2_000;

/**
 * Answers a request without reading (the rest of) its body, then closes the
 * connection cleanly. Node would otherwise either read and discard the whole
 * body (unbounded: a chunked upload never ends) or close a socket that still
 * holds unread bytes, which makes the kernel send a reset that can destroy
 * the response before the client reads it. Instead: the response goes out
 * with `Connection: close`, the connection is half-closed (FIN) and no more
 * is read; the client, having its answer, closes its side, and the socket is
 * cut after `lingerMs` at the latest.
 */
export function closeWithoutReadingBody(
  req: IncomingMessage,
  res: ServerResponse,
  lingerMs = UNREAD_BODY_LINGER_MS,
): void {
  res.setHeader('connection', 'close');
  const socket = req.socket;
  // Drops what is buffered, which also marks the body as taken: node:http would otherwise read it to
  // the end to reuse the connection.
  while (req.read() !== null);
  req.pause();
  // node:http calls destroySoon once the response is out (Connection: close). Instead of destroying
  // a socket with unread bytes (a reset), stop reading — its parser reads the handle directly, so the
  // handle itself is stopped and the kernel's receive window closes — send FIN, and cut later.
  socket.destroySoon = function lingeringClose(this: typeof socket): void {
    const handle = (this as unknown as { _handle?: { reading?: boolean; readStop?: () => number } })._handle;
    if (typeof handle?.readStop === 'function') {
      handle.reading = false;
      handle.readStop();
    }
    if (this.writable) this.end();
    const cut = setTimeout(() => this.destroy(), lingerMs);
    cut.unref();
    this.once('close', () => clearTimeout(cut));
  };
}
