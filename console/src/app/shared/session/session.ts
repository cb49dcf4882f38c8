import { DOCUMENT, Injectable, computed, inject, signal } from '@angular/core';
import { Router } from '@angular/router';
import { ErrorCode } from '@lunanexa/contracts/errors';
import { type Permission, type Role, isRole, roleHasPermission } from '@lunanexa/contracts/roles';

import type { GraphqlRequestError } from '../graphql/graphql-error';
import type { LoginResult } from '../graphql/schema-types';
import { LOGIN_PATH, returnUrlParams } from './return-url';

/**
 * sessionStorage, not localStorage: the token dies with the tab, is not shared
 * with other tabs, and is not left on disk after the browser closes.
 */
const STORAGE_KEY = 'lunanexa.console.session';

/** setTimeout's longest delay; a later expiry is re-armed when it fires. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

export interface SessionOperator {
  readonly id: string;
  readonly username: string;
  readonly role: Role;
}

interface SessionState {
  readonly accessToken: string;
  /** When the API stops accepting the token, as the API stated it at login. */
  readonly expiresAt: Date;
  readonly operator: SessionOperator;
}

/** What the sign-in page tells an operator about the session that just ended. */
export interface SessionNotice {
  /** `info` for an end the operator chose; `warning` for one they did not, or that went partly wrong. */
  readonly tone: 'info' | 'warning';
  readonly message: string;
  /** The failed call behind the notice, shown with its code and ids. */
  readonly error?: GraphqlRequestError;
}

export const SESSION_NOTICES = {
  expired: { tone: 'warning', message: 'Your session expired — sign in again.' },
  revoked: {
    tone: 'warning',
    message:
      'The API no longer accepts your session (signed out elsewhere, role changed or account disabled) — sign in again.',
  },
  signedOut: { tone: 'info', message: 'You signed out.' },
} as const satisfies Readonly<Record<string, SessionNotice>>;

/** Codes with which the API refuses a credential itself (as opposed to FORBIDDEN, which refuses its role). */
export function refusesCredential(code: string): boolean {
  return code === ErrorCode.UNAUTHENTICATED || code === ErrorCode.TOKEN_EXPIRED;
}

/**
 * The signed-in operator of this browser tab: the session token from `login`,
 * when it expires, and who it belongs to. Persisted in sessionStorage so a
 * reload keeps the operator signed in; ended by sign-out, by the API refusing
 * the token, or by a timer at `expiresAt`, whichever comes first.
 */
@Injectable({ providedIn: 'root' })
export class Session {
  private readonly router = inject(Router);
  private readonly storage = sessionStorageOf(inject(DOCUMENT));

  private readonly state = signal<SessionState | undefined>(undefined);
  private readonly noticeState = signal<SessionNotice | undefined>(undefined);
  private timer: ReturnType<typeof setTimeout> | undefined;

  readonly operator = computed(() => this.state()?.operator);
  readonly role = computed(() => this.state()?.operator.role);
  readonly expiresAt = computed(() => this.state()?.expiresAt);
  readonly signedIn = computed(() => this.state() !== undefined);
  /** Why the last session ended, until the next one starts. */
  readonly notice = this.noticeState.asReadonly();

  constructor() {
    const stored = this.read();
    if (stored === undefined) {
      return;
    }
    if (stored.expiresAt.getTime() <= Date.now()) {
      this.remove();
      this.noticeState.set(SESSION_NOTICES.expired);
      return;
    }
    this.state.set(stored);
    this.arm(stored);
  }

  /** What the signed-in role may do, from the contracts role table the API enforces. */
  can(permission: Permission): boolean {
    const role = this.role();
    return role !== undefined && roleHasPermission(role, permission);
  }

  accessToken(): string | undefined {
    return this.state()?.accessToken;
  }

  /**
   * For route guards: whether a session is in force right now. A session whose
   * expiry passed while its timer could not run (a suspended laptop, a
   * throttled background tab) is ended here rather than sent to the API.
   */
  current(): boolean {
    const state = this.state();
    if (state !== undefined && state.expiresAt.getTime() <= Date.now()) {
      this.end(SESSION_NOTICES.expired);
      return false;
    }
    return state !== undefined;
  }

