import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CommandRegistrars } from './registration';
import { ErrorCode } from '@lunanexa/contracts';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { parseModelVersionRef, parseName } from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { CliError, ExitCode, usageError } from '../errors';
import { UNKNOWN, formatBytes, formatFields, formatTable, writeJson } from '../output';
import { WORKFLOW_REQUEST_TIMEOUT_MS } from './nodes';

/**
 * `lunanexa model`, `model-version`, `license` and `runtime`: the model
 * registry. Specs (`--file`) are the GraphQL input objects as JSON and are
 * sent as written: the API validates them with the contracts' schemas, so
 * the CLI cannot drift from what the API accepts. State names are read as
 * plain strings (a newer API may add states).
 */

/** The registry's operations (libs/sdk/graphql/cli/registry.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const REGISTRY_DOCUMENTS = {
  models: Operations.ModelsDocument.document,
  model: Operations.ModelDocument.document,
  createModel: Operations.CreateModelDocument.document,
  licenses: Operations.LicensesDocument.document,
  createLicense: Operations.CreateLicenseDocument.document,
  approveLicense: Operations.ApproveLicenseDocument.document,
  rejectLicense: Operations.RejectLicenseDocument.document,
  runtimes: Operations.RuntimesDocument.document,
  registerRuntime: Operations.RegisterRuntimeDocument.document,
  setRuntimeAllowed: Operations.SetRuntimeAllowedDocument.document,
  modelVersions: Operations.RegistryModelVersionsDocument.document,
  modelVersion: Operations.ModelVersionDocument.document,
  createModelVersion: Operations.CreateModelVersionDocument.document,
  verifyModelVersion: Operations.VerifyModelVersionDocument.document,
  approveModelVersion: Operations.ApproveModelVersionDocument.document,
  deprecateModelVersion: Operations.DeprecateModelVersionDocument.document,
  reinstateModelVersion: Operations.ReinstateModelVersionDocument.document,
  retireModelVersion: Operations.RetireModelVersionDocument.document,
} as const;

export type RegistryModel = z.infer<typeof Results.ModelsQuerySchema>['models'][number];
export type RegistryLicense = z.infer<typeof Results.LicensesQuerySchema>['licenses'][number];
export type RegistryRuntime = z.infer<typeof Results.RuntimesQuerySchema>['runtimes'][number];
type Hardware = RegistryRuntime['supportedHardware'];
export type RegistryModelVersion = z.infer<
  typeof Results.RegistryModelVersionsQuerySchema
>['modelVersions'][number];
/** The four lifecycle mutations select the same fields under `version`. */
type VersionLifecycleSchema =
  | typeof Results.ApproveModelVersionMutationSchema
  | typeof Results.ReinstateModelVersionMutationSchema
  | typeof Results.DeprecateModelVersionMutationSchema
  | typeof Results.RetireModelVersionMutationSchema;

/** A spec file: one JSON object, sent as the mutation's input. */
export function readSpecFile(path: string | undefined): Record<string, unknown> {
  if (path === undefined) throw usageError('--file <path> is required (a JSON spec)');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${path} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw usageError(`${path} must hold one JSON object`);
  }
  return value as Record<string, unknown>;
}

function requiredText(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw usageError(`${flag} <text> is required`);
  return value;
}

const orUnknown = (value: string | number | null): string => (value === null ? UNKNOWN : String(value));

function hardwareText(hardware: Hardware): string {
  const capability = `cc ${hardware.minComputeCapability}–${hardware.maxComputeCapability ?? '∞'}`;
  const cuda = hardware.minCudaVersion === null ? 'no CUDA' : `CUDA ≥ ${hardware.minCudaVersion}`;
  const memory =
    hardware.minMemoryBytesPerReplica === null
      ? ''
      : `, ${formatBytes(hardware.minMemoryBytesPerReplica)}/replica`;
  return `${hardware.architectures.join('/')}, ${hardware.memoryModels.join('/')} memory, ${hardware.gpusPerReplica} GPU(s), ${capability}, ${cuda}${memory}`;
}

