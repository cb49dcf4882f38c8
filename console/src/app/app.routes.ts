import type { Routes } from '@angular/router';

import { CONSOLE_VIEWS } from './console-views';
import { LOGIN_PATH } from './shared/session/return-url';
import { redirectWhenSignedIn, requireSession } from './shared/session/session.guard';

export const routes: Routes = [
  {
    path: LOGIN_PATH.slice(1),
    title: 'Sign in',
    canActivate: [redirectWhenSignedIn],
    loadComponent: () => import('./pages/login/login').then((m) => m.Login),
  },
  {
    // Everything else is behind the session guard, so a view added to
    // CONSOLE_VIEWS cannot be reached without signing in.
    path: '',
    canActivateChild: [requireSession],
    children: [
      ...CONSOLE_VIEWS.map((view): Routes[number] => ({
        path: view.path,
        title: view.label,
        loadComponent: view.loadComponent,
        ...(view.children === undefined ? {} : { children: view.children }),
      })),
      { path: '', pathMatch: 'full', redirectTo: CONSOLE_VIEWS[0].path },
    ],
  },
  // Old or mistyped links land somewhere useful instead of an empty shell.
  { path: '**', redirectTo: CONSOLE_VIEWS[0].path },
];
