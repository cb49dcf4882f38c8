import type { Server } from 'node:http';

/**
 * How long an HTTP server keeps an idle keep-alive connection open. Longer
 * than the clients' own idle timeouts (undici and the browsers drop idle
 * sockets within seconds; load balancers commonly at 60 s), so it is the
 * client that closes an idle connection. With Node's 5 s default a client
 * reusing a connection just as the server closes it gets "other side closed"
 * for a request the server never read. Node announces it in each response
 * (`Keep-Alive: timeout=65`).
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 65_000;

/** Applies `IDLE_CONNECTION_TIMEOUT_MS` to a server; headers must still arrive within their own, longer, bound. */
export function keepIdleConnectionsOpen(server: Server): void {
  server.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
  server.headersTimeout = IDLE_CONNECTION_TIMEOUT_MS + 1_000;
}