// ---------------------------------------------------------------------------- rendering

export function renderModelList(models: readonly RegistryModel[]): string {
  if (models.length === 0)
    return 'No models. Create one: lunanexa model create <name> --display-name <text>\n';
  return formatTable(
    ['NAME', 'DISPLAY NAME', 'VERSIONS', 'CREATED BY'],
    models.map((model) => [model.name, model.displayName, String(model.versions.length), model.createdBy]),
  );
}

export function renderModel(model: RegistryModel): string {
  const fields = formatFields([
    ['model', model.name],
    ['id', model.id],
    ['display name', model.displayName],
    ['description', model.description ?? UNKNOWN],
    ['created', `${model.createdAt} by ${model.createdBy}`],
  ]);
  const versions =
    model.versions.length === 0
      ? 'VERSIONS  (none yet)\n'
      : formatTable(
          ['VERSION', 'STATE'],
          model.versions.map((version) => [version.ref, version.state]),
        );
  return `${fields}\n${versions}`;
}

export function renderVersionList(versions: readonly RegistryModelVersion[]): string {
  if (versions.length === 0)
    return 'No model versions. Create one: lunanexa model-version create --file spec.json\n';
  return formatTable(
    ['REF', 'STATE', 'FORMAT', 'SIZE', 'LICENSE', 'RUNTIME', 'VERIFIED'],
    versions.map((version) => [
      version.ref,
      version.state,
      version.artifact.format,
      formatBytes(version.artifact.sizeBytes),
      `${version.license.name} (${version.license.approvalState})`,
      `${version.runtime.id}${version.runtime.allowed ? '' : ' (not allowed)'}`,
      version.verification === null
        ? 'never'
        : version.verification.ok
          ? 'ok'
          : (version.verification.code ?? 'failed'),
    ]),
  );
}

export function renderVersion(version: RegistryModelVersion): string {
  const verification = version.verification;
  return formatFields([
    ['model version', version.ref],
    ['id', version.id],
    ['state', version.stateReason === null ? version.state : `${version.state} (${version.stateReason})`],
    ['next', version.allowedEvents.join(', ') || '(terminal)'],
    ['artifact', version.artifact.uri],
    ['digest', version.artifact.digest],
    ['size', formatBytes(version.artifact.sizeBytes)],
    ['format', version.artifact.format],
    ['source', version.artifact.provenance.source],
    ['uploader', `${version.artifact.provenance.uploader} at ${version.artifact.provenance.uploadedAt}`],
    [
      'signature',
      version.artifact.provenance.signature === null
        ? 'none'
        : `${version.artifact.provenance.signature.algorithm} key ${version.artifact.provenance.signature.keyId}`,
    ],
    ['license', `${version.license.name} (${version.license.approvalState})`],
    ['runtime', `${version.runtime.id} (${version.runtime.allowed ? 'allowed' : 'not on the allowlist'})`],
    ['requirements', hardwareText(version.requirements)],
    ['context length', orUnknown(version.contextLength)],
    ['parameters', orUnknown(version.parameterCount)],
    ['runtime env', version.runtimeEnv.map((v) => `${v.name}=${v.value}`).join(' ') || '(none)'],
    [
      'verification',
      verification === null
        ? 'never verified'
        : verification.ok
          ? `ok (${verification.store}, ${verification.verifiedAt})`
          : `${verification.code ?? 'failed'}: ${verification.message ?? ''} (${verification.verifiedAt})`,
    ],
    [
      'evaluation',
      version.evaluation === null
        ? 'none'
        : `${version.evaluation.suite} ${version.evaluation.passed ? 'passed' : 'failed'} (${version.evaluation.evaluatedAt})`,
    ],
    ['created', `${version.createdAt} by ${version.createdBy}`],
  ]);
}

export function renderLicenseList(licenses: readonly RegistryLicense[]): string {
  return formatTable(
    ['NAME', 'TERMS', 'STATE', 'COMMERCIAL', 'DATA CLASSES', 'DECIDED BY'],
    licenses.map((license) => [
      license.name,
      license.spdxId ?? license.customName ?? UNKNOWN,
      license.approvalState,
      license.commercialUse ? 'yes' : 'no',
      license.allowedDataClasses.join(','),
      license.decidedBy ?? UNKNOWN,
    ]),
  );
}

