import { inject } from '@angular/core';
import { type CanActivateFn, Router, type Routes } from '@angular/router';

import { LEGACY_NODE_QUERY_PARAM, NODE_NAME_PARAM, nodeDetailLink } from './nodes-view';

/** `/nodes?node=<name>`, the detail's address before it had a path of its own, still opens that node. */
const redirectLegacyNodeLink: CanActivateFn = (route) => {
  const name = route.queryParamMap.get(LEGACY_NODE_QUERY_PARAM);
  return name ? inject(Router).createUrlTree(nodeDetailLink(name)) : true;
};

/** Children of the Nodes view (console-views.ts); the components load with the view, not with the shell. */
export const NODES_ROUTES: Routes = [
  {
    path: '',
    canActivate: [redirectLegacyNodeLink],
    loadComponent: () => import('./node-list').then((m) => m.NodeList),
  },
  {
    path: `:${NODE_NAME_PARAM}`,
    title: (route) => route.paramMap.get(NODE_NAME_PARAM) ?? 'Node',
    loadComponent: () => import('./nodes').then((m) => m.NodeDetailRoute),
  },
];
