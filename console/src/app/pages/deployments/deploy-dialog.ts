import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  ErrorHandler,
  Injector,
  afterNextRender,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import {
  type AbstractControl,
  NonNullableFormBuilder,
  ReactiveFormsModule,
  type ValidationErrors,
  Validators,
} from '@angular/forms';
import { MatButton } from '@angular/material/button';
import {
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient, WORKFLOW_CALL_TIMEOUT_MS } from '../../shared/graphql/graphql-client';
import { type GraphqlRequestError, asRequestError } from '../../shared/graphql/graphql-error';
import { pollQuery } from '../../shared/graphql/polled-query';
import { randomId } from '../../shared/graphql/random-id';
import type { CreateDeploymentInput, RegisterModelVersionInput } from '@lunanexa/sdk/generated/graphql';
import { Icon } from '../../shared/icon/icon';
import { Receipt, type WorkflowReceipt, operationReceipt } from '../../shared/receipt/receipt';
import { DeploymentProgress } from './deployment-progress';
import {
  DEPLOYMENT_NAME_PATTERN,
  DEPLOYMENT_PURPOSES,
  type DeploymentPurpose,
  MAX_REPLICAS,
  MAX_TOKENS_PER_SECOND,
  MAX_TTFT_MS,
  MODEL_NAME_PATTERN,
  VERSION_LABEL_PATTERN,
  placementNodes,
  purposeHint,
} from './deployment-rules';
import {
  CREATE_DEPLOYMENT,
  PLACEMENT_PLAN,
  type PlacementPlan,
  DEPLOY_CHOICES,
  type DeploymentOperation,
  type ModelVersion,
  REGISTER_MODEL_VERSION,
} from './deployments.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

/** Model versions and nodes change rarely while a dialog is open; this only keeps a long-open one honest. */
const CHOICES_INTERVAL_MS = 60_000;

/** The fake runtime's only kind in this release (RegisterModelVersionInput.runtime). */
const FAKE_RUNTIME = 'fake';

function integer(control: AbstractControl<number | null>): ValidationErrors | null {
  const value = control.value;
  return value === null || Number.isInteger(value) ? null : { integer: true };
}

interface Created {
  readonly name: string;
  readonly operation: DeploymentOperation;
  readonly receipt: WorkflowReceipt;
}

/**
 * Creates a deployment: a name, a model version (registering a fake one in
 * place if none fits), its purpose (Serving, or a Candidate to evaluate), an
 * optional node and a replica count. Then shows the receipt and the
 * deployment's state as it converges, until Done.
 */
