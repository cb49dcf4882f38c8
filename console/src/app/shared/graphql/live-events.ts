import { DOCUMENT, DestroyRef, Injectable, effect, inject, signal, untracked } from '@angular/core';
import { type Client, createClient } from 'graphql-ws';
import { BehaviorSubject, EMPTY, Observable, repeat, retry, switchMap, timer } from 'rxjs';

import { ConsoleFleetEventsDocument } from '@lunanexa/sdk/generated/operations';

import { Session, refusesCredential } from '../session/session';
import { GRAPHQL_ENDPOINT } from './graphql-client';
import type { LiveEvent } from './schema-types';

/** `audit` (every audited action, at commit) and `node` (every heartbeat). */
export type LiveEventKind = 'audit' | 'node';

/**
 * - `idle`: nothing is listening, so no socket is open (the client is lazy).
 * - `connecting`: a page listens and the socket is (re)connecting; pages rely on polling meanwhile.
 * - `live`: the API acknowledged the connection; events arrive as they are committed.
 */
export type LiveStatus = 'idle' | 'connecting' | 'live';

/** libs/sdk/graphql/console/live-events.graphql */
export const FLEET_EVENTS = ConsoleFleetEventsDocument;

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * Exponential with jitter, so a restarted API is not hit by every open console
 * in the same instant.
 */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(attempt, 10));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** `ws(s)://` for the same endpoint the HTTP client posts to, which may be a path on this origin. */
function socketUrl(endpoint: string, document: Document): string {
  const url = new URL(endpoint, document.baseURI);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/**
 * The API's live events over one graphql-ws socket per session. Pages use it
 * to refresh as soon as something changes rather than on their next poll; it
 * is an accelerator, never the only source: while the socket is down (or
 * readiness changes because heartbeats stopped, which sends no event) pages
 * keep polling.
 *
 * The socket opens on the first listener and closes shortly after the last
 * one leaves. A new session token means a new socket (the API authenticates
 * once per connection); signing out closes it.
 */
@Injectable({ providedIn: 'root' })
export class LiveEvents {
  private readonly session = inject(Session);
  private readonly endpoint = inject(GRAPHQL_ENDPOINT);
  private readonly document = inject(DOCUMENT);

  private readonly statusState = signal<LiveStatus>('idle');
  readonly status = this.statusState.asReadonly();

  /** The client of the current session; undefined while signed out. */
  private readonly client = new BehaviorSubject<
    { readonly client: Client; readonly token: string } | undefined
  >(undefined);

  constructor() {
    effect(() => {
      const token = this.session.accessToken();
      untracked(() => this.replaceClient(token));
    });
    inject(DestroyRef).onDestroy(() => this.replaceClient(undefined));
  }

  /**
   * Events of the given kinds, for as long as the caller stays subscribed.
   * Across reconnects it carries on silently; an event with `dropped > 0`
   * means some were missed, and re-reading is the only safe reaction (which is
   * what refreshing on any event does anyway).
   */
  events(kinds: readonly LiveEventKind[]): Observable<LiveEvent> {
    return this.client.pipe(
      switchMap((current) =>
        current === undefined ? EMPTY : this.subscribe(current.client, current.token, kinds),
      ),
      // Errors the client gives up on (a refused subscription, a fatal close) would otherwise end the stream for good.
      retry({ delay: (_error, attempt) => timer(backoffMs(attempt)), resetOnSuccess: true }),
    );
  }

  private subscribe(client: Client, token: string, kinds: readonly LiveEventKind[]): Observable<LiveEvent> {
    return new Observable<LiveEvent>((subscriber) =>
      client.subscribe<{ readonly fleetEvents: LiveEvent }>(
        {
          operationName: FLEET_EVENTS.operationName,
          query: FLEET_EVENTS.document,
          variables: { kinds },
        },
        {
          next: (result) => {
            if (result.data) {
              subscriber.next(result.data.fleetEvents);
            }
          },
          error: (error: unknown) => {
            // The API refuses a subscription's credential as it refuses a request's: end the session the same way.
            const code = refusalCode(error);
            if (code !== undefined) {
              this.session.refused(token, code);
            }
            subscriber.error(error);
          },
          complete: () => subscriber.complete(),
        },
      ),
    ).pipe(
      // The API completes subscriptions when it shuts down gracefully; listeners want the next API's events too.
      repeat({ delay: () => timer(backoffMs(0)) }),
    );
  }

  private replaceClient(token: string | undefined): void {
    const previous = this.client.value;
    if (previous?.token === token) {
      return;
    }
    const next = token === undefined ? undefined : { client: this.newClient(token), token };
    // Listeners move to the new client before the old one closes, so they never see a completed stream.
    this.client.next(next);
    void previous?.client.dispose();
    if (next === undefined) {
      this.statusState.set('idle');
    }
  }

  private newClient(token: string): Client {
    const setStatus = (status: LiveStatus): void => {
      // A replaced client's last close must not overwrite the status of the one in force.
      if (this.client.value?.client === client) {
        this.statusState.set(status);
      }
    };
    const client: Client = createClient({
      url: socketUrl(this.endpoint, this.document),
      lazy: true,
      // Navigating between two live pages should not drop and reopen the socket.
      lazyCloseTimeout: 3_000,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: Number.POSITIVE_INFINITY,
      retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, backoffMs(retries))),
      // A network failure or a stopped API is as retryable as a close frame.
      shouldRetry: () => true,
      on: {
        connecting: () => setStatus('connecting'),
        connected: () => setStatus('live'),
        closed: () => setStatus(this.hasListeners() ? 'connecting' : 'idle'),
      },
    });
    return client;
  }

  private hasListeners(): boolean {
    return this.client.observed;
  }
}

/** graphql-ws reports a refused subscription as the GraphQL errors array; the API's code is in `extensions`. */
function refusalCode(error: unknown): string | undefined {
  if (!Array.isArray(error)) {
    return undefined;
  }
  for (const item of error as readonly unknown[]) {
    const extensions: unknown =
      typeof item === 'object' && item !== null ? (item as { extensions?: unknown }).extensions : undefined;
    const code: unknown =
      typeof extensions === 'object' && extensions !== null
        ? (extensions as { code?: unknown }).code
        : undefined;
    if (typeof code === 'string' && refusesCredential(code)) {
      return code;
    }
  }
  return undefined;
}
