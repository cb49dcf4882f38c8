import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BootstrapTokenSchema } from '@lunanexa/contracts';
import { ConfigError } from '@lunanexa/observability';
import { AGENT_CONFIG_ENV, AGENT_PROCESS_NAME } from './config';

/** sysexits EX_USAGE: the command line itself is wrong. */
export const EXIT_USAGE = 64;

/** Environment variable carrying a bootstrap token when neither flag gives one. */
export const BOOTSTRAP_TOKEN_ENV = 'LUNANEXA_BOOTSTRAP_TOKEN';

export const AGENT_USAGE = `usage: ${AGENT_PROCESS_NAME} --config <file> [--bootstrap-token <token> | --bootstrap-token-file <path>] [--stop-runtimes-on-exit]

  --config <file>                agent configuration (YAML, or JSON when named *.json);
                                 defaults to $${AGENT_CONFIG_ENV}
  --bootstrap-token <token>      enroll with this single-use token (lnxb_…) on first start;
                                 defaults to $${BOOTSTRAP_TOKEN_ENV}. Ignored once enrolled.
  --bootstrap-token-file <path>  read the token from a file instead (keeps it out of ps)
  --stop-runtimes-on-exit        on SIGTERM/SIGINT stop this agent's runtimes too (simulated
                                 nodes of a local stack); by default they keep serving and
                                 the next start adopts them
  --help                         print this help

       ${AGENT_PROCESS_NAME} trust-controller-key --config <file> --fingerprint SHA256:… [--public-key 'ssh-ed25519 …']

  For a node that missed a controller key rotation (its /health shows controllerTrust
  untrusted-signer). Trusts the controller key with this SSH fingerprint — fetched from
  <controllerUrl>/agent/v1/controller-keys, or given with --public-key (offline) — by adding it
  to <dataDir>/controller-trust.json. Compare the fingerprint with \`lunanexa controller-keys\`
  first. Run it while the agent is stopped, then start the agent;
  re-enrolling is not needed. Exit codes: 0 trusted (or already), 2 no such key or it is not
  what it says (nothing written), 1 the controller could not be asked.
`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const TRUST_CONTROLLER_KEY_COMMAND = 'trust-controller-key';

export type AgentInvocation =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'trust-controller-key';
      readonly configFile: string;
      /** `SHA256:…` the operator compared with the controller's. */
      readonly fingerprint: string;
      /** The key itself (offline); null to fetch it from the controller. */
      readonly publicKey: string | null;
    }
  | {
      readonly kind: 'run';
      readonly configFile: string;
      /** Null when none was given; the agent then needs an enrollment on disk or static controller keys. */
      readonly bootstrapToken: string | null;
      /** Stop the runtimes when the agent stops, instead of leaving them for the next start to adopt. */
      readonly stopRuntimesOnExit: boolean;
    };

/**
 * Unknown options are usage errors (64); a missing config file name or a
 * malformed/unreadable bootstrap token is a configuration error (78) naming
 * where it came from. The token itself is never echoed.
 */
export function parseAgentArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  readTokenFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): AgentInvocation {
  if (argv[0] === TRUST_CONTROLLER_KEY_COMMAND) return parseTrustControllerKey(argv.slice(1), env);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help === true) return { kind: 'help' };
  return {
    kind: 'run',
    configFile: configFileOf(parsed.values.config, env),
    bootstrapToken: bootstrapToken(parsed.values, env, readTokenFile),
    stopRuntimesOnExit: parsed.values['stop-runtimes-on-exit'] === true,
  };
}

function configFileOf(flag: string | undefined, env: Record<string, string | undefined>): string {
  const configFile = flag ?? (env[AGENT_CONFIG_ENV] || undefined);
  if (configFile === undefined || configFile === '') {
    throw new ConfigError(AGENT_PROCESS_NAME, [
      {
        variable: `--config / ${AGENT_CONFIG_ENV}`,
        message: 'is required: the path of the agent configuration file',
      },
    ]);
  }
  return configFile;
}

function parseTrustControllerKey(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): AgentInvocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        fingerprint: { type: 'string' },
        'public-key': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help === true) return { kind: 'help' };
  const fingerprint = parsed.values.fingerprint;
  if (fingerprint === undefined || fingerprint === '') {
    throw new UsageError(
      `${TRUST_CONTROLLER_KEY_COMMAND} needs --fingerprint SHA256:… (compare it with \`lunanexa controller-keys\`)`,
    );
  }
  return {
    kind: 'trust-controller-key',
    configFile: configFileOf(parsed.values.config, env),
    fingerprint,
    publicKey: parsed.values['public-key'] ?? null,
  };
}

function bootstrapToken(
  values: ReturnType<typeof parse>['values'],
  env: Record<string, string | undefined>,
  readTokenFile: (path: string) => string,
): string | null {
  const flag = values['bootstrap-token'];
  const file = values['bootstrap-token-file'];
  if (flag !== undefined && file !== undefined) {
    throw new UsageError('give --bootstrap-token or --bootstrap-token-file, not both');
  }
  let source: string;
  let token: string;
  if (flag !== undefined) {
    source = '--bootstrap-token';
    token = flag;
  } else if (file !== undefined) {
    source = '--bootstrap-token-file';
    try {
      // A trailing newline is what `echo … > file` and most editors leave.
      token = readTokenFile(file).trim();
    } catch (error: unknown) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : '');
      throw new ConfigError(AGENT_PROCESS_NAME, [
        { variable: source, message: `${file} cannot be read (${reason})` },
      ]);
    }
  } else {
    const fromEnv = env[BOOTSTRAP_TOKEN_ENV];
    if (fromEnv === undefined || fromEnv === '') return null;
    source = BOOTSTRAP_TOKEN_ENV;
    token = fromEnv;
  }
  if (!BootstrapTokenSchema.safeParse(token).success) {
    // The value is a secret (or a mangled one): say what is wrong, never what it is.
    throw new ConfigError(AGENT_PROCESS_NAME, [
      { variable: source, message: 'must be a bootstrap token: lnxb_ followed by 43 base64url characters' },
    ]);
  }
  return token;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string' },
      'bootstrap-token': { type: 'string' },
      'bootstrap-token-file': { type: 'string' },
      'stop-runtimes-on-exit': { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
}
