import { z } from 'zod';
import { DigestSchema, IsoTimestampSchema, NameSchema, OpaqueIdSchema, VersionStringSchema } from './common';
import { CompatibleHardwareSchema } from './hardware';
import { MetricsFormatSchema, type MetricsFormat } from './runtime-load';

/**
 * A runtime registry record: how the agent launches an inference server.
 *
 * There is deliberately no command-line string anywhere in this record. The
 * agent execs `executable` with `args` directly (no shell), passes only the
 * environment variables named in `envAllowlist`, and substitutes a fixed set
 * of placeholders. Together with the refusal of shells and of interpreter
 * inline-code flags below, this keeps "no remote arbitrary shell path to a
 * node" true even for whoever can edit the registry.
 */

export const RUNTIME_KINDS = ['fake', 'openai-compatible'] as const;
export const RuntimeKindSchema = z.enum(RUNTIME_KINDS);
export type RuntimeKind = z.infer<typeof RuntimeKindSchema>;

/** Values the agent fills into args at launch; anything else in `{{…}}` is refused. */
export const RUNTIME_ARG_PLACEHOLDERS = ['modelPath', 'port', 'host', 'servedModelName'] as const;
export type RuntimeArgPlaceholder = (typeof RUNTIME_ARG_PLACEHOLDERS)[number];

/** Executables that would turn args back into a command line. */
export const FORBIDDEN_EXECUTABLES: readonly string[] = [
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'csh',
  'tcsh',
  'fish',
  'ash',
  'busybox',
  'env',
  'sudo',
  'su',
  'doas',
  'ssh',
  'xargs',
  'nohup',
  'setsid',
  'eval',
  'exec',
];

/** Interpreters are allowed (`python3 -m vllm…`), but not their inline-code flags. */
const INTERPRETER_PATTERN = /^(python[0-9.]*|node|perl|ruby|php|lua|deno|bun)$/;
const INLINE_CODE_FLAGS: readonly string[] = ['-c', '-e', '-E', '--eval', '-p', '--print', '-r'];

/** An absolute path or a bare program name, without whitespace or shell metacharacters. */
export const EXECUTABLE_PATTERN = /^(\/[A-Za-z0-9._+-]+)+$|^[A-Za-z0-9._+-]+$/;
export const ENV_NAME_PATTERN = /^[A-Z_][A-Z0-9_]{0,127}$/;

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export const LaunchSpecSchema = z
  .object({
    executable: z
      .string()
      .max(512)
      .regex(EXECUTABLE_PATTERN, 'must be an absolute path or a program name, no spaces or shell characters'),
    args: z
      .array(
        z
          .string()
          .max(4096)
          .refine((arg) => !arg.includes('\u0000'), { message: 'must not contain NUL' }),
      )
      .max(256),
    /** Names of variables the runtime may receive; values come from the assignment, never from the caller. */
    envAllowlist: z
      .array(z.string().regex(ENV_NAME_PATTERN, 'must be an environment variable name'))
      .max(64)
      .refine((names) => new Set(names).size === names.length, { message: 'must not contain duplicates' }),
    /** Port the server listens on inside a container; null for binaries, which get `{{port}}` from the agent. */
    containerPort: z.int().min(1).max(65535).nullable(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const program = basename(spec.executable);
    if (FORBIDDEN_EXECUTABLES.includes(program)) {
      ctx.addIssue({
        code: 'custom',
        path: ['executable'],
        message: `${program} is a shell or command launcher; runtimes are exec'd directly`,
      });
    }
    if (INTERPRETER_PATTERN.test(program)) {
      spec.args.forEach((arg, i) => {
        if (INLINE_CODE_FLAGS.includes(arg)) {
          ctx.addIssue({
            code: 'custom',
            path: ['args', i],
            message: `${arg} would run inline code through ${program}`,
          });
        }
      });
    }
    spec.args.forEach((arg, i) => {
      for (const match of arg.matchAll(/\{\{([^}]*)\}\}/g)) {
        const name = match[1] ?? '';
        if (!(RUNTIME_ARG_PLACEHOLDERS as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['args', i],
            message: `unknown placeholder {{${name}}}; allowed: ${RUNTIME_ARG_PLACEHOLDERS.join(', ')}`,
          });
        }
      }
    });
  });
