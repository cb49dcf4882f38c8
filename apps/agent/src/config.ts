import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import {
  isPublishedTestKey,
  KeyIdSchema,
  parseEd25519PublicKey,
  sshFingerprint,
} from '@lunanexa/agent-protocol';
import {
  LunaNexaError,
  NameSchema,
  NodeAddressSchema,
  NodeLabelsSchema,
  SshFingerprintSchema,
} from '@lunanexa/contracts';
import {
  artifactStoreConfigFromEnv,
  ArtifactStoreConfigError,
  type ArtifactStoreConfig,
} from '@lunanexa/artifact-store';
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

const portSchema = z
  .int('must be an integer port number')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

/** One controller key: it authenticates the controller's SSH connection and verifies what it signs. */
const AuthorizedControllerKeySchema = z
  .object({
    keyId: KeyIdSchema,
    /** Ed25519 only: an OpenSSH `ssh-ed25519 AAAA…` line or a PEM `PUBLIC KEY` block. */
    publicKey: z.string().superRefine((text, ctx) => {
      try {
        const key = parseEd25519PublicKey(text);
        if (isPublishedTestKey(key)) {
          ctx.addIssue({
            code: 'custom',
            message: `is a published TEST-ONLY key (${sshFingerprint(key)}); anyone can sign with it`,
          });
        }
      } catch (error: unknown) {
        ctx.addIssue({
          code: 'custom',
          message: error instanceof LunaNexaError ? error.message : String(error),
        });
      }
    }),
  })
  .strict();

/**
 * The southbound SSH server (DESIGN.md "Southbound channel"). Without it the
 * agent opens no SSH port and cannot enroll (the controller reaches a node
 * over SSH). `authorizedControllerKeys` may be empty: an enrolled agent
 * trusts the controller key it enrolled with in addition to any listed here.
 */
const SshConfigSchema = z
  .object({
    host: z.string().min(1, 'must not be empty'),
    port: portSchema,
    /** The SSH host key; generated (Ed25519, mode 0600) on first start. Default `<dataDir>/ssh_host_ed25519_key`. */
    hostKeyFile: z.string().min(1, 'must not be empty').optional(),
    authorizedControllerKeys: z
      .array(AuthorizedControllerKeySchema)
      .max(16, 'must list at most 16 keys')
      .default([]),
  })
  .strict()
  .superRefine((ssh, ctx) => {
    const seen = new Map<string, number>();
    ssh.authorizedControllerKeys.forEach((entry, index) => {
      const first = seen.get(entry.keyId);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['authorizedControllerKeys', index, 'keyId'],
          message: `repeats the keyId of authorizedControllerKeys.${first}`,
        });
      } else seen.set(entry.keyId, index);
    });
  });

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
        port: portSchema,
      })
      .strict(),
    dataDir: z.string().min(1, 'must not be empty'),
    /** The API the agent enrolls with and sends heartbeats to. */
    controllerUrl: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL' })
      .optional(),
    /**
     * `SHA256:…` of the controller's public key, as the console/CLI shows it
     * next to the bootstrap token. Enrollment trusts the key the controller
     * answers with only if it has this fingerprint, so a bootstrap token sent
     * to the wrong server cannot hand the node to it. Required to enroll.
     */
    controllerKeyFingerprint: SshFingerprintSchema.optional(),
    /**
     * The address the controller's SSH client and the gateway use to reach this
     * node and its runtimes; runtimes bind it. Default: `listen.host`.
     */
    advertiseAddress: NodeAddressSchema.optional(),
    /** Overrides the heartbeat interval enrollment hands out (seconds). */
    heartbeatIntervalSeconds: z.int().min(1, 'must be at least 1 second').max(300).optional(),
    /**
     * How a serving replica told to Stop (a drain moving it, a scale-down) finishes first: wait
     * `deregistrationDelayMs` for the gateways to drop it from their routes, then until its runtime reports
     * nothing running or waiting, at most `timeoutSeconds` in all, before SIGTERM.
     */
    replicaDrain: z
      .object({
        deregistrationDelayMs: z.int().min(0).max(60_000).default(2_000),
        timeoutSeconds: z.int().min(0).max(3_600).default(30),
      })
      .strict()
      .optional(),
    /**
     * How often the agent sweeps for runtimes of its own (tagged processes,
     * labelled containers) that no assignment owns, adopting or stopping them
     * (seconds; default 30; 0 turns the periodic sweep off — the one at start
     * always runs).
     */
    orphanSweepSeconds: z.int().min(0).max(3600).optional(),
    inventory: InventoryConfigSchema,
    ssh: SshConfigSchema.optional(),
    labels: NodeLabelsSchema.default({}),
    logLevel: configFields.logLevel(),
  })
  .strict();

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type InventoryConfig = AgentConfig['inventory'];
export type SshConfig = NonNullable<AgentConfig['ssh']>;

/** Where the controller and the gateway reach this node: `advertiseAddress`, else `listen.host`. */
export function advertisedAddress(config: AgentConfig): string {
  return config.advertiseAddress ?? config.listen.host;
}

/** Where the SSH host key lives when `ssh.hostKeyFile` is not set. */
export const DEFAULT_HOST_KEY_FILE = 'ssh_host_ed25519_key';

function configError(file: string, problems: readonly { variable: string; message: string }[]): ConfigError {
  return new ConfigError(`${AGENT_PROCESS_NAME}: config file ${file}`, problems);
}

/**
 * Validates an already-parsed document. `dataDir` and `ssh.hostKeyFile` are
 * resolved against the config file's directory so the same file means the
 * same thing whatever directory the agent is started from; the host key
 * defaults to `<dataDir>/ssh_host_ed25519_key`.
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
  const relativeToFile = (path: string): string => (isAbsolute(path) ? path : resolve(dirname(file), path));
  const dataDir = relativeToFile(config.dataDir);
  if (config.ssh === undefined) return { ...config, dataDir };
  const hostKeyFile =
    config.ssh.hostKeyFile === undefined
      ? join(dataDir, DEFAULT_HOST_KEY_FILE)
      : relativeToFile(config.ssh.hostKeyFile);
  return { ...config, dataDir, ssh: { ...config.ssh, hostKeyFile } };
}

/**
 * Where the agent pulls s3:// and oci:// model artifacts from: the
 * LUNANEXA_S3_*, LUNANEXA_OCI_* and LUNANEXA_ARTIFACT_* environment variables
 * (docs/OPERATIONS.md), kept out of the config file because they carry
 * secrets. Invalid values fail the start like a bad config file (exit 78).
 */
export function loadAgentArtifactStoreConfig(
  env: Readonly<Record<string, string | undefined>>,
): ArtifactStoreConfig {
  try {
    return artifactStoreConfigFromEnv(env);
  } catch (error: unknown) {
    if (error instanceof ArtifactStoreConfigError) {
      throw new ConfigError(`${AGENT_PROCESS_NAME}: environment`, error.problems);
    }
    throw error;
  }
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