export function renderLicense(license: RegistryLicense): string {
  return formatFields([
    ['license', license.name],
    [
      'terms',
      license.spdxId ??
        `${license.customName ?? ''} ${license.termsUri ?? ''} ${license.termsDigest ?? ''}`.trim(),
    ],
    ['state', license.approvalState],
    ['commercial use', license.commercialUse ? 'yes' : 'no'],
    ['data classes', license.allowedDataClasses.join(', ')],
    ['attribution', license.attribution ?? UNKNOWN],
    ['decided', license.decidedBy === null ? UNKNOWN : `${license.decidedAt ?? ''} by ${license.decidedBy}`],
    ['note', license.note ?? UNKNOWN],
  ]);
}

export function renderRuntimeList(runtimes: readonly RegistryRuntime[]): string {
  return formatTable(
    ['ID', 'KIND', 'PACKAGING', 'EXECUTABLE', 'ALLOWED'],
    runtimes.map((runtime) => [
      runtime.id,
      runtime.kind,
      runtime.packaging.image === null
        ? runtime.packaging.type
        : `${runtime.packaging.image}@${runtime.packaging.digest}`,
      runtime.launch.executable,
      runtime.allowed ? 'yes' : 'no',
    ]),
  );
}

export function renderRuntime(runtime: RegistryRuntime): string {
  return formatFields([
    ['runtime', runtime.id],
    ['kind', runtime.kind],
    [
      'packaging',
      `${runtime.packaging.type} ${runtime.packaging.image ?? ''} ${runtime.packaging.digest}`.replace(
        / +/g,
        ' ',
      ),
    ],
    ['launch', [runtime.launch.executable, ...runtime.launch.args].join(' ')],
    ['env allowlist', runtime.launch.envAllowlist.join(', ') || '(none)'],
    ['supports', hardwareText(runtime.supportedHardware)],
    ['allowed', runtime.allowed ? 'yes' : 'no (an admin allows it: lunanexa runtime allow <id>)'],
  ]);
}

// ---------------------------------------------------------------------------- commands

function print<T extends object>(
  ctx: CommandContext,
  value: T,
  render: (value: T) => string,
  requestId?: string,
): ExitCode {
  if (ctx.json) writeJson(ctx.io.stdout, requestId === undefined ? value : { ...value, requestId });
  else ctx.io.stdout(render(value));
  return ExitCode.OK;
}

export interface ModelCreateOptions {
  readonly displayName?: string;
  readonly description?: string;
}

export async function modelCreateCommand(
  ctx: CommandContext,
  name: string,
  options: ModelCreateOptions,
): Promise<ExitCode> {
  const input = {
    name: parseName(name, 'model name'),
    displayName: options.displayName ?? name,
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.createModel,
    { input },
    Results.CreateModelMutationSchema,
  );
  return print(ctx, data.createModel, renderModel, requestId);
}

export async function modelListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(REGISTRY_DOCUMENTS.models, undefined, Results.ModelsQuerySchema);
  if (ctx.json) writeJson(ctx.io.stdout, data.models);
  else ctx.io.stdout(renderModelList(data.models));
  return ExitCode.OK;
}

export async function modelGetCommand(ctx: CommandContext, name: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.model,
    { name },
    Results.ModelQuerySchema,
  );
  if (data.model === null)
    throw new CliError({ code: ErrorCode.NOT_FOUND, message: `model ${name} does not exist` }, requestId);
  return print(ctx, data.model, renderModel);
}

export async function versionCreateCommand(
  ctx: CommandContext,
  options: { file?: string },
): Promise<ExitCode> {
  const input = readSpecFile(options.file);
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.createModelVersion,
    { input },
    Results.CreateModelVersionMutationSchema,
  );
  return print(ctx, data.version, renderVersion, requestId);
}

