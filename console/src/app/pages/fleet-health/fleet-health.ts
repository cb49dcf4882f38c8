/*
 * Accessible names for browser tests:
 *   /fleet-health: heading 'Fleet health' (level 1); region 'Healing' with table 'Healing plan (dry run)'
 *   (or text 'Healing would do nothing now.'), button 'Run healing…'; region 'Drift' with button
 *   'Find drift (dry run)', then table 'Drift: desired against observed' (or text 'No drift: …') and button
 *   'Reconcile…'. Dialogs 'Run healing' / 'Reconcile the fleet', confirmed with 'Run healing' / 'Reconcile',
 *   then 'Done'.
 */
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { MatProgressBar } from '@angular/material/progress-bar';

import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { GraphqlRequestError } from '../../shared/graphql/graphql-error';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { Session } from '../../shared/session/session';
import { canRunFleetRepairs, healingScope, reconcileScope } from './fleet-health-rules';
import { HEAL, HEALING_PLAN, RECONCILE, type HealingPlan, type ReconcileRun } from './fleet-health.queries';
import { FleetRunDialog, type FleetRunDialogData, type FleetRunOutcome } from './fleet-run-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

const REFRESH_INTERVAL_MS = 15_000;
const DIALOG_SIZE = { width: '640px', maxWidth: 'calc(100vw - 32px)' } as const;

/**
 * Fleet health: what the healing rules would do now (a dry run, refreshed) and running a pass; the drift
 * between desired and observed state (a reconcile dry run, on demand: each is a workflow) and repairing it.
 */
@Component({
  selector: 'lnx-fleet-health',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatProgressBar,
    ErrorPanel,
    LivePageHeader,
    QueryFailure,
  ],
  template: `
    <lnx-live-page-header
      heading="Fleet health"
      [refreshSeconds]="refreshSeconds"
      (refresh)="plan.refresh()"
    />

    <mat-card appearance="outlined" role="region" aria-labelledby="healing-title">
      <mat-card-header>
        <mat-card-title><h2 id="healing-title">Healing</h2></mat-card-title>
        <mat-card-subtitle
          >What the healing rules would do now (dry run; nothing changes until you run it)</mat-card-subtitle
        >
      </mat-card-header>
      <mat-card-content>
        <lnx-query-failure
          [query]="plan"
          heading="Could not load the healing plan"
          (retry)="plan.refresh()"
        />
        @if (plan.value(); as current) {
          @if (current.actions.length === 0) {
            <p class="empty">Healing would do nothing now.</p>
          } @else {
            <div lnxTableScroll="Healing plan">
              <table class="lnx-table">
                <caption>
                  Healing plan (dry run)
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Rule</th>
                    <th scope="col">Action</th>
                    <th scope="col">Target</th>
                    <th scope="col">Why</th>
                  </tr>
                </thead>
                <tbody>
                  @for (action of current.actions; track action.rule + action.target) {
                    <tr>
                      <td>
                        <code>{{ action.rule }}</code>
                      </td>
                      <td>{{ action.kind }}</td>
                      <th scope="row">
                        <code>{{ action.target }}</code>
                      </th>
                      <td>{{ action.reason }}</td>
                    </tr>
                  }
                </tbody>
              </table>
            </div>
          }
          @if (current.skipped.length > 0) {
            <details>
              <summary>Held back by a bound: {{ current.skipped.length }}</summary>
              <ul>
                @for (skip of current.skipped; track skip.rule + skip.target) {
                  <li>
                    <code>{{ skip.rule }}</code> {{ skip.target }}: {{ skip.reason }}
                  </li>
                }
              </ul>
            </details>
          }
          @if (canRun()) {
            <button matButton="filled" type="button" (click)="runHealing(current)">Run healing…</button>
          }
        }
      </mat-card-content>
    </mat-card>

    <mat-card appearance="outlined" role="region" aria-labelledby="drift-title">
      <mat-card-header>
        <mat-card-title><h2 id="drift-title">Drift</h2></mat-card-title>
        <mat-card-subtitle
          >Desired state against what the agents and workflows report, per deployment and
          node</mat-card-subtitle
        >
      </mat-card-header>
      <mat-card-content>
        @if (finding()) {
          <mat-progress-bar mode="indeterminate" aria-label="Finding drift" />
        }
        @if (driftError(); as error) {
          <lnx-error-panel heading="Could not find the drift" [error]="error" [retryable]="false" />
        }
        @if (drift(); as found) {
          @if (found.inSync) {
            <p class="empty">No drift: desired and observed state agree.</p>
          } @else {
            <div lnxTableScroll="Drift">
              <table class="lnx-table">
                <caption>
                  Drift: desired against observed
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Target</th>
                    <th scope="col">Desired</th>
                    <th scope="col">Observed</th>
                    <th scope="col">Repair</th>
                  </tr>
                </thead>
                <tbody>
                  @for (item of found.drift; track item.kind + item.target) {
                    <tr>
                      <td>{{ item.kind }}</td>
                      <th scope="row">
                        <code>{{ item.target }}</code>
                      </th>
                      <td>{{ item.desired }}</td>
                      <td>{{ item.observed }}</td>
                      <td>{{ item.repair ?? item.note }}</td>
                    </tr>
                  }
                </tbody>
              </table>
            </div>
          }
        }
        <div class="buttons">
          <button matButton="outlined" type="button" [disabled]="finding()" (click)="findDrift()">
            Find drift (dry run)
          </button>
          @if (canRun() && drift(); as found) {
            <button matButton="filled" type="button" (click)="reconcile(found)">Reconcile…</button>
          }
        </div>
      </mat-card-content>
    </mat-card>
  `,
  styles: `
    :host {
      display: grid;
      gap: 16px;
      max-width: 1200px;
    }
    .buttons {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
      margin-top: 8px;
    }
  `,
})
export class FleetHealth {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly session = inject(Session);
  private readonly flow = this.graphql.startFlow();

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly canRun = computed(() => canRunFleetRepairs((p) => this.session.can(p)));

