import {
  AGENT_HTTP_PATHS,
  ControllerKeysResponseSchema,
  ed25519KeyId,
  isPublishedTestKey,
  MAX_TRUSTED_CONTROLLER_KEYS,
  openSshPublicKey,
  parseEd25519PublicKey,
  sshFingerprint,
} from '@lunanexa/agent-protocol';
import { SshFingerprintSchema } from '@lunanexa/contracts';
import type { AgentConfig } from '../config';
import { controllerEndpoint } from '../controller-http';
import { controllerTrustFile, loadControllerTrustState, saveControllerTrustState } from './state';

/** Nothing was pinned: the key was not found, or it is not what it says. */
export const EXIT_NOT_PINNED = 2;
/** The controller could not be asked (unreachable, an error answer). */
export const EXIT_CONTROLLER_UNAVAILABLE = 1;

export interface PinOutcome {
  readonly exitCode: 0 | typeof EXIT_CONTROLLER_UNAVAILABLE | typeof EXIT_NOT_PINNED;
  /** What to print, one line each (stdout on success, stderr otherwise). */
  readonly lines: readonly string[];
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** The api's unauthenticated list of the controller keys in use (ControllerKeysResponseSchema). */
export const CONTROLLER_KEYS_PATH = AGENT_HTTP_PATHS.controllerKeys;

/**
 * `lunanexa-agent trust-controller-key`: adds the controller key with SSH
 * fingerprint `fingerprint` to `<dataDir>/controller-trust.json` (and takes
 * it off the retired list), so a node that missed a controller key rotation
 * trusts the current key again after a restart — no re-enrollment. The key
 * comes from `<controllerUrl>/agent/v1/controller-keys`, or from `publicKey`
 * (offline). Either way it is trusted only when its own fingerprint is
 * `fingerprint` (the operator compared that one with `lunanexa
 * controller-keys`) and its key id is the one its public key derives. The
 * agent should be stopped: a running agent does not re-read the file.
 */
export async function pinControllerKey(args: {
  readonly config: AgentConfig;
  readonly fingerprint: string;
  readonly publicKey?: string;
  readonly now?: Date;
  readonly timeoutMs?: number;
}): Promise<PinOutcome> {
  const { config, fingerprint } = args;
  if (!SshFingerprintSchema.safeParse(fingerprint).success) {
    return refused(
      `--fingerprint ${fingerprint} is not an OpenSSH SHA256 fingerprint (SHA256:<43 base64 characters>)`,
    );
  }
  let candidate: { readonly keyId: string; readonly publicKey: string; readonly from: string };
  if (args.publicKey !== undefined) {
    candidate = { keyId: '', publicKey: args.publicKey.trim(), from: '--public-key' };
  } else {
    if (config.controllerUrl === undefined) {
      return refused(
        'the config has no controllerUrl to fetch the controller keys from; pass --public-key instead',
      );
    }
    const url = controllerEndpoint(config.controllerUrl, CONTROLLER_KEYS_PATH);
    let body: unknown;
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(args.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
      if (!response.ok) {
        return {
          exitCode: EXIT_CONTROLLER_UNAVAILABLE,
          lines: [`GET ${url} answered ${response.status}; nothing changed`],
        };
      }
      body = await response.json();
    } catch (error: unknown) {
      return {
        exitCode: EXIT_CONTROLLER_UNAVAILABLE,
        lines: [
          `GET ${url} failed (${error instanceof Error ? error.message : String(error)}); nothing changed.`,
          'Without the controller, pass the key itself: --public-key "ssh-ed25519 AAAA…"',
        ],
      };
    }
    const parsed = ControllerKeysResponseSchema.safeParse(body);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      return refused(
        `GET ${url} did not answer a controller key list (${first === undefined ? 'unknown problem' : `${first.path.join('.') || '(root)'}: ${first.message}`})`,
      );
    }
    const found = parsed.data.keys.find((key) => key.sshFingerprint === fingerprint);
    if (found === undefined) {
      const offered = parsed.data.keys.map((key) => `${key.sshFingerprint} (${key.state})`);
      return refused(
        `the controller has no key with fingerprint ${fingerprint}; it offers: ${offered.length === 0 ? 'none' : offered.join(', ')}`,
      );
    }
    candidate = { keyId: found.keyId, publicKey: found.publicKey, from: url };
  }

  let keyId: string;
  let publicLine: string;
  try {
    const key = parseEd25519PublicKey(candidate.publicKey);
    if (isPublishedTestKey(key)) return refused('that key is a published test key anyone can sign with');
    // The answer's own fingerprint field is not what counts: the key itself must have this fingerprint.
    const actual = sshFingerprint(key);
    if (actual !== fingerprint) {
      return refused(`the key from ${candidate.from} has fingerprint ${actual}, not ${fingerprint}`);
    }
    keyId = ed25519KeyId(key);
    publicLine = openSshPublicKey(key);
  } catch (error: unknown) {
    return refused(
      `the key from ${candidate.from} is not usable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (candidate.keyId !== '' && candidate.keyId !== keyId) {
    return refused(`the controller names the key ${candidate.keyId} but its public key has key id ${keyId}`);
  }

  const state = await loadControllerTrustState(config.dataDir);
  const wasRetired = state.retiredKeyIds.includes(keyId);
  const held = state.announced.some((entry) => entry.keyId === keyId);
  const file = controllerTrustFile(config.dataDir);
  if (held && !wasRetired) {
    return {
      exitCode: 0,
      lines: [`controller key ${keyId} (${fingerprint}) is already trusted (${file}); nothing changed`],
    };
  }
  if (!held && state.announced.length >= MAX_TRUSTED_CONTROLLER_KEYS - 1) {
    return refused(
      `${file} already holds ${state.announced.length} announced keys (at most ${MAX_TRUSTED_CONTROLLER_KEYS} trusted keys in all)`,
    );
  }
  await saveControllerTrustState(config.dataDir, {
    format: state.format,
    announced: held
      ? state.announced
      : [
          ...state.announced,
          {
            keyId,
            publicKey: publicLine,
            rotationId: null,
            addedAt: (args.now ?? new Date()).toISOString(),
          },
        ],
    retiredKeyIds: state.retiredKeyIds.filter((id) => id !== keyId),
  });
  return {
    exitCode: 0,
    lines: [
      `trusted controller key ${keyId} (${fingerprint}) from ${candidate.from}` +
        (wasRetired ? ', and took it off the retired list' : ''),
      `wrote ${file}`,
      'restart the agent to use it (a running agent does not re-read the file); re-enrolling is not needed',
    ],
  };
}

function refused(message: string): PinOutcome {
  return { exitCode: EXIT_NOT_PINNED, lines: [`${message}; nothing changed`] };
}