export async function versionListCommand(
  ctx: CommandContext,
  options: { model?: string },
): Promise<ExitCode> {
  const model = options.model === undefined ? null : parseName(options.model, '--model');
  const { data } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.modelVersions,
    { model },
    Results.RegistryModelVersionsQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.modelVersions);
  else ctx.io.stdout(renderVersionList(data.modelVersions));
  return ExitCode.OK;
}

export async function versionGetCommand(ctx: CommandContext, ref: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.modelVersion,
    { ref: parseModelVersionRef(ref).ref },
    Results.ModelVersionQuerySchema,
  );
  if (data.modelVersion === null) {
    throw new CliError(
      { code: ErrorCode.MODEL_NOT_FOUND, message: `model version ${ref} is not registered` },
      requestId,
    );
  }
  return print(ctx, data.modelVersion, renderVersion);
}

/** Exit 0 when the bytes match the digest, 1 when the version came back VerificationFailed. */
export async function versionVerifyCommand(ctx: CommandContext, ref: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.verifyModelVersion,
    { ref: parseModelVersionRef(ref).ref },
    Results.VerifyModelVersionMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  print(ctx, data.version, renderVersion, requestId);
  return data.version.verification?.ok === true ? ExitCode.OK : ExitCode.FAILURE;
}

export type LifecycleCommand = 'approve' | 'deprecate' | 'reinstate' | 'retire';

export interface LifecycleOptions {
  readonly note?: string;
  readonly reason?: string;
  readonly withdraw?: boolean;
}

export function lifecycleRequest(
  command: LifecycleCommand,
  ref: string,
  options: LifecycleOptions,
): { document: string; variables: Record<string, unknown>; schema: VersionLifecycleSchema } {
  const parsed = parseModelVersionRef(ref).ref;
  switch (command) {
    case 'approve':
      return {
        document: REGISTRY_DOCUMENTS.approveModelVersion,
        schema: Results.ApproveModelVersionMutationSchema,
        variables: { ref: parsed, note: options.note ?? null },
      };
    case 'reinstate':
      return {
        document: REGISTRY_DOCUMENTS.reinstateModelVersion,
        schema: Results.ReinstateModelVersionMutationSchema,
        variables: { ref: parsed, note: options.note ?? null },
      };
    case 'deprecate':
      return {
        document: REGISTRY_DOCUMENTS.deprecateModelVersion,
        schema: Results.DeprecateModelVersionMutationSchema,
        variables: { ref: parsed, reason: requiredText(options.reason, '--reason') },
      };
    case 'retire':
      return {
        document: REGISTRY_DOCUMENTS.retireModelVersion,
        schema: Results.RetireModelVersionMutationSchema,
        variables: {
          ref: parsed,
          reason: requiredText(options.reason, '--reason'),
          withdraw: options.withdraw === true,
        },
      };
  }
}

export async function versionLifecycleCommand(
  ctx: CommandContext,
  command: LifecycleCommand,
  ref: string,
  options: LifecycleOptions,
): Promise<ExitCode> {
  const { document, variables, schema } = lifecycleRequest(command, ref, options);
  const { data, requestId } = await ctx.api.graphql(document, variables, schema);
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.version, requestId });
  else ctx.io.stdout(`model version ${data.version.ref} is ${data.version.state}\n`);
  return ExitCode.OK;
}

export async function licenseCreateCommand(
  ctx: CommandContext,
  options: { file?: string },
): Promise<ExitCode> {
  const input = readSpecFile(options.file);
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.createLicense,
    { input },
    Results.CreateLicenseMutationSchema,
  );
  return print(ctx, data.createLicense, renderLicense, requestId);
}

export async function licenseListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(REGISTRY_DOCUMENTS.licenses, undefined, Results.LicensesQuerySchema);
  if (ctx.json) writeJson(ctx.io.stdout, data.licenses);
  else ctx.io.stdout(renderLicenseList(data.licenses));
  return ExitCode.OK;
}

