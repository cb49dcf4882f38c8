import { z } from 'zod';

/**
 * Fail-fast process configuration. Each process declares one zod object whose
 * keys are environment variable names; `loadConfig` validates the environment
 * once at boot and throws `ConfigError` naming every bad variable.
 */
export class ConfigError extends Error {
  readonly problems: readonly { variable: string; message: string }[];

  constructor(processName: string, problems: readonly { variable: string; message: string }[]) {
    super(
      `${processName}: invalid configuration\n` +
        problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function loadConfig<S extends z.ZodObject<z.ZodRawShape>>(
  processName: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    picked[key] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(picked);
  if (!result.success) {
    throw new ConfigError(
      processName,
      result.error.issues.map((issue) => ({
        variable: issue.path.map(String).join('.') || '(root)',
        message: issue.message,
      })),
    );
  }
  return result.data;
}

/** Exit code for a configuration error (sysexits EX_CONFIG). */
export const EXIT_CONFIG = 78;

/**
 * Runs a process's main function; a ConfigError prints the named variables and
 * exits with EX_CONFIG, anything else prints and exits 1.
 */
export function runMain(processName: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    process.stderr.write(
      `${processName}: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}

/** Reusable field schemas for configuration. */
export const configFields = {
  port: (fallback: number) =>
    z.coerce
      .number({ error: 'must be an integer port number' })
      .int('must be an integer port number')
      .min(1, 'must be between 1 and 65535')
      .max(65535, 'must be between 1 and 65535')
      .default(fallback),
  host: (fallback: string) => z.string().min(1).default(fallback),
  url: () => z.url({ error: 'must be an absolute URL' }),
  postgresUrl: () =>
    z
      .string({ error: 'is required (postgres://user@host:port/database)' })
      .regex(/^postgres(ql)?:\/\/.+/, 'must be a postgres:// or postgresql:// URL'),
  temporalAddress: (fallback: string) =>
    z
      .string()
      .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'must be host:port')
      .default(fallback),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  durationMs: (fallback: number) => z.coerce.number().int().positive().default(fallback),
};
