import { accessSync, constants } from 'node:fs';
import { parseArgs } from 'node:util';
import { OpenAiModelNameSchema } from '@lunanexa/contracts';
import { ConfigError } from '@lunanexa/observability';
import { z } from 'zod';

export const FAKE_RUNTIME_PROCESS_NAME = 'lunanexa-fake-runtime';
export const FAKE_RUNTIME_SERVICE = 'fake-runtime';

/** sysexits EX_USAGE: the command line itself is wrong (unknown flag, positional argument). */
export const EXIT_USAGE = 64;
/** sysexits EX_SOFTWARE: the deliberate crash asked for with --crash-after-requests. */
export const EXIT_CRASH = 70;

/** The fake runtime's whole configuration, read once at boot. */
export interface FakeRuntimeConfig {
  readonly host: string;
  /** 0 lets the OS choose; the "listening" log line carries the port actually bound. */
  readonly port: number;
  /** The one model this process serves (`--served-model-name` of a real runtime). */
  readonly model: string;
  /** Path of the model artifact; only checked to exist, never read (output does not depend on it). */
  readonly weights: string | null;
  /** Default sampling seed for requests without one, and the phase of error injection. */
  readonly seed: number;
  readonly ttftMs: number;
  readonly tokensPerSecond: number;
  /** Completion length limit for requests that set no max_tokens. */
  readonly maxTokens: number;
  /** Fraction of inference requests answered with a 500, chosen by request number (see faults.ts). */
  readonly errorRate: number;
  /** Requests decoded at once (vLLM's --max-num-seqs); later ones wait, counted in vllm:num_requests_waiting. */
  readonly maxNumSeqs: number;
  /** Tokens the simulated KV cache holds; vllm:kv_cache_usage_perc is the running requests' tokens over this. */
  readonly kvCacheTokens: number;
  /**
   * Prompt tokens prefilled per second: the time to first token grows by the
   * prompt's uncached tokens over this. 0 (the default): prefill is free and
   * the prefix cache changes nothing.
   */
  readonly prefillTokensPerSecond: number;
  /** Tokens of prompt prefixes kept for reuse (least recently used evicted); see prefix-cache.ts. */
  readonly prefixCacheTokens: number;
  /** Exit abruptly (status 70) once the N-th inference request has been answered; null: never. */
  readonly crashAfterRequests: number | null;
  /** Simulated model loading: /health answers 503 `loading` this long after listening. */
  readonly startupDelayMs: number;
  /** On SIGTERM, how long in-flight requests may finish before connections are cut. */
  readonly shutdownGraceMs: number;
  readonly logLevel: string;
}

type ConfigKey = keyof FakeRuntimeConfig;

/** Each setting's command-line flag and environment variable. A flag wins over the variable. */
export const FAKE_RUNTIME_OPTIONS: Readonly<
  Record<ConfigKey, { readonly flag: string; readonly env: string }>
> = {
  host: { flag: 'host', env: 'LUNANEXA_FAKE_HOST' },
  port: { flag: 'port', env: 'LUNANEXA_FAKE_PORT' },
  model: { flag: 'model', env: 'LUNANEXA_FAKE_MODEL' },
  weights: { flag: 'weights', env: 'LUNANEXA_FAKE_WEIGHTS' },
  seed: { flag: 'seed', env: 'LUNANEXA_FAKE_SEED' },
  ttftMs: { flag: 'ttft-ms', env: 'LUNANEXA_FAKE_TTFT_MS' },
  tokensPerSecond: { flag: 'tokens-per-second', env: 'LUNANEXA_FAKE_TOKENS_PER_SECOND' },
  maxTokens: { flag: 'max-tokens', env: 'LUNANEXA_FAKE_MAX_TOKENS' },
  errorRate: { flag: 'error-rate', env: 'LUNANEXA_FAKE_ERROR_RATE' },
  maxNumSeqs: { flag: 'max-num-seqs', env: 'LUNANEXA_FAKE_MAX_NUM_SEQS' },
  kvCacheTokens: { flag: 'kv-cache-tokens', env: 'LUNANEXA_FAKE_KV_CACHE_TOKENS' },
  prefillTokensPerSecond: {
    flag: 'prefill-tokens-per-second',
    env: 'LUNANEXA_FAKE_PREFILL_TOKENS_PER_SECOND',
  },
  prefixCacheTokens: { flag: 'prefix-cache-tokens', env: 'LUNANEXA_FAKE_PREFIX_CACHE_TOKENS' },
  crashAfterRequests: { flag: 'crash-after-requests', env: 'LUNANEXA_FAKE_CRASH_AFTER_REQUESTS' },
  startupDelayMs: { flag: 'startup-delay-ms', env: 'LUNANEXA_FAKE_STARTUP_DELAY_MS' },
  shutdownGraceMs: { flag: 'shutdown-grace-ms', env: 'LUNANEXA_FAKE_SHUTDOWN_GRACE_MS' },
  logLevel: { flag: 'log-level', env: 'LUNANEXA_LOG_LEVEL' },
};