export async function licenseDecideCommand(
  ctx: CommandContext,
  decision: 'approve' | 'reject',
  name: string,
  options: { note?: string },
): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    decision === 'approve' ? REGISTRY_DOCUMENTS.approveLicense : REGISTRY_DOCUMENTS.rejectLicense,
    { name, note: requiredText(options.note, '--note') },
    decision === 'approve' ? Results.ApproveLicenseMutationSchema : Results.RejectLicenseMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.license, requestId });
  else
    ctx.io.stdout(
      `license ${data.license.name} is ${data.license.approvalState} (by ${data.license.decidedBy ?? UNKNOWN})\n`,
    );
  return ExitCode.OK;
}

export async function runtimeRegisterCommand(
  ctx: CommandContext,
  options: { file?: string },
): Promise<ExitCode> {
  const input = readSpecFile(options.file);
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.registerRuntime,
    { input },
    Results.RegisterRuntimeMutationSchema,
  );
  return print(ctx, data.registerRuntime, renderRuntime, requestId);
}

export async function runtimeListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(REGISTRY_DOCUMENTS.runtimes, undefined, Results.RuntimesQuerySchema);
  if (ctx.json) writeJson(ctx.io.stdout, data.runtimes);
  else ctx.io.stdout(renderRuntimeList(data.runtimes));
  return ExitCode.OK;
}

export async function runtimeAllowCommand(
  ctx: CommandContext,
  id: string,
  allowed: boolean,
): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    REGISTRY_DOCUMENTS.setRuntimeAllowed,
    { id, allowed },
    Results.SetRuntimeAllowedMutationSchema,
  );
  const runtime = data.setRuntimeAllowed;
  if (ctx.json) writeJson(ctx.io.stdout, { ...runtime, requestId });
  else ctx.io.stdout(`runtime ${runtime.id} is ${runtime.allowed ? 'on' : 'off'} the runtime allowlist\n`);
  return ExitCode.OK;
}

// ---------------------------------------------------------------------------- wiring

/**
 * Registry commands, registered by cli.ts with its shared helpers. `model`
 * is the group cli.ts already holds (its `register` is the fake-runtime
 * shortcut); the other groups are created here.
 */