@Component({
  selector: 'lnx-deploy-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    ProgressSlot,
    ReactiveFormsModule,
    MatButton,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    MatError,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    MatOption,
    MatSelect,
    DeploymentProgress,
    ErrorPanel,
    Icon,
    Receipt,
  ],
  templateUrl: './deploy-dialog.html',
  styleUrl: './deployment-dialog.scss',
})
export class DeployDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<DeployDialog, WorkflowReceipt>>(MatDialogRef);
  private readonly errorHandler = inject(ErrorHandler);
  private readonly injector = inject(Injector);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly modelSelect = viewChild<MatSelect>('modelSelect');

  /** The whole dialog is one flow: its reads, a registration and every attempt to create share a correlation id. */
  protected readonly flow = this.graphql.startFlow();
  /**
   * One key for every attempt from this dialog. When an attempt times out in
   * the browser the workflow may already be running; retrying with the same
   * key returns that deployment instead of starting a second one.
   */
  private readonly idempotencyKey = randomId();

  protected readonly maxReplicas = MAX_REPLICAS;
  protected readonly maxTtftMs = MAX_TTFT_MS;
  protected readonly maxTokensPerSecond = MAX_TOKENS_PER_SECOND;
  protected readonly purposes = DEPLOYMENT_PURPOSES;

  protected readonly choices = pollQuery(
    (signal) => this.graphql.request(DEPLOY_CHOICES, {}, { flow: this.flow, signal }),
    { intervalMs: CHOICES_INTERVAL_MS },
  );

  /** Versions registered from this dialog, shown before the next read of the list has them. */
  private readonly registered = signal<readonly ModelVersion[]>([]);

  protected readonly versions = computed((): readonly ModelVersion[] => {
    const byRef = new Map<string, ModelVersion>();
    for (const version of [...(this.choices.value()?.modelVersions ?? []), ...this.registered()]) {
      byRef.set(version.ref, version);
    }
    return [...byRef.values()].sort((a, b) => a.ref.localeCompare(b.ref));
  });

  protected readonly nodes = computed(() => placementNodes(this.choices.value()?.nodes ?? []));

  protected readonly form = this.fb.group({
    name: ['', [Validators.required, Validators.pattern(DEPLOYMENT_NAME_PATTERN)]],
    model: ['', [Validators.required]],
    /** Serving unless the operator asks for a candidate: the API's default, chosen explicitly here. */
    purpose: this.fb.control<DeploymentPurpose>('Serving'),
    /** '' lets the scheduler choose. */
    node: [''],
    /** How the scheduler ranks eligible nodes (the API's default is Spread). */
    strategy: this.fb.control<'Spread' | 'Binpack'>('Spread'),
    replicas: this.fb.control<number | null>(1, [
      Validators.required,
      Validators.min(1),
      Validators.max(MAX_REPLICAS),
      integer,
    ]),
  });

  private readonly chosenModel = toSignal(this.form.controls.model.valueChanges, {
    initialValue: this.form.controls.model.value,
  });
  private readonly chosenPurpose = toSignal(this.form.controls.purpose.valueChanges, {
    initialValue: this.form.controls.purpose.value,
  });
  /** What the chosen purpose means, and whether the chosen version can pass its gate. */
  protected readonly purposeHint = computed(() => {
    const ref = this.chosenModel();
    return purposeHint(
      this.chosenPurpose(),
      this.versions().find((version) => version.ref === ref),
    );
  });

  protected readonly registerOpen = signal(false);
  protected readonly registerForm = this.fb.group({
    model: ['', [Validators.required, Validators.pattern(MODEL_NAME_PATTERN)]],
    version: ['', [Validators.required, Validators.pattern(VERSION_LABEL_PATTERN)]],
    ttftMs: this.fb.control<number | null>(null, [Validators.min(1), Validators.max(MAX_TTFT_MS), integer]),
    tokensPerSecond: this.fb.control<number | null>(null, [
      Validators.min(1),
      Validators.max(MAX_TOKENS_PER_SECOND),
      integer,
    ]),
  });
  protected readonly registerBusy = signal(false);
  protected readonly registerError = signal<GraphqlRequestError | undefined>(undefined);
  /** Read out after a registration: what was registered and that it is now selected. */
  protected readonly registerNotice = signal('');

  // The API answers once the workflow has written the record; Escape must not drop that answer.
  private readonly submission = dialogSubmission<Created>({
    focusOnOutcome: this.title,
    holdOpen: 'until-done',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly created = this.submission.outcome;

  protected toggleRegister(): void {
    this.registerOpen.update((open) => !open);
    this.registerError.set(undefined);
  }

  /**
   * Enter in a registration field registers the version; it must not submit
   * the deployment form around them. Buttons (copy, register) keep their own Enter.
   */
  protected registerOnEnter(event: Event): void {
    if (event.target instanceof HTMLInputElement) {
      event.preventDefault();
      this.register();
    }
  }

  protected register(): void {
    if (this.registerBusy()) {
      return;
    }
    if (this.registerForm.invalid) {
      this.registerForm.markAllAsTouched();
      return;
    }
    const { model, version, ttftMs, tokensPerSecond } = this.registerForm.getRawValue();
    const input: RegisterModelVersionInput = {
      model,
      version,
      runtime: FAKE_RUNTIME,
      ...(ttftMs === null ? {} : { ttftMs }),
      ...(tokensPerSecond === null ? {} : { tokensPerSecond }),
    };
    this.registerBusy.set(true);
    this.registerError.set(undefined);
    this.registerNotice.set('');
    void this.graphql
      .request(REGISTER_MODEL_VERSION, { input }, { flow: this.flow })
      .then(
        ({ registerModelVersion: registered }) => {
          this.registered.update((list) => [...list, registered]);
          this.form.controls.model.setValue(registered.ref);
          // A version registered a moment ago has not been evaluated: only a candidate deployment may run it.
          this.form.controls.purpose.setValue('Candidate');
          this.registerForm.reset();
          this.registerOpen.set(false);
          this.registerNotice.set(
            `Registered ${registered.ref} and selected it, as a candidate: it has no passed evaluation yet.`,
          );
          this.choices.refresh();
          // The registration fields are gone; the operator continues at the select that now holds the version.
          afterNextRender(() => this.modelSelect()?.focus(), { injector: this.injector });
        },
        (failure: unknown) => this.registerError.set(asRequestError(failure, this.errorHandler)),
      )
      .finally(() => this.registerBusy.set(false));
  }

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { name, model, purpose, node, replicas, strategy } = this.form.getRawValue();
    const input: CreateDeploymentInput = {
      name,
      model,
      purpose,
      replicas: replicas ?? 1,
      placementStrategy: strategy,
      idempotencyKey: this.idempotencyKey,
      ...(node === '' ? {} : { node }),
    };
    void this.submission.run(() =>
      this.graphql
        .requestWithIds(
          CREATE_DEPLOYMENT,
          { input },
          { flow: this.flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS },
        )
        .then(({ data: { createDeployment: operation }, requestId }) => ({
          name,
          operation,
          receipt: operationReceipt(operation, requestId, {
            receiptHash: null,
            receiptNote:
              'Not in the API’s answer. The workflow wrote it with the record: the Audit view shows it as ' +
              'the deployment.create event with the correlation id below.',
            facts: [
              { label: 'Deployment id', value: operation.deploymentId },
              { label: 'Model version', value: model },
              { label: 'Purpose', value: purpose },
              { label: 'Replicas', value: String(input.replicas) },
              { label: 'Node', value: node === '' ? 'chosen by the scheduler' : node },
              { label: 'Strategy', value: strategy },
            ],
          }),
        })),
    );
  }

  /** "Where would this go and why": the scheduler's dry run for what the form says now, for every node. */
  protected readonly plan = signal<PlacementPlan | null>(null);
  protected readonly planError = signal<GraphqlRequestError | undefined>(undefined);
  protected readonly planBusy = signal(false);

  protected async preview(): Promise<void> {
    const { model, node, replicas, strategy } = this.form.getRawValue();
    if (model === '') {
      this.form.controls.model.markAsTouched();
      return;
    }
    this.planBusy.set(true);
    this.planError.set(undefined);
    try {
      const { placementPlan } = await this.graphql.request(
        PLACEMENT_PLAN,
        {
          input: {
            model,
            replicas: replicas ?? 1,
            placementStrategy: strategy,
            ...(node === '' ? {} : { node }),
          },
        },
        { flow: this.flow },
      );
      this.plan.set(placementPlan);
    } catch (error: unknown) {
      this.planError.set(asRequestError(error, this.errorHandler));
    } finally {
      this.planBusy.set(false);
    }
  }

  protected done(): void {
    this.dialogRef.close(this.created()?.receipt);
  }
}