export type LaunchSpec = z.infer<typeof LaunchSpecSchema>;

/** How the runtime's bytes are obtained; either way pinned by digest. */
export const RuntimePackagingSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('container'),
      /** Image repository without tag, e.g. `nvcr.io/nvidia/vllm`; the digest pins the content. */
      image: z
        .string()
        .regex(
          /^[a-z0-9]+([._/-][a-z0-9]+)*(:[0-9]+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/,
          'must be an image repository without tag',
        ),
      digest: DigestSchema,
    })
    .strict(),
  z
    .object({
      type: z.literal('binary'),
      /** The binary's sha256; the agent checks it before every launch. */
      digest: DigestSchema,
    })
    .strict(),
]);
export type RuntimePackaging = z.infer<typeof RuntimePackagingSchema>;

export const RuntimeHealthCheckSchema = z
  .object({
    /** HTTP path on the runtime's port, e.g. `/health` (vLLM) or `/v1/models`. */
    path: z.string().regex(/^\/[A-Za-z0-9._~/-]*$/),
    /** Model loading on a 128 GB node can take minutes; the agent waits this long before declaring failure. */
    startupTimeoutMs: z.int().min(1000).max(3_600_000),
    intervalMs: z.int().min(100).max(300_000),
  })
  .strict();
export type RuntimeHealthCheck = z.infer<typeof RuntimeHealthCheckSchema>;

/** `runtime-<name>-<version>`, the id model versions refer to; `+` (build metadata) is not an id character. */
export function runtimeIdFor(name: string, version: string): string {
  return `runtime-${name}-${version.replace(/\+/g, '_')}`;
}

export const RuntimeSchema = z
  .object({
    id: OpaqueIdSchema,
    name: NameSchema,
    version: VersionStringSchema,
    kind: RuntimeKindSchema,
    packaging: RuntimePackagingSchema,
    launch: LaunchSpecSchema,
    health: RuntimeHealthCheckSchema,
    supportedHardware: CompatibleHardwareSchema,
    /**
     * Which metric names its `/metrics` page uses (runtime load signals).
     * Optional: records registered before it existed omit it, and
     * runtimeMetricsFormat() derives it for them.
     */
    metricsFormat: MetricsFormatSchema.optional(),
    createdAt: IsoTimestampSchema,
  })
  .strict()
  .superRefine((runtime, ctx) => {
    // A binary shares the host's network namespace, so it must take the port the agent allocates.
    if (runtime.packaging.type === 'binary') {
      if (runtime.launch.containerPort !== null) {
        ctx.addIssue({
          code: 'custom',
          path: ['launch', 'containerPort'],
          message: 'must be null for binary runtimes',
        });
      }
      if (!runtime.launch.args.some((arg) => arg.includes('{{port}}'))) {
        ctx.addIssue({
          code: 'custom',
          path: ['launch', 'args'],
          message: 'a binary runtime must take {{port}} in its args',
        });
      }
    } else if (runtime.launch.containerPort === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['launch', 'containerPort'],
        message: 'is required for container runtimes',
      });
    }
  });
export type Runtime = z.infer<typeof RuntimeSchema>;

/**
 * The runtime's metrics format: as registered, or for records without one,
 * derived from what it is. The fake runtime prints vLLM's names; a runtime
 * named after a server family speaks that family's; anything else is not
 * scraped rather than read with guessed names.
 */
export function runtimeMetricsFormat(
  runtime: Pick<Runtime, 'kind' | 'name' | 'metricsFormat'>,
): MetricsFormat {
  if (runtime.metricsFormat !== undefined) return runtime.metricsFormat;
  if (runtime.kind === 'fake') return 'vllm';
  const name = runtime.name.toLowerCase();
  if (name.includes('sglang')) return 'sglang';
  if (/llama[-_.]?cpp|llama-server/.test(name)) return 'llamacpp';
  if (name.includes('vllm')) return 'vllm';
  return 'none';
}
