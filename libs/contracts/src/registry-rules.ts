import type { z } from 'zod';
import { NameSchema } from './common';
import { OPAQUE_ID_PATTERN } from './correlation';
import type { FieldViolation } from './errors';
import {
  BenchmarkProfileDefinitionSchema,
  EvaluationSuiteDefinitionSchema,
  type BenchmarkProfileDefinition,
  type EvaluationSuiteDefinition,
  type Grader,
  type GraderKind,
} from './evaluation';
import { LicenseSchema, type License } from './license';
import { RuntimeSchema, runtimeIdFor, runtimeMetricsFormat, type Runtime } from './runtime';

/*
 * The registry's create inputs (a license, a runtime, an evaluation suite, a
 * benchmark profile) turned into the record they ask for, or the violations
 * that refuse them. The API refuses with VALIDATION_FAILED and these
 * violations; the console's create forms show the same violations before
 * anything is sent. Inputs are read loosely (a pasted JSON object may hold
 * anything), so a typed GraphQL input and a pasted one are checked alike.
 */

/** The record an input asks for, or null and every violation that refuses it. */
export type RuleCheck<T> =
  | { readonly record: T; readonly violations: readonly [] }
  | { readonly record: null; readonly violations: readonly FieldViolation[] };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const obj = (value: unknown): Json => (isObject(value) ? value : {});
/** GraphQL's nullable fields: absent and null both mean "not given". */
const given = (value: unknown): unknown => (value === null ? undefined : value);

/** Drops absent and null members, so what is validated (and stored) is the canonical definition. */
function defined(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null));
}

