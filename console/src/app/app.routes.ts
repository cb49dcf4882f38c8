import type { Routes } from '@angular/router';

import { CONSOLE_VIEWS } from './console-views';

export const routes: Routes = [
  ...CONSOLE_VIEWS.map((view): Routes[number] => ({
    path: view.path,
    title: view.label,
    loadComponent: view.loadComponent,
  })),
  { path: '', pathMatch: 'full', redirectTo: CONSOLE_VIEWS[0].path },
  // Old or mistyped links land somewhere useful instead of an empty shell.
  { path: '**', redirectTo: CONSOLE_VIEWS[0].path },
];