/** An integer written in decimal digits: `1e3`, `0x10`, ` 5` and `5.0` are refused, unlike Number(). */
function integer(min: number, max: number) {
  const message = `must be an integer between ${min} and ${max}`;
  return z
    .string()
    .regex(/^-?[0-9]{1,16}$/, message)
    .transform(Number)
    .refine((value) => Number.isSafeInteger(value) && value >= min && value <= max, message);
}

function positiveDecimal(max: number) {
  const message = `must be a number greater than 0 and at most ${max}`;
  return z
    .string()
    .regex(/^[0-9]{1,9}(\.[0-9]{1,9})?$/, message)
    .transform(Number)
    .refine((value) => value > 0 && value <= max, message);
}

const MAX_SEED = Number.MAX_SAFE_INTEGER;

const FakeRuntimeConfigSchema = z.object({
  host: z
    .string()
    .regex(/^[A-Za-z0-9.:-]{1,253}$/, 'must be an IP address or a host name')
    .default('127.0.0.1'),
  port: integer(0, 65535).default(8000),
  model: OpenAiModelNameSchema.default('fake-model'),
  weights: z.string().min(1).nullable().default(null),
  seed: integer(-MAX_SEED, MAX_SEED).default(0),
  ttftMs: integer(0, 600_000).default(50),
  tokensPerSecond: positiveDecimal(1_000_000).default(50),
  maxTokens: integer(1, 1_048_576).default(128),
  errorRate: z
    .string()
    .regex(/^(0(\.[0-9]{1,6})?|1(\.0{1,6})?)$/, 'must be a fraction from 0 to 1 with at most 6 decimals')
    .transform(Number)
    .default(0),
  // vLLM's default batch limit; the tests and benches never have this many requests on one runtime.
  maxNumSeqs: integer(1, 65_536).default(256),
  kvCacheTokens: integer(1, 1_000_000_000).default(131_072),
  prefillTokensPerSecond: integer(0, 1_000_000_000).default(0),
  prefixCacheTokens: integer(0, 1_000_000_000).default(65_536),
  crashAfterRequests: integer(1, 1_000_000_000).nullable().default(null),
  startupDelayMs: integer(0, 3_600_000).default(0),
  shutdownGraceMs: integer(0, 600_000).default(5000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const FAKE_RUNTIME_USAGE = `usage: ${FAKE_RUNTIME_PROCESS_NAME} [options]

A deterministic OpenAI-compatible server for tests and demos. Every option can
also be set by its environment variable; the flag wins.

${(Object.keys(FAKE_RUNTIME_OPTIONS) as ConfigKey[])
  .map((key) => `  --${FAKE_RUNTIME_OPTIONS[key].flag.padEnd(22)} ${FAKE_RUNTIME_OPTIONS[key].env}`)
  .join('\n')}
  --help                   print this help
`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FakeRuntimeInvocation =
  { readonly kind: 'help' } | { readonly kind: 'run'; readonly config: FakeRuntimeConfig };

/**
 * Reads flags and environment. An unknown flag or a positional argument is a
 * UsageError (exit 64); a bad value is a ConfigError naming the flag and its
 * variable (exit 78), every bad one at once.
 */
export function parseFakeRuntimeArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): FakeRuntimeInvocation {
  const keys = Object.keys(FAKE_RUNTIME_OPTIONS) as ConfigKey[];
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(
          keys.map((key) => [FAKE_RUNTIME_OPTIONS[key].flag, { type: 'string' as const }]),
        ),
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values['help'] === true) return { kind: 'help' };

  const raw: Record<string, string | undefined> = {};
  for (const key of keys) {
    const { flag, env: variable } = FAKE_RUNTIME_OPTIONS[key];
    const fromFlag = values[flag];
    const fromEnv = env[variable];
    raw[key] = typeof fromFlag === 'string' ? fromFlag : fromEnv === '' ? undefined : fromEnv;
  }
  const result = FakeRuntimeConfigSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(
      FAKE_RUNTIME_PROCESS_NAME,
      result.error.issues.map((issue) => ({
        variable: nameOf(String(issue.path[0] ?? '')),
        message: issue.message,
      })),
    );
  }
  const config = result.data;
  if (config.weights !== null && !readable(config.weights)) {
    throw new ConfigError(FAKE_RUNTIME_PROCESS_NAME, [
      { variable: nameOf('weights'), message: `${config.weights} does not exist or is not readable` },
    ]);
  }
  return { kind: 'run', config };
}

function nameOf(key: string): string {
  const option = FAKE_RUNTIME_OPTIONS[key as ConfigKey] as { flag: string; env: string } | undefined;
  return option === undefined ? key || '(root)' : `--${option.flag} / ${option.env}`;
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
