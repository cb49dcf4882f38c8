import { parseArgs } from 'node:util';
import { ConfigError } from '@lunanexa/observability';
import { AGENT_CONFIG_ENV, AGENT_PROCESS_NAME } from './config';

/** sysexits EX_USAGE: the command line itself is wrong. */
export const EXIT_USAGE = 64;

export const AGENT_USAGE = `usage: ${AGENT_PROCESS_NAME} --config <file>

  --config <file>  agent configuration (YAML, or JSON when named *.json);
                   defaults to $${AGENT_CONFIG_ENV}
  --help           print this help
`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type AgentInvocation =
  { readonly kind: 'help' } | { readonly kind: 'run'; readonly configFile: string };

/**
 * Unknown options are usage errors (64); a missing config file name is a
 * configuration error (78) naming both places it can come from.
 */
export function parseAgentArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): AgentInvocation {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help === true) return { kind: 'help' };
  const configFile = parsed.values.config ?? (env[AGENT_CONFIG_ENV] || undefined);
  if (configFile === undefined || configFile === '') {
    throw new ConfigError(AGENT_PROCESS_NAME, [
      {
        variable: `--config / ${AGENT_CONFIG_ENV}`,
        message: 'is required: the path of the agent configuration file',
      },
    ]);
  }
  return { kind: 'run', configFile };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: { config: { type: 'string' }, help: { type: 'boolean' } },
    strict: true,
    allowPositionals: false,
  });
}
