import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute } from '@angular/router';
import { map } from 'rxjs';

import { NodeDetail } from './node-detail';
import { NodeList } from './node-list';
import { NODE_QUERY_PARAM } from './nodes-view';

/**
 * The Nodes view: the fleet list, or one node's detail when the URL names a
 * node (`/nodes?node=dgx-2`). The node travels as a query parameter because
 * the shell builds one route per console view (app.routes.ts) with no child
 * routes, so `/nodes/dgx-2` would not reach this component.
 */
@Component({
  selector: 'lnx-nodes',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [NodeDetail, NodeList],
  template: `
    @if (selected(); as name) {
      <lnx-node-detail [name]="name" />
    } @else {
      <lnx-node-list />
    }
  `,
  styles: `
    :host {
      display: block;
      max-width: 1200px;
    }
  `,
})
export class Nodes {
  protected readonly selected = toSignal(
    inject(ActivatedRoute).queryParamMap.pipe(map((params) => params.get(NODE_QUERY_PARAM) || undefined)),
    { initialValue: undefined },
  );
}
