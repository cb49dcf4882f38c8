import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatButtonToggle, MatButtonToggleGroup } from '@angular/material/button-toggle';
import { MatCheckbox } from '@angular/material/checkbox';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import type {
  CreateBenchmarkProfileInput,
  CreateEvaluationSuiteInput,
  CreateLicenseInput,
  RegisterRuntimeInput,
} from '@lunanexa/sdk/generated/graphql';

import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import {
  DATA_CLASS_CHOICES,
  GRADER_KINDS,
  LICENSE_KINDS,
  PROFILE_NUMBER_FIELDS,
  RUNTIME_KIND_CHOICES,
  type Violation,
  licenseInput,
  licenseViolations,
  parseSpec,
  profileInput,
  profileViolations,
  runtimeInput,
  runtimeViolations,
  suiteInput,
  suiteViolations,
} from './registry-rules';
import {
  CREATE_BENCHMARK_PROFILE,
  CREATE_EVALUATION_SUITE,
  CREATE_LICENSE,
  REGISTER_RUNTIME,
} from './registry.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export type RegistryRecordKind = 'license' | 'runtime' | 'suite' | 'profile';

export interface RegistryCreateDialogData {
  readonly kind: RegistryRecordKind;
}

/** What a create call answered, as the dialog's receipt shows it. */
export interface RegistryCreateReceipt {
  readonly summary: string;
  readonly facts: readonly { readonly label: string; readonly value: string }[];
  readonly requestId: string;
}

type Json = Record<string, unknown>;

const TITLES: Readonly<Record<RegistryRecordKind, string>> = {
  license: 'Create a license',
  runtime: 'Register a runtime',
  suite: 'Create an evaluation suite',
  profile: 'Create a benchmark profile',
};

const FAILURES: Readonly<Record<RegistryRecordKind, string>> = {
  license: 'Could not create the license',
  runtime: 'Could not register the runtime',
  suite: 'Could not create the evaluation suite',
  profile: 'Could not create the benchmark profile',
};

const PROFILE_LABELS: Readonly<Record<(typeof PROFILE_NUMBER_FIELDS)[number], string>> = {
  concurrency: 'Concurrency (clients)',
  inputTokens: 'Input tokens',
  outputTokens: 'Output tokens',
  durationSeconds: 'Duration (s)',
  requestCount: 'Requests',
  maxErrorRate: 'SLO: max error rate (0–1)',
  maxTtftP95Ms: 'SLO: max TTFT p95 (ms)',
  minTokensPerSecond: 'SLO: min tokens/s',
};

/**
 * Creates a registry record — a license, a runtime, an evaluation suite or a
 * benchmark profile — from a form or from its GraphQL input pasted as JSON
 * (what `lunanexa … --file` sends). Either way the input is checked as it is
 * typed with the contracts' schemas the API uses, every violation named by
 * its path; the API's own refusal (a taken name, say) shows with its code.
 */