  /** Starts the session `login` answered with. Throws when the answer cannot be used. */
  start(result: LoginResult): void {
    const expiresAt = new Date(result.expiresAt);
    if (Number.isNaN(expiresAt.getTime())) {
      throw new Error(`The API answered login with an unreadable expiry time (${result.expiresAt}).`);
    }
    if (expiresAt.getTime() <= Date.now()) {
      // Otherwise every sign-in would expire on the spot, with no hint why.
      throw new Error(
        `This computer's clock is ahead of the API's by more than a session lasts (the session expires at ` +
          `${expiresAt.toISOString()}, this computer says it is ${new Date().toISOString()}). ` +
          'Correct the clock, then sign in again.',
      );
    }
    const role: unknown = result.operator.role;
    if (!isRole(role)) {
      throw new Error(
        `The API answered with the role "${String(role)}", which this console version does not know. ` +
          'Reload the page to load the current console.',
      );
    }
    const state: SessionState = {
      accessToken: result.accessToken,
      expiresAt,
      operator: { id: result.operator.id, username: result.operator.username, role },
    };
    this.write(state);
    this.state.set(state);
    this.noticeState.set(undefined);
    this.arm(state);
  }

  /**
   * Ends the session in this tab (nothing is sent to the API) and records
   * why, for the sign-in page. Returns the token of the ended session.
   */
  end(notice?: SessionNotice): string | undefined {
    const ended = this.state();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remove();
    this.state.set(undefined);
    if (notice !== undefined) {
      this.noticeState.set(notice);
    }
    return ended?.accessToken;
  }

  /** Replaces the notice while no session is in force (a later finding about the session that ended). */
  amendNotice(notice: SessionNotice): void {
    if (this.state() === undefined) {
      this.noticeState.set(notice);
    }
  }

  /**
   * The API refused `accessToken` with `code` (UNAUTHENTICATED or
   * TOKEN_EXPIRED). If that token is still this tab's session, the session
   * ends and the operator is sent to sign in, then back to where they were.
   * A refusal of a token that is no longer current changes nothing: its
   * session already ended, and the one in force may be a newer one.
   */
  refused(accessToken: string, code: string): void {
    if (this.state()?.accessToken !== accessToken || !refusesCredential(code)) {
      return;
    }
    this.expire(code === ErrorCode.TOKEN_EXPIRED ? SESSION_NOTICES.expired : SESSION_NOTICES.revoked);
  }

  private expire(notice: SessionNotice): void {
    this.end(notice);
    void this.router.navigate([LOGIN_PATH], { queryParams: returnUrlParams(this.router.url) });
  }

  private arm(state: SessionState): void {
    clearTimeout(this.timer);
    const remaining = state.expiresAt.getTime() - Date.now();
    this.timer = setTimeout(
      () => {
        if (this.state() !== state) {
          return;
        }
        if (Date.now() < state.expiresAt.getTime()) {
          this.arm(state);
          return;
        }
        this.expire(SESSION_NOTICES.expired);
      },
      Math.min(Math.max(remaining, 0), MAX_TIMER_DELAY_MS),
    );
  }

  private read(): SessionState | undefined {
    let text: string | null;
    try {
      text = this.storage?.getItem(STORAGE_KEY) ?? null;
    } catch {
      return undefined;
    }
    const state = text === null ? undefined : parseStoredSession(text);
    if (text !== null && state === undefined) {
      // Written by another console version or edited by hand: unusable either way.
      this.remove();
    }
    return state;
  }

  private write(state: SessionState): void {
    const stored: StoredSession = {
      accessToken: state.accessToken,
      expiresAt: state.expiresAt.toISOString(),
      operator: state.operator,
    };
    try {
      this.storage?.setItem(STORAGE_KEY, JSON.stringify(stored));
    } catch {
      // Storage full or blocked: the session still works in this page, it just does not survive a reload.
    }
  }

  private remove(): void {
    try {
      this.storage?.removeItem(STORAGE_KEY);
    } catch {
      // Blocked storage holds nothing to remove.
    }
  }
}

interface StoredSession {
  readonly accessToken: string;
  readonly expiresAt: string;
  readonly operator: SessionOperator;
}

function sessionStorageOf(document: Document): Storage | undefined {
  try {
    // Reading the property itself throws where the browser blocks storage for the site.
    return document.defaultView?.sessionStorage ?? undefined;
  } catch {
    return undefined;
  }
}

function parseStoredSession(text: string): SessionState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = asRecord(value);
  const operator = asRecord(record?.['operator']);
  const accessToken = record?.['accessToken'];
  const expiresAt = record?.['expiresAt'];
  const id = operator?.['id'];
  const username = operator?.['username'];
  const role = operator?.['role'];
  if (
    typeof accessToken !== 'string' ||
    accessToken.length === 0 ||
    typeof expiresAt !== 'string' ||
    typeof id !== 'string' ||
    typeof username !== 'string' ||
    !isRole(role)
  ) {
    return undefined;
  }
  const expiry = new Date(expiresAt);
  if (Number.isNaN(expiry.getTime())) {
    return undefined;
  }
  return { accessToken, expiresAt: expiry, operator: { id, username, role } };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
