import type { Params } from '@angular/router';

/** The sign-in page; the one route open without a session. */
export const LOGIN_PATH = '/login';

/** Where a signed-in operator lands when there is nowhere to return to. */
const HOME_URL = '/';

/** Query parameters for the sign-in page, so sign-in brings the operator back to `url`. */
export function returnUrlParams(url: string): Params {
  return url === HOME_URL || isLoginUrl(url) ? {} : { returnUrl: url };
}

/**
 * The in-console URL to go to after sign-in. `returnUrl` comes from the
 * address bar, so anyone can craft it: only a path inside the console is
 * followed, never another origin (`//host`, `/\host`) or the sign-in page itself.
 */
export function safeReturnUrl(returnUrl: string | null | undefined): string {
  if (
    typeof returnUrl !== 'string' ||
    !returnUrl.startsWith('/') ||
    returnUrl.startsWith('//') ||
    returnUrl.startsWith('/\\') ||
    isLoginUrl(returnUrl)
  ) {
    return HOME_URL;
  }
  return returnUrl;
}

function isLoginUrl(url: string): boolean {
  return url === LOGIN_PATH || /^\/login[/?#;]/.test(url);
}
