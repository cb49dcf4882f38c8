import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import {
  AssignmentSchema,
  RUNTIME_ARG_PLACEHOLDERS,
  type FieldViolation,
  type RuntimeArgPlaceholder,
  type RuntimeKind,
} from '@lunanexa/contracts';
import type { z } from 'zod';
import type { AssignedRuntime, RuntimeSpec } from './adapter';
import { RuntimeError } from './errors';

/**
 * Pure launch planning: from a runtime record and an assignment to an argv
 * array and an environment. Nothing here spawns, and nothing builds a command
 * line string — the argv goes to execve as is, so no value can be
 * reinterpreted by a shell.
 */

/** Variables the agent passes to a binary runtime from its own environment (the node's, not the caller's). */
export const BINARY_BASE_ENV: readonly string[] = ['PATH', 'HOME', 'LANG', 'TZ'];

/** Variables a container engine CLI needs to reach its daemon or socket; passed through from the agent. */
export const CONTAINER_CLI_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'XDG_RUNTIME_DIR',
  'DOCKER_HOST',
  'DOCKER_CONFIG',
  'DOCKER_CONTEXT',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'CONTAINER_HOST',
  'CONTAINERS_CONF',
  'CONTAINERS_REGISTRIES_CONF',
  'CONTAINERS_STORAGE_CONF',
];

/**
 * Variables that make the loader or an interpreter run code named by the value
 * alone. The contract lets the registry allowlist any name; the agent refuses
 * these, because an allowlisted interpreter (`python3 -m vllm`) plus one of
 * them would be an arbitrary-code path to the node.
 */
export const FORBIDDEN_RUNTIME_ENV: readonly string[] = [
  'LD_PRELOAD',
  'LD_AUDIT',
  'NODE_OPTIONS',
  'PERL5OPT',
  'RUBYOPT',
  'PYTHONSTARTUP',
  'PYTHONINSPECT',
  'BASH_ENV',
  'ENV',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
];

/** Prefixes of variables a container engine CLI reads; a runtime may not set them through the CLI's environment. */
const CONTAINER_CLI_ENV_PREFIXES = ['DOCKER_', 'CONTAINER', 'PODMAN_', 'XDG_', 'BUILDAH_'];

/** Set by the agent from the assignment's GPU UUIDs for binaries; a container gets devices instead. */
export const GPU_SELECTION_ENV = 'CUDA_VISIBLE_DEVICES';

/** Where a container sees the model artifact (read-only bind mount). */
export const CONTAINER_MODEL_DIR = '/lunanexa/models';

/** The runtime part of an assignment, exactly as the contract defines it (strict, launch spec refinements included). */
const AssignedRuntimeSchema = AssignmentSchema.shape.runtime;

function violationsFrom(error: z.ZodError, prefix: string): FieldViolation[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.'),
    message: issue.message,
  }));
}

/**
 * Everything an adapter checks before it spawns anything: the contract schema
 * (which refuses shells and inline-code flags), the runtime kind, the
 * environment against the allowlist and the agent's own refusals, and the
 * values that will be substituted into args.
 */
export function validateRuntimeSpec(spec: RuntimeSpec, kind: RuntimeKind): AssignedRuntime {
  const parsed = AssignedRuntimeSchema.safeParse(spec.runtime);
  if (!parsed.success) {
    throw new RuntimeError(
      'LAUNCH_SPEC_INVALID',
      `runtime ${String((spec.runtime as { id?: unknown }).id)} has an invalid launch spec`,
      violationsFrom(parsed.error, 'runtime'),
    );
  }
  const runtime = parsed.data;
  if (runtime.kind !== kind) {
    throw new RuntimeError(
      'WRONG_RUNTIME_KIND',
      `runtime ${runtime.id} is of kind ${runtime.kind}; this adapter runs ${kind} runtimes`,
    );
  }
  const allowed = new Set(runtime.launch.envAllowlist);
  const envViolations: FieldViolation[] = [];
  for (const [name, value] of Object.entries(spec.env)) {
    if (!allowed.has(name))
      envViolations.push({ path: `env.${name}`, message: 'is not in the runtime envAllowlist' });
    else if (FORBIDDEN_RUNTIME_ENV.includes(name))
      envViolations.push({
        path: `env.${name}`,
        message: 'makes the loader or an interpreter run code; refused',
      });
    else if (value.includes('\u0000'))
      envViolations.push({ path: `env.${name}`, message: 'must not contain NUL' });
  }
  if (envViolations.length > 0) {
    throw new RuntimeError('ENV_NOT_ALLOWED', `runtime ${runtime.id}: environment refused`, envViolations);
  }
  const valueViolations: FieldViolation[] = [];
  for (const [field, value] of [
    ['modelPath', spec.modelPath],
    ['servedModelName', spec.servedModelName],
  ] as const) {
    if (value === '' || value.includes('\u0000'))
      valueViolations.push({ path: field, message: 'must be non-empty and contain no NUL' });
  }
  if (valueViolations.length > 0) {
    throw new RuntimeError(
      'LAUNCH_SPEC_INVALID',
      `runtime ${runtime.id}: bad launch values`,
      valueViolations,
    );
  }
  return runtime;
}

