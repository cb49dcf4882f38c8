import { inject } from '@angular/core';
import { type CanActivateChildFn, type CanActivateFn, Router } from '@angular/router';

import { LOGIN_PATH, returnUrlParams, safeReturnUrl } from './return-url';
import { Session } from './session';

/** Every console route but the sign-in page: without a session, sign in first and come back. */
export const requireSession: CanActivateFn & CanActivateChildFn = (_route, state) => {
  if (inject(Session).current()) {
    return true;
  }
  return inject(Router).createUrlTree([LOGIN_PATH], { queryParams: returnUrlParams(state.url) });
};

/** The sign-in page: an operator who is already signed in goes where they were headed. */
export const redirectWhenSignedIn: CanActivateFn = (route) => {
  if (!inject(Session).current()) {
    return true;
  }
  return inject(Router).parseUrl(safeReturnUrl(route.queryParamMap.get('returnUrl')));
};
