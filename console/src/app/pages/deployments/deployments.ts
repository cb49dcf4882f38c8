/*
 * Accessible names for browser tests (Playwright getByRole / getByLabel / getByText):
 *
 * List, /deployments
 *   heading 'Deployments' (level 1); buttons 'Refresh now' and 'Deploy' (operator and admin only);
 *   region 'Deployments, scrollable' holding table 'Deployments; column headers sort the table'
 *   (sortable column headers 'Name', 'Model version', 'State', 'Ready' ("1 of 3"), 'Gen. observed'
 *   ("3 of 4"), 'Created'); each row's rowheader is a link named after the deployment (use exact: the
 *   workflow link's name contains it too);
 *   the workflow cell is a link '<workflow id> (opens the Temporal UI in a new tab)'.
 *   Empty: text 'No deployments yet.' and, for operators, a second 'Deploy' button.
 *   Failure: an alert with text 'Could not load deployments: <error title>', and button 'Retry'.
 * Detail, /deployments/<name>
 *   link 'All deployments'; heading '<name>' (level 1); buttons 'Refresh now' and
 *   'Stop deployment' (operator and admin only; disabled, not hidden, once Stopped);
 *   region 'State'; regions 'Record and workflow' (buttons 'Copy deployment id', 'Copy workflow id')
 *   and 'Replicas' holding table 'Replicas: desired against observed, per node' whose rowheaders are
 *   links to the nodes. Unknown name: text 'There is no deployment named <name>.'
 * Deploy dialog: dialog 'Deploy a model version'
 *   textbox 'Deployment name'; comboboxes 'Model version' and 'Node' (first option 'Scheduler
 *   chooses'); spinbutton 'Replicas'; button 'Register a fake model version' (aria-expanded) opens
 *   group 'New fake model version' with textboxes 'Model name', 'Version', spinbuttons 'Time to first
 *   token (ms)', 'Tokens per second' and button 'Register model version'; buttons 'Cancel' and
 *   'Create deployment'. After creating: heading 'Deployment <name> created', status 'Deployment state'
 *   (the state badge and "<ready> of <desired> replicas ready"), the receipt, button 'Done'.
 * Stop dialog: dialog 'Stop deployment <name>'
 *   text 'Stops deployment <name>: <n> replica(s) on <nodes>, <n> in-flight request(s).'; buttons
 *   'Cancel' and 'Confirm stop' ('Try again' after a failure). After stopping: heading
 *   'Deployment <name> stopped', a status with text 'Stopped: <name>', the receipt, button 'Done'.
 * Receipt (shared/receipt, in both dialogs): buttons 'Copy receipt hash' (only when the answer holds
 *   the hash), 'Copy request id', 'Copy correlation id', 'Copy workflow id'; link
 *   '<workflow id> (opens the Temporal UI in a new tab)'.
 * Error toast (shared/toasts): an alert with text '<what failed>: <error title>' (e.g. 'Could not
 *   cordon dgx-1: …' on a node's page) and buttons 'Copy error code', 'Copy request id',
 *   'Copy correlation id' and 'Dismiss'.
 */
import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, RouterOutlet } from '@angular/router';
import { map } from 'rxjs';

import { DeploymentDetail } from './deployment-detail';
import { DEPLOYMENT_NAME_PARAM } from './deployments-view';

/** The Deployments view's frame: the list at `/deployments`, one deployment at `/deployments/<name>`. */
@Component({
  selector: 'lnx-deployments',
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
export class Deployments {}

/**
 * `/deployments/<name>`. The router reuses this component when only the name
 * changes, so the name is a signal the detail follows rather than a value
 * read once.
 */
@Component({
  selector: 'lnx-deployment-detail-route',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DeploymentDetail],
  template: `<lnx-deployment-detail [name]="name()" />`,
})
export class DeploymentDetailRoute {
  protected readonly name = toSignal(
    inject(ActivatedRoute).paramMap.pipe(map((params) => params.get(DEPLOYMENT_NAME_PARAM) ?? '')),
    { requireSync: true },
  );
}