/** Replaces `{{name}}` in each arg; the schema has already refused any other name. */
export function renderArgs(
  args: readonly string[],
  values: Readonly<Record<RuntimeArgPlaceholder, string>>,
): string[] {
  return args.map((arg) =>
    arg.replace(/\{\{([^}]*)\}\}/g, (_match, name: string) => {
      if (!(RUNTIME_ARG_PLACEHOLDERS as readonly string[]).includes(name)) {
        throw new RuntimeError('LAUNCH_SPEC_INVALID', `unknown placeholder {{${name}}}`);
      }
      return values[name as RuntimeArgPlaceholder];
    }),
  );
}

function pick(source: Readonly<Record<string, string | undefined>>, names: readonly string[]) {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/**
 * A binary's environment: a few of the node's own variables, the GPU
 * selection, and the assignment's values for allowlisted names — nothing else
 * of the agent's environment leaks through.
 */
export function binaryEnv(spec: RuntimeSpec, agentEnv: Readonly<Record<string, string | undefined>>) {
  const env: Record<string, string> = { ...pick(agentEnv, BINARY_BASE_ENV), ...spec.env };
  if (spec.gpuUuids.length > 0) {
    const selection = spec.gpuUuids.join(',');
    const requested = spec.env[GPU_SELECTION_ENV];
    if (requested !== undefined && requested !== selection) {
      throw new RuntimeError(
        'ENV_NOT_ALLOWED',
        `${GPU_SELECTION_ENV} is set by the agent from the assignment's GPUs`,
        [{ path: `env.${GPU_SELECTION_ENV}`, message: `conflicts with gpuUuids (${selection})` }],
      );
    }
    env[GPU_SELECTION_ENV] = selection;
  }
  return env;
}

/** `http://host:port` for reaching a runtime bound to `host`; a wildcard bind is reached over loopback. */
export function endpointFor(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * The container's name: `lunanexa-<assignment id>`, readable in `docker ps`
 * and the handle the agent stops it by. Assignment ids may contain `:`, which
 * engines refuse; such ids are sanitised and suffixed with a hash so two ids
 * never share a name.
 */
export function containerName(assignmentId: string): string {
  const safe = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(assignmentId);
  if (safe) return `lunanexa-${assignmentId}`;
  const hash = createHash('sha256').update(assignmentId).digest('hex').slice(0, 10);
  return `lunanexa-${assignmentId.replace(/[^A-Za-z0-9_.-]/g, '-')}-${hash}`;
}

/** Labels every container the agent launches carries, so its orphan sweep finds them by label (`ps --filter`). */
export const CONTAINER_OWNER_LABEL = 'lunanexa.owner';
export const CONTAINER_ASSIGNMENT_LABEL = 'lunanexa.assignment';
export const CONTAINER_RUNTIME_LABEL = 'lunanexa.runtime';
/** The launch digest the container was started from: adopted after a restart only if the assignment still has it. */
export const CONTAINER_LAUNCH_DIGEST_LABEL = 'lunanexa.launch-digest';
/** Where the agent reaches the container (its published port): the endpoint of a container adopted without a record. */
export const CONTAINER_ENDPOINT_LABEL = 'lunanexa.endpoint';

export interface ContainerLaunch {
  /** Arguments after the engine executable. */
  readonly args: readonly string[];
  /** The CLI's environment: engine variables from the agent plus the allowlisted values `--env NAME` forwards. */
  readonly env: Readonly<Record<string, string>>;
  readonly name: string;
}

/**
 * `<engine> run --rm --name … --publish host:port:containerPort … image@digest args…`.
 * Allowlisted variables are forwarded by name (`--env NAME`), so their values
 * never appear in the process list. Docker and podman take the same argv;
 * GPUs are CDI devices (`nvidia.com/gpu=<uuid>`), which both support.
 */
export function containerLaunch(
  spec: RuntimeSpec,
  runtime: AssignedRuntime,
  options: {
    readonly host: string;
    readonly hostPort: number;
    readonly agentEnv: Readonly<Record<string, string | undefined>>;
    /** Agent-made labels (owner tag, launch digest); never values from the assignment. */
    readonly labels?: Readonly<Record<string, string>>;
  },
): ContainerLaunch {
  const { packaging, launch } = runtime;
  if (packaging.type !== 'container') {
    throw new RuntimeError('PACKAGING_UNSUPPORTED', `runtime ${runtime.id} is not packaged as a container`);
  }
  if (launch.containerPort === null) {
    throw new RuntimeError(
      'LAUNCH_SPEC_INVALID',
      `runtime ${runtime.id}: a container runtime needs containerPort`,
      [{ path: 'runtime.launch.containerPort', message: 'is required for container runtimes' }],
    );
  }
  if (!posix.isAbsolute(spec.modelPath) || /[,"\n\r]/.test(spec.modelPath)) {
    throw new RuntimeError(
      'LAUNCH_SPEC_INVALID',
      `runtime ${runtime.id}: the model path cannot be bind-mounted`,
      [{ path: 'modelPath', message: 'must be an absolute path without commas, quotes or newlines' }],
    );
  }
  const cliVariables = Object.keys(spec.env).filter(
    (name) =>
      CONTAINER_CLI_ENV.includes(name) ||
      CONTAINER_CLI_ENV_PREFIXES.some((prefix) => name.startsWith(prefix)),
  );
  if (cliVariables.length > 0) {
    throw new RuntimeError(
      'ENV_NOT_ALLOWED',
      `runtime ${runtime.id}: variables the container engine itself reads cannot be forwarded`,
      cliVariables.map((name) => ({ path: `env.${name}`, message: 'is read by the container engine CLI' })),
    );
  }
  const name = containerName(spec.assignmentId);
  const modelTarget = posix.join(CONTAINER_MODEL_DIR, posix.basename(spec.modelPath));
  const publishHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const envNames = Object.keys(spec.env).sort();
  const args = [
    'run',
    '--rm',
    '--name',
    name,
    '--label',
    `${CONTAINER_ASSIGNMENT_LABEL}=${spec.assignmentId}`,
    '--label',
    `${CONTAINER_RUNTIME_LABEL}=${runtime.id}`,
    ...Object.entries(options.labels ?? {})
      .filter(([key]) => key !== CONTAINER_ASSIGNMENT_LABEL && key !== CONTAINER_RUNTIME_LABEL)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([key, value]) => ['--label', `${key}=${value}`]),
    '--publish',
    `${publishHost}:${options.hostPort}:${launch.containerPort}`,
    '--mount',
    `type=bind,source=${spec.modelPath},target=${modelTarget},readonly=true`,
    ...spec.gpuUuids.flatMap((uuid) => ['--device', `nvidia.com/gpu=${uuid}`]),
    ...envNames.flatMap((variable) => ['--env', variable]),
    '--entrypoint',
    launch.executable,
    `${packaging.image}@${packaging.digest}`,
    ...renderArgs(launch.args, {
      // Inside its own network namespace the server listens on every interface; only the published port is reachable.
      host: '0.0.0.0',
      port: String(launch.containerPort),
      modelPath: modelTarget,
      servedModelName: spec.servedModelName,
    }),
  ];
  return { args, env: { ...pick(options.agentEnv, CONTAINER_CLI_ENV), ...spec.env }, name };
}

/** `<engine> stop --time <seconds> <name>`: SIGTERM to the container, SIGKILL after the grace period. */
export function containerStopArgs(name: string, graceMs: number): string[] {
  return ['stop', '--time', String(Math.max(0, Math.ceil(graceMs / 1000))), name];
}
