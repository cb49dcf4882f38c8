/*
 * Accessible names for browser tests:
 *   List (/tenants): heading 'Tenants' (level 1), button 'Create tenant' for admins; region 'Tenants' with
 *   table 'Tenants' whose rowheaders link each tenant id; empty: text 'No tenants yet.'.
 *   Detail (/tenants/<id>): heading <id> (level 1), link 'All tenants'; buttons 'Edit quotas…' and
 *   'Create gateway key…' for admins; region 'Gateway keys' with table 'Gateway keys of <id>' (rowheaders are
 *   key prefixes), per active key a button 'Revoke key <prefix>' for admins; empty: 'No gateway keys yet.'.
 *   Dialogs: 'Create a tenant' / 'Quotas of <id>' (fields 'Tenant id', 'Display name (optional)',
 *   'Requests per minute', 'Tokens per minute', 'Concurrent requests'; buttons 'Create tenant' / 'Save quotas',
 *   then 'Done'); 'Create a gateway key for <id>' (fields 'Name', 'Aliases', 'Expires'; 'Create key', then
 *   heading 'Gateway key created', text 'Shown once.', code 'Gateway key', button 'Copy key',
 *   'I have copied it — close'); 'Revoke key <prefix>' ('Confirm revoke', then 'Done').
 *   Failure: an alert 'Could not load tenants: …' / 'Could not load the tenant: …' and 'Retry'.
 */
import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, RouterOutlet } from '@angular/router';
import { map } from 'rxjs';

import { TenantDetail } from './tenant-detail';
import { TENANT_ID_PARAM } from './tenants-view';

/** The Tenants view's frame: the list at `/tenants`, one tenant and its keys at `/tenants/<id>`. */
@Component({
  selector: 'lnx-tenants',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterOutlet],
  template: `<router-outlet />`,
  styles: `
    :host {
      display: block;
      max-width: 1200px;
    }
  `,
})
export class Tenants {}

/** `/tenants/<id>`; the router reuses it when only the id changes, so the id is a signal. */
@Component({
  selector: 'lnx-tenant-detail-route',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TenantDetail],
  template: `<lnx-tenant-detail [tenantId]="tenantId()" />`,
})
export class TenantDetailRoute {
  protected readonly tenantId = toSignal(
    inject(ActivatedRoute).paramMap.pipe(map((params) => params.get(TENANT_ID_PARAM) ?? '')),
    { requireSync: true },
  );
}
