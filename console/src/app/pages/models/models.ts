/*
 * Accessible names for browser tests (Playwright getByRole / getByLabel / getByText):
 *
 * List, /models
 *   heading 'Models' (level 1); buttons 'Refresh now' and 'Create model version' (operators);
 *   per model a region named after it holding table '<model> versions' whose rowheaders are links
 *   named after the version ref ('chat@1'). Empty: text 'No models yet.'.
 *   Failure: an alert 'Could not load models: <error title>' and button 'Retry'.
 * Version, /models/<ref>
 *   link 'All models'; heading '<ref>' (level 1); status 'Version state'; buttons 'Verify digest',
 *   'Evaluate', 'Approve', 'Deprecate' (role-aware; disabled with a tooltip when the lifecycle does
 *   not allow them); regions 'Artifact' (button 'Copy artifact digest'), 'License', 'Runtime and
 *   hardware', 'Verification', 'Evaluations' (table 'Evaluation runs, newest first'), 'Aliases'.
 * Evaluate dialog: dialog 'Evaluate <ref>'; comboboxes 'Deployment', 'Evaluation suite',
 *   'Benchmark profile (optional)'; buttons 'Cancel', 'Start evaluation'; then heading
 *   'Evaluation of <ref> started', status 'Evaluation state', the receipt and 'Done'.
 * Confirm dialog: dialog 'Approve <ref>' / 'Deprecate <ref>' with the effect in bold, textbox
 *   'Note (optional)' or 'Reason'; buttons 'Cancel', 'Confirm approve' / 'Confirm deprecate'.
 */
import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, RouterOutlet } from '@angular/router';
import { map } from 'rxjs';

import { VERSION_REF_PARAM } from './model-rules';
import { ModelVersionDetailPage } from './model-version-detail';

/** The Models view's frame: the registry at `/models`, one version at `/models/<ref>`. */
@Component({
  selector: 'lnx-models',
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
export class Models {}

/** `/models/<ref>`, following the ref in the URL (the router reuses the component). */
@Component({
  selector: 'lnx-model-version-route',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ModelVersionDetailPage],
  template: `<lnx-model-version-detail [versionRef]="ref()" />`,
})
export class ModelVersionRoute {
  protected readonly ref = toSignal(
    inject(ActivatedRoute).paramMap.pipe(map((params) => params.get(VERSION_REF_PARAM) ?? '')),
    { requireSync: true },
  );
}
