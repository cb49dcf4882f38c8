import { DATA_CLASSES } from '@lunanexa/contracts/common';
import type { GraderKind } from '@lunanexa/contracts/evaluation';
import {
  checkBenchmarkProfileInput,
  checkEvaluationSuiteInput,
  checkLicenseInput,
  checkRuntimeInput,
  GRADER_INPUT_FIELDS,
} from '@lunanexa/contracts/registry-rules';
import {
  EVALUATION_MUTATION_PERMISSIONS,
  type Permission,
  REGISTRY_MUTATION_PERMISSIONS,
} from '@lunanexa/contracts/roles';
import { RUNTIME_KINDS } from '@lunanexa/contracts/runtime';

/*
 * The registry's create forms check what is typed with the contracts'
 * registry rules (libs/contracts/src/registry-rules.ts), the functions the
 * API validates the same input with (apps/api/src/registry/registry.service.ts,
 * apps/api/src/evaluations/evaluation.service.ts): a spec the form accepts is
 * one the API accepts, and a violation reads the same here as in the API's
 * VALIDATION_FAILED answer. The rules are pure (no I/O); they load with this
 * view's chunk only.
 * What only the API can know (a name already taken, a JSON Schema grader that
 * ajv cannot compile) comes back as the API's refusal, shown with its code.
 */

export interface Violation {
  readonly path: string;
  readonly message: string;
}

type Can = (permission: Permission) => boolean;
type Json = Record<string, unknown>;

/** The built-in license of synthetic (fake) weights: never reviewed by people (the API refuses it). */
export const SYNTHETIC_LICENSE = 'lunanexa-synthetic';
/** The API's bound on a review note. */
export const MAX_NOTE_LENGTH = 2048;

export const LICENSE_KINDS = ['spdx', 'custom'] as const;
export const DATA_CLASS_CHOICES: readonly string[] = DATA_CLASSES;
export const RUNTIME_KIND_CHOICES: readonly string[] = RUNTIME_KINDS;
/** GraphQL's GraderKind values (the wire names), in the order the form offers them. */
export const GRADER_KINDS = ['CONTAINS', 'EXACT', 'REGEX', 'JSON_SCHEMA'] as const;

// ---------------------------------------------------------------------------- pasted JSON

/** A pasted spec: one JSON object, the GraphQL input as the CLI's `--file` takes it. */
export function parseSpec(text: string): { readonly input: Json | null; readonly violations: Violation[] } {
  if (text.trim() === '') {
    return { input: null, violations: [{ path: '(spec)', message: 'is empty: paste one JSON object' }] };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      input: null,
      violations: [
        { path: '(spec)', message: `is not JSON: ${error instanceof Error ? error.message : ''}` },
      ],
    };
  }
  if (!isObject(value)) {
    return { input: null, violations: [{ path: '(spec)', message: 'must hold one JSON object' }] };
  }
  return { input: value, violations: [] };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// ---------------------------------------------------------------------------- licenses

/** What the API would refuse in a CreateLicenseInput, checked as the API does (checkLicenseInput). */
export function licenseViolations(input: Json): Violation[] {
  return [...checkLicenseInput(input).violations];
}

export interface LicenseForm {
  readonly name: string;
  readonly kind: string;
  readonly spdxId: string;
  readonly customName: string;
  readonly termsUri: string;
  readonly termsDigest: string;
  readonly commercialUse: boolean;
  readonly allowedDataClasses: readonly string[];
  readonly attribution: string;
}

export function licenseInput(form: LicenseForm): Json {
  const attribution = form.attribution.trim() === '' ? {} : { attribution: form.attribution };
  const shared = {
    name: form.name.trim(),
    kind: form.kind,
    commercialUse: form.commercialUse,
    allowedDataClasses: [...form.allowedDataClasses],
    ...attribution,
  };
  return form.kind === 'custom'
    ? {
        ...shared,
        customName: form.customName.trim(),
        termsUri: form.termsUri.trim(),
        termsDigest: form.termsDigest.trim(),
      }
    : { ...shared, spdxId: form.spdxId.trim() };
}

