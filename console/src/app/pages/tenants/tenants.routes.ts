import type { Routes } from '@angular/router';

import { TENANT_ID_PARAM } from './tenants-view';

/** Children of the Tenants view (console-views.ts); the components load with the view, not with the shell. */
export const TENANTS_ROUTES: Routes = [
  {
    path: '',
    loadComponent: () => import('./tenant-list').then((m) => m.TenantList),
  },
  {
    path: `:${TENANT_ID_PARAM}`,
    title: (route) => route.paramMap.get(TENANT_ID_PARAM) ?? 'Tenant',
    loadComponent: () => import('./tenants').then((m) => m.TenantDetailRoute),
  },
];
