import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, RouterOutlet } from '@angular/router';
import { map } from 'rxjs';

import { NodeDetail } from './node-detail';
import { NODE_NAME_PARAM } from './nodes-view';

/** The Nodes view's frame: the fleet list at `/nodes`, one node at `/nodes/<name>` (nodes.routes.ts). */
@Component({
  selector: 'lnx-nodes',
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
export class Nodes {}

/**
 * `/nodes/<name>`. The router reuses this component when only the name
 * changes, so the name is a signal the detail follows rather than a value
 * read once.
 */
@Component({
  selector: 'lnx-node-detail-route',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [NodeDetail],
  template: `<lnx-node-detail [name]="name()" />`,
})
export class NodeDetailRoute {
  protected readonly name = toSignal(
    inject(ActivatedRoute).paramMap.pipe(map((params) => params.get(NODE_NAME_PARAM) ?? '')),
    { requireSync: true },
  );
}