export interface LicenseUse {
  readonly ref: string;
  readonly state: string;
}

/** A license and the versions registered under it: the scope of its review decision. */
export function licenseDecisionEffect(
  decision: 'approve' | 'reject',
  license: { readonly name: string; readonly approvalState: string },
  uses: readonly LicenseUse[],
): string {
  const scope =
    uses.length === 0
      ? 'No model version is registered under it yet.'
      : `${uses.length} model version${uses.length === 1 ? '' : 's'} use${uses.length === 1 ? 's' : ''} it: ` +
        `${uses.map((use) => `${use.ref} (${use.state})`).join(', ')}.`;
  return decision === 'approve'
    ? `Approves ${license.name} (now ${license.approvalState}): versions under it may be verified and rolled ` +
        `out. ${scope}`
    : `Rejects ${license.name} (now ${license.approvalState}): versions under it fail verification and no ` +
        `rollout may target them (LICENSE_NOT_APPROVED). ${scope}`;
}

/** Which review decisions a license can take now: not the built-in one, not the one it already has. */
export function licenseDecisions(
  license: { readonly name: string; readonly approvalState: string },
  can: Can,
): readonly ('approve' | 'reject')[] {
  if (license.name === SYNTHETIC_LICENSE) {
    return [];
  }
  return (['approve', 'reject'] as const).filter(
    (decision) =>
      can(REGISTRY_MUTATION_PERMISSIONS[decision === 'approve' ? 'approveLicense' : 'rejectLicense']) &&
      license.approvalState !== (decision === 'approve' ? 'Approved' : 'Rejected'),
  );
}

// ---------------------------------------------------------------------------- runtimes

/** What the API would refuse in a RegisterRuntimeInput, checked as the API does (checkRuntimeInput). */
export function runtimeViolations(input: Json): Violation[] {
  return [...checkRuntimeInput(input, new Date(0)).violations];
}

export interface RuntimeForm {
  readonly name: string;
  readonly version: string;
  readonly kind: string;
  readonly packagingType: string;
  readonly image: string;
  readonly digest: string;
  readonly executable: string;
  /** One argument per line: no shell ever splits them. */
  readonly args: string;
  readonly containerPort: string;
  readonly healthPath: string;
  readonly architectures: readonly string[];
  readonly memoryModels: readonly string[];
  readonly gpusPerReplica: string;
  readonly minComputeCapability: string;
  readonly minCudaVersion: string;
}

const numberOrText = (text: string): number | string | undefined =>
  text.trim() === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text;

export function runtimeInput(form: RuntimeForm): Json {
  const container = form.packagingType === 'container';
  const port = numberOrText(form.containerPort);
  return {
    name: form.name.trim(),
    version: form.version.trim(),
    kind: form.kind,
    packaging: container
      ? { type: 'container', image: form.image.trim(), digest: form.digest.trim() }
      : { type: form.packagingType, digest: form.digest.trim() },
    launch: {
      executable: form.executable.trim(),
      args: form.args.split('\n').filter((line) => line.trim() !== ''),
      envAllowlist: [],
      ...(port === undefined ? {} : { containerPort: port }),
    },
    health: { path: form.healthPath.trim(), startupTimeoutMs: 600_000, intervalMs: 2_000 },
    supportedHardware: {
      architectures: [...form.architectures],
      memoryModels: [...form.memoryModels],
      gpusPerReplica: numberOrText(form.gpusPerReplica),
      minComputeCapability: form.minComputeCapability.trim(),
      ...(form.minCudaVersion.trim() === '' ? {} : { minCudaVersion: form.minCudaVersion.trim() }),
    },
  };
}

// ---------------------------------------------------------------------------- evaluation suites

