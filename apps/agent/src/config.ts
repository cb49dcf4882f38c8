import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { NameSchema, NodeLabelsSchema } from '@lunanexa/contracts';
import { ConfigError, configFields } from '@lunanexa/observability';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SIMULATED_PROFILES } from './inventory/simulated';

export const AGENT_PROCESS_NAME = 'lunanexa-agent';
/** Environment variable naming the config file when `--config` is not given. */
export const AGENT_CONFIG_ENV = 'LUNANEXA_AGENT_CONFIG';

/** Seconds between inventory refreshes: frequent enough for free-memory figures, rare enough to leave the driver alone. */
const refreshIntervalSeconds = z.int().min(5, 'must be at least 5 seconds').max(3600).default(30);

const InventoryConfigSchema = z.discriminatedUnion('source', [
  z.object({ source: z.literal('nvidia-smi'), refreshIntervalSeconds }).strict(),
  z
    .object({
      source: z.literal('simulated'),
      profile: z.enum(SIMULATED_PROFILES).default('dgx-spark'),
      refreshIntervalSeconds,
    })
    .strict(),
]);

/**
 * The agent's configuration file. Unknown keys are errors, not ignored, so a
 * typo such as `nodename:` fails at boot instead of silently using a default.
 */
export const AgentConfigSchema = z
  .object({
    nodeName: NameSchema,
    listen: z
      .object({
        host: z.string().min(1, 'must not be empty'),
        port: z
          .int('must be an integer port number')
          .min(1, 'must be between 1 and 65535')
          .max(65535, 'must be between 1 and 65535'),
      })
      .strict(),
    dataDir: z.string().min(1, 'must not be empty'),
    // Enrollment (next issue) uses it; validated now so a bad value fails before then.
    controllerUrl: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL' })
      .optional(),
    inventory: InventoryConfigSchema,
    labels: NodeLabelsSchema.default({}),
    logLevel: configFields.logLevel(),
  })
  .strict();

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type InventoryConfig = AgentConfig['inventory'];

function configError(file: string, problems: readonly { variable: string; message: string }[]): ConfigError {
  return new ConfigError(`${AGENT_PROCESS_NAME}: config file ${file}`, problems);
}

/**
 * Validates an already-parsed document. `dataDir` is resolved against the
 * config file's directory so the same file means the same thing whatever
 * directory the agent is started from.
 */
export function parseAgentConfig(document: unknown, file: string): AgentConfig {
  const result = AgentConfigSchema.safeParse(document);
  if (!result.success) {
    throw configError(
      file,
      result.error.issues.flatMap((issue) => {
        const path = issue.path.map(String);
        // zod reports unknown keys once for the object; name each key so every problem names a field.
        if (issue.code === 'unrecognized_keys') {
          return issue.keys.map((key) => ({
            variable: [...path, key].join('.'),
            message: 'is not a known field',
          }));
        }
        // A bad label key is reported by the record as "Invalid key"; the key schema's own message says what is allowed.
        if (issue.code === 'invalid_key') {
          const reason = issue.issues.map((inner) => inner.message).join('; ');
          return [{ variable: path.join('.'), message: `key ${reason}` }];
        }
        return [{ variable: path.join('.') || '(root)', message: issue.message }];
      }),
    );
  }
  const config = result.data;
  const dataDir = isAbsolute(config.dataDir) ? config.dataDir : resolve(dirname(file), config.dataDir);
  return { ...config, dataDir };
}

/** Reads and validates the config file; YAML unless the name ends in `.json`. */
export function loadAgentConfigFile(file: string): AgentConfig {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    throw configError(path, [{ variable: '(file)', message: `cannot be read: ${reason}` }]);
  }
  let document: unknown;
  try {
    document = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    throw configError(path, [
      {
        variable: '(file)',
        message: `is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${reason}`,
      },
    ]);
  }
  return parseAgentConfig(document, path);
}