function issuesOf(error: z.ZodError): FieldViolation[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

function checked<T>(
  parsed: { success: true; data: T } | { success: false },
  violations: readonly FieldViolation[],
): RuleCheck<T> {
  return parsed.success && violations.length === 0
    ? { record: parsed.data, violations: [] }
    : { record: null, violations };
}

const NAME_VIOLATION = 'must be a lower-case DNS label (a-z, 0-9, -; at most 63)';

// ---------------------------------------------------------------------------- licenses

/** A CreateLicenseInput as the License document it stores (PendingReview), checked by LicenseSchema. */
export function checkLicenseInput(input: unknown): RuleCheck<License> {
  const fields = obj(input);
  const terms = {
    commercialUse: fields['commercialUse'],
    allowedDataClasses: fields['allowedDataClasses'],
    attribution: given(fields['attribution']) ?? null,
    approval: { state: 'PendingReview', decidedBy: null, decidedAt: null },
  };
  const candidate =
    fields['kind'] === 'custom'
      ? {
          kind: 'custom',
          name: fields['customName'],
          termsUri: fields['termsUri'],
          termsDigest: fields['termsDigest'],
          ...terms,
        }
      : { kind: fields['kind'], spdxId: fields['spdxId'], ...terms };
  const violations: FieldViolation[] = NameSchema.safeParse(fields['name']).success
    ? []
    : [{ path: 'name', message: NAME_VIOLATION }];
  const parsed = LicenseSchema.safeParse(candidate);
  if (!parsed.success) violations.push(...issuesOf(parsed.error));
  return checked(parsed, violations);
}

// ---------------------------------------------------------------------------- runtimes

/**
 * A RegisterRuntimeInput as the Runtime record it asks for, id
 * runtime-<name>-<version>, checked by RuntimeSchema (shells, launchers,
 * inline-code flags, unknown placeholders, missing digests are refused).
 */
export function checkRuntimeInput(input: unknown, createdAt: Date): RuleCheck<Runtime> {
  const fields = obj(input);
  const packaging = obj(fields['packaging']);
  const launch = obj(fields['launch']);
  const hardware = obj(fields['supportedHardware']);
  const name = typeof fields['name'] === 'string' ? fields['name'] : '';
  const version = typeof fields['version'] === 'string' ? fields['version'] : '';
  const kind = fields['kind'];
  const id = runtimeIdFor(name, version);
  const candidate = {
    id,
    name: fields['name'],
    version: fields['version'],
    kind,
    packaging:
      packaging['type'] === 'container'
        ? { type: 'container', image: packaging['image'], digest: packaging['digest'] }
        : { type: packaging['type'], digest: packaging['digest'] },
    launch: {
      executable: launch['executable'],
      args: launch['args'],
      envAllowlist: given(launch['envAllowlist']) ?? [],
      containerPort: given(launch['containerPort']) ?? null,
    },
    health: fields['health'],
    supportedHardware: {
      architectures: hardware['architectures'],
      memoryModels: hardware['memoryModels'],
      minComputeCapability: hardware['minComputeCapability'],
      maxComputeCapability: given(hardware['maxComputeCapability']) ?? null,
      minCudaVersion: given(hardware['minCudaVersion']) ?? null,
      gpusPerReplica: hardware['gpusPerReplica'],
      minMemoryBytesPerReplica: given(hardware['minMemoryBytesPerReplica']) ?? null,
    },
    // Stored explicitly, so the record keeps saying what it was registered as if the derivation changes.
    metricsFormat:
      given(fields['metricsFormat']) ??
      runtimeMetricsFormat({ kind: kind === 'fake' ? 'fake' : 'openai-compatible', name }),
    createdAt: createdAt.toISOString(),
  };
  const parsed = RuntimeSchema.safeParse(candidate);
  const violations = parsed.success ? [] : issuesOf(parsed.error);
  if (!OPAQUE_ID_PATTERN.test(id)) {
    violations.push({ path: 'version', message: `makes the runtime id ${id} too long (at most 128)` });
  }
  return checked(parsed, violations);
}

// ---------------------------------------------------------------------------- evaluation suites

/** The fields each grader kind takes, as the GraphQL EvaluationGraderInput names them. */
export const GRADER_INPUT_FIELDS: Readonly<Record<GraderKind, readonly string[]>> = {
  exact: ['expected', 'ignoreCase', 'trim'],
  contains: ['substring', 'ignoreCase'],
  regex: ['pattern', 'flags'],
  'json-schema': ['schemaJson'],
};

export interface SuiteCheckOptions {
  /**
   * The names the input gives the grader kinds, in the order a refusal of an
   * unknown kind lists them: the contracts' own (exact, contains…) unless
   * said otherwise (GraphQL's wire names EXACT, CONTAINS… in pasted JSON).
   */
  readonly graderKinds?: Readonly<Record<string, GraderKind>>;
  /** Whether a json-schema grader's schema compiles (null when it does); only the API has the compiler. */
  readonly schemaProblem?: (schema: Record<string, unknown>) => string | null;
}

const CONTRACT_GRADER_KINDS: Readonly<Record<string, GraderKind>> = {
  exact: 'exact',
  contains: 'contains',
  regex: 'regex',
  'json-schema': 'json-schema',
};

function graderOf(
  input: Json,
  path: string,
  violations: FieldViolation[],
  options: SuiteCheckOptions,
): Grader | null {
  const kinds = options.graderKinds ?? CONTRACT_GRADER_KINDS;
  const kind = typeof input['kind'] === 'string' ? kinds[input['kind']] : undefined;
  if (kind === undefined) {
    violations.push({ path: `${path}.kind`, message: `must be one of ${Object.keys(kinds).join(', ')}` });
    return null;
  }
  const allowed = GRADER_INPUT_FIELDS[kind];
  for (const [field, value] of Object.entries(input)) {
    if (field !== 'kind' && value !== null && value !== undefined && !allowed.includes(field)) {
      violations.push({ path: `${path}.${field}`, message: `does not apply to a ${kind} grader` });
    }
  }
  if (kind !== 'json-schema') {
    return defined({ kind, ...Object.fromEntries(allowed.map((field) => [field, input[field]])) }) as Grader;
  }
  const text = input['schemaJson'];
  if (typeof text !== 'string') {
    violations.push({ path: `${path}.schemaJson`, message: 'is required for a json-schema grader' });
    return null;
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    violations.push({ path: `${path}.schemaJson`, message: 'is not JSON' });
    return null;
  }
  if (!isObject(schema)) {
    violations.push({ path: `${path}.schemaJson`, message: 'must be a JSON object' });
    return null;
  }
  const problem = options.schemaProblem?.(schema) ?? null;
  if (problem !== null) {
    violations.push({ path: `${path}.schemaJson`, message: `is not a valid JSON Schema: ${problem}` });
  }
  return { kind: 'json-schema', schema };
}

/** A CreateEvaluationSuiteInput as its definition, checked by EvaluationSuiteDefinitionSchema; a bad grader is reported once, where it is. */
export function checkEvaluationSuiteInput(
  input: unknown,
  options: SuiteCheckOptions = {},
): RuleCheck<EvaluationSuiteDefinition> {
  const fields = obj(input);
  const violations: FieldViolation[] = [];
  const casesInput = fields['cases'];
  const cases = Array.isArray(casesInput)
    ? casesInput.map((item: unknown, i) => {
        const c = obj(item);
        const messages = c['messages'];
        return defined({
          id: c['id'],
          prompt: c['prompt'],
          messages: Array.isArray(messages)
            ? messages.map((m: unknown) => ({ role: obj(m)['role'], content: obj(m)['content'] }))
            : undefined,
          maxTokens: c['maxTokens'],
          seed: c['seed'],
          grader: graderOf(obj(c['grader']), `cases.${i}.grader`, violations, options),
        });
      })
    : casesInput;
  const parsed = EvaluationSuiteDefinitionSchema.safeParse(
    defined({
      name: fields['name'],
      description: fields['description'],
      passThreshold: fields['passThreshold'],
      caseTimeoutSeconds: fields['caseTimeoutSeconds'],
      concurrency: fields['concurrency'],
      cases,
    }),
  );
  if (!parsed.success) {
    for (const issue of issuesOf(parsed.error)) {
      // A grader refused above is reported once, with the reason found there.
      if (!violations.some((v) => v.path.startsWith(issue.path) && issue.path.includes('grader'))) {
        violations.push(issue);
      }
    }
  }
  return checked(parsed, violations);
}

// ---------------------------------------------------------------------------- benchmark profiles

/** A CreateBenchmarkProfileInput as its definition (flat SLO fields under slo), checked by BenchmarkProfileDefinitionSchema. */
export function checkBenchmarkProfileInput(input: unknown): RuleCheck<BenchmarkProfileDefinition> {
  const fields = obj(input);
  const slo = defined({
    maxErrorRate: fields['maxErrorRate'],
    maxTtftP95Ms: fields['maxTtftP95Ms'],
    minTokensPerSecond: fields['minTokensPerSecond'],
  });
  const parsed = BenchmarkProfileDefinitionSchema.safeParse(
    defined({
      name: fields['name'],
      description: fields['description'],
      concurrency: fields['concurrency'],
      inputTokens: fields['inputTokens'],
      outputTokens: fields['outputTokens'],
      durationSeconds: fields['durationSeconds'],
      requestCount: fields['requestCount'],
      requestTimeoutSeconds: fields['requestTimeoutSeconds'],
      slo: Object.keys(slo).length > 0 ? slo : undefined,
    }),
  );
  return checked(parsed, parsed.success ? [] : issuesOf(parsed.error));
}
