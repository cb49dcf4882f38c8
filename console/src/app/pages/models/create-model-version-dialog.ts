import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  computed,
  inject,
  viewChild,
} from '@angular/core';
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
import type { ArtifactFormat } from '@lunanexa/contracts/artifact';
import type { Architecture } from '@lunanexa/contracts/common';
import type { GpuMemoryModel } from '@lunanexa/contracts/node';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { pollQuery } from '../../shared/graphql/polled-query';
import type { CreateModelVersionInput } from '@lunanexa/sdk/generated/graphql';
import { Icon } from '../../shared/icon/icon';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { MODEL_NAME_PATTERN, VERSION_LABEL_PATTERN } from '../deployments/deployment-rules';
import {
  CREATE_MODEL,
  CREATE_MODEL_VERSION,
  type ModelVersionDetail,
  VERSION_CHOICES,
} from './models.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

/** The contracts' lists (type-checked; their modules build zod schemas the console must not bundle). */
const FORMATS = [
  'safetensors',
  'gguf',
  'onnx',
  'tensorrt-engine',
  'fake',
] as const satisfies readonly ArtifactFormat[];
const ARCHITECTURES = ['arm64', 'amd64'] as const satisfies readonly Architecture[];
const MEMORY_MODELS = ['unified', 'discrete'] as const satisfies readonly GpuMemoryModel[];

/** DigestSchema: sha256 with 64 lower-case hex digits. */
const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
/** URI schemes the artifact stores read (ArtifactInput.uri). */
const URI_PATTERN = /^(https|s3|file|oci|hf):\/\/\S+$/;
/** "8.0": major.minor. */
const VERSION_NUMBER_PATTERN = /^\d{1,2}\.\d{1,2}$/;
const GIB = 1024 ** 3;
const CHOICES_INTERVAL_MS = 60_000;

function nonEmpty(control: AbstractControl<readonly string[]>): ValidationErrors | null {
  return control.value.length > 0 ? null : { required: true };
}

/**
 * Registers a digest-pinned model version: the model (created on the way if
 * it is new), the artifact with its digest, size, format and provenance, the
 * license it is used under, the runtime and what one replica needs. The
 * version starts Registered; verifying its digest is the next step.
 */
@Component({
  selector: 'lnx-create-model-version-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
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
    ErrorPanel,
    Icon,
    StatusBadge,
  ],
  templateUrl: './create-model-version-dialog.html',
  styleUrl: './model-dialog.scss',
})
export class CreateModelVersionDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<CreateModelVersionDialog, string>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly flow = this.graphql.startFlow();

  protected readonly formats = FORMATS;
  protected readonly architectures = ARCHITECTURES;
  protected readonly memoryModels = MEMORY_MODELS;

  protected readonly choices = pollQuery(
    (signal) => this.graphql.request(VERSION_CHOICES, {}, { flow: this.flow, signal }),
    { intervalMs: CHOICES_INTERVAL_MS },
  );
  protected readonly licenses = computed(() => this.choices.value()?.licenses ?? []);
  protected readonly runtimes = computed(() => this.choices.value()?.runtimes ?? []);

  protected readonly form = this.fb.group({
    model: ['', [Validators.required, Validators.pattern(MODEL_NAME_PATTERN)]],
    version: ['', [Validators.required, Validators.pattern(VERSION_LABEL_PATTERN)]],
    uri: ['', [Validators.required, Validators.pattern(URI_PATTERN)]],
    digest: ['', [Validators.required, Validators.pattern(DIGEST_PATTERN)]],
    sizeBytes: this.fb.control<number | null>(null, [Validators.required, Validators.min(1)]),
    format: ['safetensors' as string, [Validators.required]],
    source: ['', [Validators.required, Validators.maxLength(1024)]],
    license: ['', [Validators.required]],
    runtime: ['', [Validators.required]],
    architectures: this.fb.control<readonly string[]>(['amd64'], [nonEmpty]),
    memoryModels: this.fb.control<readonly string[]>(['discrete'], [nonEmpty]),
    minComputeCapability: ['8.0', [Validators.required, Validators.pattern(VERSION_NUMBER_PATTERN)]],
    minCudaVersion: ['', [Validators.pattern(VERSION_NUMBER_PATTERN)]],
    gpusPerReplica: this.fb.control<number | null>(1, [
      Validators.required,
      Validators.min(0),
      Validators.max(64),
    ]),
    minMemoryGib: this.fb.control<number | null>(null, [Validators.min(0)]),
  });

  private readonly submission = dialogSubmission<ModelVersionDetail>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly created = this.submission.outcome;

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const v = this.form.getRawValue();
    const input: CreateModelVersionInput = {
      model: v.model,
      version: v.version,
      artifact: {
        uri: v.uri,
        digest: v.digest,
        sizeBytes: v.sizeBytes ?? 0,
        format: v.format,
        source: v.source,
      },
      license: v.license,
      runtime: v.runtime,
      requirements: {
        architectures: [...v.architectures],
        memoryModels: [...v.memoryModels],
        minComputeCapability: v.minComputeCapability,
        minCudaVersion: v.minCudaVersion === '' ? null : v.minCudaVersion,
        gpusPerReplica: v.gpusPerReplica ?? 1,
        minMemoryBytesPerReplica: v.minMemoryGib === null ? null : Math.round(v.minMemoryGib * GIB),
      },
    };
    void this.submission.run(() => this.register(input));
  }

  private async register(input: CreateModelVersionInput): Promise<ModelVersionDetail> {
    try {
      // A version belongs to a model; a new name is registered as a model first (display name = name).
      const known = this.choices.value()?.models.some((model) => model.name === input.model) ?? false;
      if (!known) {
        await this.graphql.request(
          CREATE_MODEL,
          { input: { name: input.model, displayName: input.model } },
          { flow: this.flow },
        );
      }
      const { createModelVersion } = await this.graphql.request(
        CREATE_MODEL_VERSION,
        { input },
        { flow: this.flow },
      );
      return createModelVersion;
    } catch (failure: unknown) {
      this.choices.refresh();
      throw failure;
    }
  }

  protected done(): void {
    this.dialogRef.close(this.created()?.ref);
  }
}
