import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
} from '@angular/core';
import { MatProgressBar } from '@angular/material/progress-bar';
import { filter } from 'rxjs';

import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, type GraphqlFlow } from '../../shared/graphql/graphql-client';
import { LiveEvents } from '../../shared/graphql/live-events';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { isSettled, replicaText } from './deployment-rules';
import { DEPLOYMENT, type Deployment } from './deployments.queries';
import { PROGRESS_INTERVAL_MS, changesDeployment } from './deployments-view';

/**
 * A new deployment's state as it moves (Pending → Placing → … → Ready), for
 * the deploy dialog: the current state with its replica count, the states
 * seen so far, and the reason when it stalls or fails. Polls quickly while
 * shown, and at once on the deployment's live events.
 */
@Component({
  selector: 'lnx-deployment-progress',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatProgressBar, ErrorPanel, StatusBadge],
  template: `
    <section class="progress" aria-labelledby="progress-title">
      <h3 id="progress-title">Deployment state</h3>
      <div class="bar-slot">
        @if (!settled()) {
          <mat-progress-bar mode="indeterminate" aria-label="Waiting for the deployment to settle" />
        }
      </div>
      @if (current(); as d) {
        <p class="now" role="status" aria-label="Deployment state">
          <lnx-status-badge [status]="d.state" />
          <span>{{ replicaText(d) }} replicas ready</span>
        </p>
        @if (d.stateReason; as reason) {
          <p class="reason">{{ reason }}</p>
        }
      } @else {
        <p class="now" role="status" aria-label="Deployment state">
          Waiting for the workflow to write the deployment…
        </p>
      }
      @if (trail().length > 1) {
        <p class="trail"><span class="lnx-visually-hidden">States so far: </span>{{ trail().join(' → ') }}</p>
      }
      @if (watched.error(); as error) {
        <lnx-error-panel
          heading="Could not read the deployment's state"
          [error]="error"
          [busy]="watched.loading()"
          (retry)="watched.refresh()"
        />
      }
    </section>
  `,
  styles: `
    .progress {
      display: flex;
      flex-direction: column;
      gap: 8px;
      padding: 12px 16px;
      border-radius: var(--mat-sys-corner-medium);
      background: var(--mat-sys-surface-container);
    }

    h3 {
      margin: 0;
      font: var(--mat-sys-title-small);
    }

    .bar-slot {
      height: 4px;
    }

    p {
      margin: 0;
    }

    .now {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 8px 12px;
    }

    .reason,
    .trail {
      font: var(--mat-sys-body-small);
      color: var(--mat-sys-on-surface-variant);
      overflow-wrap: anywhere;
    }
  `,
})
export class DeploymentProgress {
  private readonly graphql = inject(GraphqlClient);

  /** Id of the deployment to watch. */
  readonly deploymentId = input.required<string>();
  /** The deployment as the create call answered (null when the workflow had not written it yet). */
  readonly initial = input<Deployment | null>(null);
  /** The dialog's flow, so the watch is found in the logs with the call that started the deployment. */
  readonly flow = input<GraphqlFlow>();

  protected readonly watched: PolledQuery<Deployment | null> = pollQuery(
    (signal) =>
      this.graphql
        .request(DEPLOYMENT, { deployment: this.deploymentId() }, { flow: this.flow(), signal })
        .then((data) => data.deployment),
    {
      intervalMs: PROGRESS_INTERVAL_MS,
      refreshOn: inject(LiveEvents)
        .events(['audit', 'node'])
        .pipe(filter((event) => changesDeployment(event, this.current()))),
    },
  );

  protected readonly current = computed(
    (): Deployment | undefined => this.watched.value() ?? this.initial() ?? undefined,
  );
  protected readonly settled = computed(() => {
    const deployment = this.current();
    return deployment !== undefined && isSettled(deployment);
  });
  protected readonly trail = signal<readonly string[]>([]);
  protected readonly replicaText = replicaText;

  constructor() {
    effect(() => {
      const state = this.current()?.state;
      if (state !== undefined && untracked(this.trail).at(-1) !== state) {
        this.trail.update((trail) => [...trail, state]);
      }
    });
  }
}