export function registerRegistryCommands(
  program: Command,
  model: Command,
  { group, leaf, run }: CommandRegistrars,
): void {
  leaf(model, 'create <name>')
    .description('create a model (a name; its versions come with model-version create)')
    .option('--display-name <text>', 'what operators read (default: the name)')
    .option('--description <text>', 'what the model is')
    .action(run((ctx, name: string, options: ModelCreateOptions) => modelCreateCommand(ctx, name, options)));
  leaf(model, 'list')
    .description('list models with their number of versions')
    .action(run((ctx) => modelListCommand(ctx)));
  leaf(model, 'get <name>')
    .description('show a model and its versions with their states')
    .action(run((ctx, name: string) => modelGetCommand(ctx, name)));

  const version = group(
    program,
    'model-version',
    'model versions: digest-pinned artifacts under a license, on a runtime',
  );
  leaf(version, 'create')
    .description('register a version from a JSON spec (CreateModelVersionInput); it starts Registered')
    .option('--file <path>', 'the spec: model, version, artifact, license, runtime, requirements, …')
    .addHelpText(
      'after',
      '\nExample spec:\n' +
        '  {"model": "llama", "version": "2024-07-23",\n' +
        '   "artifact": {"uri": "s3://models/llama/model.safetensors", "digest": "sha256:…", "sizeBytes": 16060522240,\n' +
        '                "format": "safetensors", "source": "hf://meta-llama/Llama-3.1-8B-Instruct"},\n' +
        '   "license": "llama3-1-community", "runtime": "runtime-vllm-0.11.0",\n' +
        '   "requirements": {"architectures": ["arm64"], "memoryModels": ["unified"], "minComputeCapability": "8.0",\n' +
        '                    "gpusPerReplica": 1, "minMemoryBytesPerReplica": 25769803776},\n' +
        '   "runtimeEnv": [{"name": "HF_HUB_OFFLINE", "value": "1"}]}\n',
    )
    .action(run((ctx, options: { file?: string }) => versionCreateCommand(ctx, options)));
  leaf(version, 'list')
    .description('list versions: state, format, size, license, runtime, last verification')
    .option('--model <name>', 'only the versions of this model')
    .action(run((ctx, options: { model?: string }) => versionListCommand(ctx, options)));
  leaf(version, 'get <name@version>')
    .description(
      'show one version: artifact, provenance, license, runtime, requirements, verification, evaluation',
    )
    .action(run((ctx, ref: string) => versionGetCommand(ctx, ref)));
  leaf(version, 'verify <name@version>')
    .description(
      'hash the artifact in its store against the digest (a workflow); exit 1 when it does not match',
    )
    .action(run((ctx, ref: string) => versionVerifyCommand(ctx, ref)));
  leaf(version, 'approve <name@version>')
    .description('Evaluated → Approved: the only state rollouts accept (needs an Approved license)')
    .option('--note <text>', 'recorded with the approval')
    .action(
      run((ctx, ref: string, options: LifecycleOptions) =>
        versionLifecycleCommand(ctx, 'approve', ref, options),
      ),
    );
  leaf(version, 'deprecate <name@version>')
    .description('Approved → Deprecated: keeps serving where deployed, no new rollouts')
    .option('--reason <text>', 'why (required)')
    .action(
      run((ctx, ref: string, options: LifecycleOptions) =>
        versionLifecycleCommand(ctx, 'deprecate', ref, options),
      ),
    );
  leaf(version, 'reinstate <name@version>')
    .description('Deprecated → Approved')
    .option('--note <text>', 'recorded with the change')
    .action(
      run((ctx, ref: string, options: LifecycleOptions) =>
        versionLifecycleCommand(ctx, 'reinstate', ref, options),
      ),
    );
  leaf(version, 'retire <name@version>')
    .description(
      'retire for good (after deprecation; --withdraw skips it: license withdrawn, weights compromised)',
    )
    .option('--reason <text>', 'why (required)')
    .option('--withdraw', 'retire an Approved or Deprecated version at once')
    .action(
      run((ctx, ref: string, options: LifecycleOptions) =>
        versionLifecycleCommand(ctx, 'retire', ref, options),
      ),
    );

  const license = group(program, 'license', 'licenses and their review (approve/reject: admin)');
  leaf(license, 'create')
    .description('record a license from a JSON spec (CreateLicenseInput); it starts PendingReview')
    .option('--file <path>', 'the spec: name, kind (spdx|custom), spdxId or custom terms, commercialUse, …')
    .action(run((ctx, options: { file?: string }) => licenseCreateCommand(ctx, options)));
  leaf(license, 'list')
    .description('list licenses with their review state')
    .action(run((ctx) => licenseListCommand(ctx)));
  for (const decision of ['approve', 'reject'] as const) {
    leaf(license, `${decision} <name>`)
      .description(`${decision} a license (admin); the reviewer and note are recorded`)
      .option('--note <text>', 'the review note (required)')
      .action(
        run((ctx, name: string, options: { note?: string }) =>
          licenseDecideCommand(ctx, decision, name, options),
        ),
      );
  }

  const runtime = group(program, 'runtime', 'runtimes and the runtime allowlist (allow/deny: admin)');
  leaf(runtime, 'register')
    .description('register a runtime from a JSON spec (RegisterRuntimeInput); it starts off the allowlist')
    .option('--file <path>', 'the spec: name, version, kind, packaging, launch, health, supportedHardware')
    .action(run((ctx, options: { file?: string }) => runtimeRegisterCommand(ctx, options)));
  leaf(runtime, 'list')
    .description('list runtimes and whether each is on the allowlist')
    .action(run((ctx) => runtimeListCommand(ctx)));
  leaf(runtime, 'allow <id>')
    .description('put a runtime on the runtime allowlist (admin)')
    .action(run((ctx, id: string) => runtimeAllowCommand(ctx, id, true)));
  leaf(runtime, 'deny <id>')
    .description('take a runtime off the runtime allowlist (admin): its versions no longer roll out')
    .action(run((ctx, id: string) => runtimeAllowCommand(ctx, id, false)));
}
