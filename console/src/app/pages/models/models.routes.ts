import type { Routes } from '@angular/router';

import { VERSION_REF_PARAM } from './model-rules';

/** Children of the Models view (console-views.ts): the list, and one version at `/models/<name@version>`. */
export const MODELS_ROUTES: Routes = [
  {
    path: '',
    loadComponent: () => import('./model-list').then((m) => m.ModelList),
  },
  {
    path: `:${VERSION_REF_PARAM}`,
    title: (route) => route.paramMap.get(VERSION_REF_PARAM) ?? 'Model version',
    loadComponent: () => import('./models').then((m) => m.ModelVersionRoute),
  },
];