  protected readonly plan: PolledQuery<HealingPlan> = pollQuery(
    (signal) =>
      this.graphql.request(HEALING_PLAN, {}, { flow: this.flow, signal }).then((data) => data.healingPlan),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  protected readonly drift = signal<ReconcileRun | null>(null);
  protected readonly driftError = signal<GraphqlRequestError | null>(null);
  protected readonly finding = signal(false);

  protected async findDrift(): Promise<void> {
    this.finding.set(true);
    this.driftError.set(null);
    try {
      const { reconcileFleet } = await this.graphql.request(
        RECONCILE,
        { input: { dryRun: true } },
        { flow: this.flow },
      );
      this.drift.set(reconcileFleet);
    } catch (error: unknown) {
      if (error instanceof GraphqlRequestError) this.driftError.set(error);
      else throw error;
    } finally {
      this.finding.set(false);
    }
  }

  protected runHealing(plan: HealingPlan): void {
    this.open({
      heading: 'Run healing',
      scope: healingScope(plan),
      confirmLabel: 'Run healing',
      run: async (): Promise<FleetRunOutcome> => {
        const { heal } = await this.graphql.request(HEAL, { input: { dryRun: false } }, { flow: this.flow });
        return {
          summary: `${heal.plan.actions.length} action(s) taken, ${heal.plan.skipped.length} held back.`,
          lines: heal.plan.actions.map(
            (action) => `${action.kind} ${action.target} (${action.rule}): ${action.outcome ?? 'no outcome'}`,
          ),
          workflowId: heal.workflowId,
          temporalUiUrl: heal.temporalUiUrl,
          receiptHash: heal.plan.actions[0]?.receiptHash ?? null,
        };
      },
    }).subscribe(() => this.plan.refresh());
  }

  protected reconcile(found: ReconcileRun): void {
    this.open({
      heading: 'Reconcile the fleet',
      scope: reconcileScope(found),
      confirmLabel: 'Reconcile',
      run: async (): Promise<FleetRunOutcome> => {
        const { reconcileFleet } = await this.graphql.request(
          RECONCILE,
          { input: { dryRun: false } },
          { flow: this.flow },
        );
        return {
          summary: reconcileFleet.inSync
            ? 'No drift was found; nothing to repair.'
            : `${reconcileFleet.repairs.length} repair(s) for ${reconcileFleet.drift.length} drift item(s).`,
          lines: reconcileFleet.repairs.map((repair) => `${repair.kind} ${repair.target}: ${repair.outcome}`),
          workflowId: reconcileFleet.workflowId,
          temporalUiUrl: reconcileFleet.temporalUiUrl,
          receiptHash: reconcileFleet.receiptHash ?? null,
        };
      },
    }).subscribe(() => void this.findDrift());
  }

  private open(data: FleetRunDialogData) {
    return openDialog<FleetRunDialog, FleetRunDialogData, FleetRunOutcome>(this.dialog, FleetRunDialog, {
      ...DIALOG_SIZE,
      // The heading: Enter right after opening must not run anything.
      initialFocus: 'first-heading',
      data,
    }).afterClosed();
  }
}
