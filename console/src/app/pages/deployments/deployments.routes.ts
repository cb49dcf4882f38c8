import type { Routes } from '@angular/router';

import { DEPLOYMENT_NAME_PARAM } from './deployments-view';
import { ALIAS_NAME_PARAM } from './rollouts-view';

/** Children of the Deployments view (console-views.ts); the components load with the view, not with the shell. */
export const DEPLOYMENTS_ROUTES: Routes = [
  {
    path: '',
    loadComponent: () => import('./deployment-list').then((m) => m.DeploymentList),
  },
  {
    // Two segments: a deployment named "aliases" still opens at /deployments/aliases.
    path: `aliases/:${ALIAS_NAME_PARAM}`,
    title: (route) => route.paramMap.get(ALIAS_NAME_PARAM) ?? 'Alias',
    loadComponent: () => import('./alias-detail').then((m) => m.AliasDetailRoute),
  },
  {
    path: `:${DEPLOYMENT_NAME_PARAM}`,
    title: (route) => route.paramMap.get(DEPLOYMENT_NAME_PARAM) ?? 'Deployment',
    loadComponent: () => import('./deployments').then((m) => m.DeploymentDetailRoute),
  },
];
