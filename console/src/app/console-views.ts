import type { Route, Routes } from '@angular/router';
import type { Permission } from '@lunanexa/contracts/roles';

import { DEPLOYMENTS_ROUTES } from './pages/deployments/deployments.routes';
import { MODELS_ROUTES } from './pages/models/models.routes';
import { NODES_ROUTES } from './pages/nodes/nodes.routes';
import { TENANTS_ROUTES } from './pages/tenants/tenants.routes';
import type { IconName } from './shared/icon/icon';

/**
 * The console's views, in navigation order. Each entry is both a lazy route
 * and a side-nav link, so adding a view (Nodes, Models, Deployments, …) is
 * one entry here and a page under `pages/`.
 */
export interface ConsoleView {
  /** URL segment, also the route path. */
  readonly path: string;
  /** Nav label and page title. */
  readonly label: string;
  readonly icon: IconName;
  /** What the signed-in role needs for the view to be offered in the nav (the API enforces it per call). */
  readonly permission: Permission;
  readonly loadComponent: NonNullable<Route['loadComponent']>;
  /** Routes under the view's path (`nodes/:name`); the view's component then hosts a `<router-outlet>`. */
  readonly children?: Routes;
}

export const CONSOLE_VIEWS: readonly [ConsoleView, ...ConsoleView[]] = [
  {
    path: 'overview',
    label: 'Overview',
    icon: 'dashboard',
    permission: 'read',
    loadComponent: () => import('./pages/overview/overview').then((m) => m.Overview),
  },
  {
    path: 'nodes',
    label: 'Nodes',
    // The icon set has no server glyph yet; the stacked bars read as a rack of machines.
    icon: 'menu',
    permission: 'read',
    loadComponent: () => import('./pages/nodes/nodes').then((m) => m.Nodes),
    children: NODES_ROUTES,
  },
  {
    path: 'models',
    label: 'Models',
    // Registry records of several kinds: artifacts, licenses, runtimes, evaluations.
    icon: 'category',
    permission: 'read',
    loadComponent: () => import('./pages/models/models').then((m) => m.Models),
    children: MODELS_ROUTES,
  },
  {
    path: 'registry',
    label: 'Registry',
    // Licenses, runtimes, evaluation suites and benchmark profiles: the records versions are checked against.
    icon: 'category',
    permission: 'read',
    loadComponent: () => import('./pages/registry/registry').then((m) => m.Registry),
  },
  {
    path: 'deployments',
    label: 'Deployments',
    // Stacked layers: replicas of a model version laid over the fleet.
    icon: 'layers',
    permission: 'read',
    loadComponent: () => import('./pages/deployments/deployments').then((m) => m.Deployments),
    children: DEPLOYMENTS_ROUTES,
  },
  {
    path: 'benchmarks',
    label: 'Benchmarks',
    icon: 'speed',
    permission: 'read',
    loadComponent: () => import('./pages/benchmarks/benchmarks').then((m) => m.Benchmarks),
  },
  {
    path: 'requests',
    label: 'Requests',
    // A line over time: traffic, latency and the requests behind them.
    icon: 'showChart',
    permission: 'read',
    loadComponent: () => import('./pages/requests/requests').then((m) => m.Requests),
  },
  {
    path: 'tenants',
    label: 'Tenants',
    // Who calls the gateway: tenants, their quotas and their gateway keys.
    icon: 'people',
    permission: 'read',
    loadComponent: () => import('./pages/tenants/tenants').then((m) => m.Tenants),
    children: TENANTS_ROUTES,
  },
  {
    path: 'policies',
    label: 'Policies',
    // Guards on data and code: tenant data policies and the runtime allowlist.
    icon: 'shield',
    permission: 'read',
    loadComponent: () => import('./pages/policies/policies').then((m) => m.Policies),
  },
  {
    path: 'fleet-health',
    label: 'Fleet health',
    // Healing and drift: what the controller would repair, and repairing it.
    icon: 'check',
    permission: 'read',
    loadComponent: () => import('./pages/fleet-health/fleet-health').then((m) => m.FleetHealth),
  },
  {
    path: 'access',
    label: 'Access',
    // Sign-in: your password, and (administrators) the operator accounts.
    icon: 'login',
    permission: 'session',
    loadComponent: () => import('./pages/access/access').then((m) => m.Access),
  },
  {
    path: 'audit',
    label: 'Audit',
    // The icon set has no ledger glyph; the check mark stands for receipts that verify.
    icon: 'check',
    permission: 'read',
    loadComponent: () => import('./pages/audit/audit').then((m) => m.Audit),
  },
];