/** GraphQL's grader kind names, as a pasted suite gives them, in the order the form offers them. */
const GRADER_KIND_NAMES: Readonly<Record<(typeof GRADER_KINDS)[number], GraderKind>> = {
  CONTAINS: 'contains',
  EXACT: 'exact',
  REGEX: 'regex',
  JSON_SCHEMA: 'json-schema',
};

/** What the API would refuse in a CreateEvaluationSuiteInput (checkEvaluationSuiteInput, less the JSON Schema compile). */
export function suiteViolations(input: Json): Violation[] {
  return [...checkEvaluationSuiteInput(input, { graderKinds: GRADER_KIND_NAMES }).violations];
}

export interface SuiteForm {
  readonly name: string;
  readonly description: string;
  readonly passThreshold: string;
  readonly caseId: string;
  readonly prompt: string;
  readonly maxTokens: string;
  readonly graderKind: string;
  /** The expected answer, substring or pattern, by grader kind. */
  readonly graderValue: string;
}

/** A one-case suite from the form; more cases are pasted as JSON. */
export function suiteInput(form: SuiteForm): Json {
  const kind = GRADER_KIND_NAMES[form.graderKind as (typeof GRADER_KINDS)[number]] as GraderKind | undefined;
  const field = (kind === undefined ? undefined : GRADER_INPUT_FIELDS[kind][0]) ?? 'expected';
  return {
    name: form.name.trim(),
    ...(form.description.trim() === '' ? {} : { description: form.description.trim() }),
    passThreshold: numberOrText(form.passThreshold),
    cases: [
      {
        id: form.caseId.trim(),
        prompt: form.prompt,
        maxTokens: numberOrText(form.maxTokens),
        grader: { kind: form.graderKind, [field]: form.graderValue },
      },
    ],
  };
}

// ---------------------------------------------------------------------------- benchmark profiles

/** What the API would refuse in a CreateBenchmarkProfileInput (checkBenchmarkProfileInput). */
export function profileViolations(input: Json): Violation[] {
  return [...checkBenchmarkProfileInput(input).violations];
}

export const PROFILE_NUMBER_FIELDS = [
  'concurrency',
  'inputTokens',
  'outputTokens',
  'durationSeconds',
  'requestCount',
  'maxErrorRate',
  'maxTtftP95Ms',
  'minTokensPerSecond',
] as const;

export type ProfileForm = { readonly name: string; readonly description: string } & Readonly<
  Record<(typeof PROFILE_NUMBER_FIELDS)[number], string>
>;

export function profileInput(form: ProfileForm): Json {
  const numbers = Object.fromEntries(
    PROFILE_NUMBER_FIELDS.map((field) => [field, numberOrText(form[field])]).filter(
      ([, v]) => v !== undefined,
    ),
  );
  return {
    name: form.name.trim(),
    ...(form.description.trim() === '' ? {} : { description: form.description.trim() }),
    ...numbers,
  };
}

// ---------------------------------------------------------------------------- offered controls

export interface RegistryControls {
  readonly createLicense: boolean;
  readonly registerRuntime: boolean;
  readonly setRuntimeAllowed: boolean;
  readonly createSuite: boolean;
  readonly createProfile: boolean;
}

/** Which create and allowlist controls the role gets (the API enforces the same table per call). */
export function registryControls(can: Can): RegistryControls {
  return {
    createLicense: can(REGISTRY_MUTATION_PERMISSIONS.createLicense),
    registerRuntime: can(REGISTRY_MUTATION_PERMISSIONS.registerRuntime),
    setRuntimeAllowed: can(REGISTRY_MUTATION_PERMISSIONS.setRuntimeAllowed),
    createSuite: can(EVALUATION_MUTATION_PERMISSIONS.createEvaluationSuite),
    createProfile: can(EVALUATION_MUTATION_PERMISSIONS.createBenchmarkProfile),
  };
}