@Component({
  selector: 'lnx-registry-create-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    MatButtonToggle,
    MatButtonToggleGroup,
    MatCheckbox,
    MatDialogActions,
    MatDialogContent,
    MatDialogTitle,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    MatOption,
    MatSelect,
    ConfirmActions,
    ErrorPanel,
    Icon,
  ],
  templateUrl: './registry-create-dialog.html',
  styleUrl: './registry-dialog.scss',
})
export class RegistryCreateDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef =
    inject<MatDialogRef<RegistryCreateDialog, RegistryCreateReceipt>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly fb = inject(NonNullableFormBuilder);

  protected readonly kind = inject<RegistryCreateDialogData>(MAT_DIALOG_DATA).kind;
  protected readonly heading = TITLES[this.kind];
  protected readonly failHeading = FAILURES[this.kind];
  protected readonly licenseKinds = LICENSE_KINDS;
  protected readonly dataClasses = DATA_CLASS_CHOICES;
  protected readonly runtimeKinds = RUNTIME_KIND_CHOICES;
  protected readonly graderKinds = GRADER_KINDS;
  protected readonly profileFields = PROFILE_NUMBER_FIELDS.map((field) => ({
    field,
    label: PROFILE_LABELS[field],
  }));

  /** 'form' or 'json': the pasted spec replaces the form, it does not merge with it. */
  protected readonly mode = signal<'form' | 'json'>('form');

  protected readonly license = this.fb.group({
    name: '',
    kind: 'spdx',
    spdxId: '',
    customName: '',
    termsUri: '',
    termsDigest: '',
    commercialUse: false,
    allowedDataClasses: this.fb.control<string[]>(['public']),
    attribution: '',
  });
  protected readonly runtime = this.fb.group({
    name: '',
    version: '',
    kind: 'openai-compatible',
    packagingType: 'container',
    image: '',
    digest: '',
    executable: '',
    args: '',
    containerPort: '8000',
    healthPath: '/health',
    architectures: this.fb.control<string[]>(['arm64']),
    memoryModels: this.fb.control<string[]>(['unified']),
    gpusPerReplica: '1',
    minComputeCapability: '8.0',
    minCudaVersion: '',
  });
  protected readonly suite = this.fb.group({
    name: '',
    description: '',
    passThreshold: '1',
    caseId: 'case-1',
    prompt: '',
    maxTokens: '64',
    graderKind: 'CONTAINS',
    graderValue: '',
  });
  protected readonly profile = this.fb.group({
    name: '',
    description: '',
    concurrency: '4',
    inputTokens: '128',
    outputTokens: '64',
    durationSeconds: '',
    requestCount: '100',
    maxErrorRate: '',
    maxTtftP95Ms: '',
    minTokensPerSecond: '',
  });
  protected readonly spec = this.fb.control('');

  private readonly group = {
    license: this.license,
    runtime: this.runtime,
    suite: this.suite,
    profile: this.profile,
  }[this.kind];
  private readonly formValue = toSignal(this.group.valueChanges, { initialValue: this.group.getRawValue() });
  private readonly specText = toSignal(this.spec.valueChanges, { initialValue: '' });

  /** The GraphQL input the form builds. */
  private readonly formInput = computed((): Json => {
    this.formValue();
    switch (this.kind) {
      case 'license':
        return licenseInput(this.license.getRawValue());
      case 'runtime':
        return runtimeInput(this.runtime.getRawValue());
      case 'suite':
        return suiteInput(this.suite.getRawValue());
      case 'profile':
        return profileInput(this.profile.getRawValue());
    }
  });

  /** The input that would be sent now, and what the API would refuse in it. */
  protected readonly checked = computed((): { input: Json | null; violations: readonly Violation[] } => {
    if (this.mode() === 'json') {
      const parsed = parseSpec(this.specText());
      return parsed.input === null
        ? parsed
        : { input: parsed.input, violations: this.violations(parsed.input) };
    }
    const input = this.formInput();
    return { input, violations: this.violations(input) };
  });

  /** Violations show once the operator has typed something, not on an untouched form. */
  protected readonly touched = signal(false);

  private readonly submission = dialogSubmission<RegistryCreateReceipt>({
    focusOnOutcome: this.title,
    holdOpen: 'while-calling',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly receipt = this.submission.outcome;

  private violations(input: Json): readonly Violation[] {
    switch (this.kind) {
      case 'license':
        return licenseViolations(input);
      case 'runtime':
        return runtimeViolations(input);
      case 'suite':
        return suiteViolations(input);
      case 'profile':
        return profileViolations(input);
    }
  }

  protected setMode(mode: 'form' | 'json'): void {
    if (mode === 'json' && this.spec.value.trim() === '') {
      // Starts the JSON from what the form holds, so a form can be finished as JSON (more cases, say).
      this.spec.setValue(JSON.stringify(this.formInput(), null, 2));
    }
    this.mode.set(mode);
  }

  protected edited(): void {
    this.touched.set(true);
  }

  protected submit(): void {
    this.touched.set(true);
    const { input, violations } = this.checked();
    if (input === null || violations.length > 0) {
      return;
    }
    void this.submission.run(() => this.send(input));
  }

  /*
   * The input is cast to the generated GraphQL input type: it passed the
   * contracts' schema above, and the API checks its GraphQL types again.
   */
  private async send(input: Json): Promise<RegistryCreateReceipt> {
    switch (this.kind) {
      case 'license': {
        const { data, requestId } = await this.graphql.requestWithIds(CREATE_LICENSE, {
          input: input as unknown as CreateLicenseInput,
        });
        const license = data.createLicense;
        return {
          summary: `License ${license.name} is ${license.approvalState}: an administrator reviews it next.`,
          facts: [
            { label: 'License id', value: license.id },
            { label: 'Terms', value: license.spdxId ?? license.customName ?? '—' },
          ],
          requestId,
        };
      }
      case 'runtime': {
        const { data, requestId } = await this.graphql.requestWithIds(REGISTER_RUNTIME, {
          input: input as unknown as RegisterRuntimeInput,
        });
        const runtime = data.registerRuntime;
        return {
          summary:
            `Runtime ${runtime.name} ${runtime.version} is registered, off the allowlist: ` +
            'an administrator allows it before anything rolls out on it.',
          facts: [
            { label: 'Runtime id', value: runtime.id },
            { label: 'Digest', value: runtime.packaging.digest },
          ],
          requestId,
        };
      }
      case 'suite': {
        const { data, requestId } = await this.graphql.requestWithIds(CREATE_EVALUATION_SUITE, {
          input: input as unknown as CreateEvaluationSuiteInput,
        });
        const suite = data.createEvaluationSuite;
        return {
          summary: `Evaluation suite ${suite.name} is stored: ${suite.caseCount} case(s), pass at ${suite.passThreshold}.`,
          facts: [
            { label: 'Suite id', value: suite.id },
            { label: 'Definition digest', value: suite.digest },
          ],
          requestId,
        };
      }
      case 'profile': {
        const { data, requestId } = await this.graphql.requestWithIds(CREATE_BENCHMARK_PROFILE, {
          input: input as unknown as CreateBenchmarkProfileInput,
        });
        const profile = data.createBenchmarkProfile;
        return {
          summary: `Benchmark profile ${profile.name} is stored.`,
          facts: [
            { label: 'Profile id', value: profile.id },
            { label: 'Definition digest', value: profile.digest },
          ],
          requestId,
        };
      }
    }
  }

  protected done(): void {
    this.dialogRef.close(this.receipt());
  }
}
