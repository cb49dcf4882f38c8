import type { KeyObject } from 'node:crypto';
import { parseEd25519PublicKey, type ControllerKeyNotice, type PublicKeySet } from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';

/** What the controller knows about a node's SSH endpoint and keys, all of it pinned at enrollment. */
export interface SouthboundNode {
  /** The node id every envelope to and from the node carries. */
  readonly id: string;
  /** Host name or IP address of the node's SSH server. */
  readonly address: string;
  readonly sshPort: number;
  /** `SHA256:…` of the host key recorded at enrollment; any other host key is refused. */
  readonly hostKeyFingerprint: string;
  /** Node key ids trusted to sign replies: the current key, plus the next one while a rotation is under way. */
  readonly keyIds: readonly string[];
  /** `ssh-ed25519 …` lines, `publicKeys[i]` being the key named `keyIds[i]`. */
  readonly publicKeys: readonly string[];
  /** The protocol its agent reported (agentProtocolOf): what it may be sent (the key ring notice from 2 on). */
  readonly agentProtocol: number;
}

/** The controller key: it authenticates the SSH connection and signs every envelope. */
export interface ControllerIdentity {
  readonly privateKey: KeyObject;
  /** `ed25519KeyId` of the public half; agents look the signing key up by it. */
  readonly keyId: string;
}

/**
 * The controller's key ring as the SSH client uses it: the keys to offer a
 * node in order (the current key; during a rotation's overlap also the
 * previous one, for a node that has not added the current key yet), and the
 * ring notice an envelope signed by each carries.
 */
export interface ControllerSigner {
  candidates(): readonly ControllerIdentity[];
  notice(identity: ControllerIdentity): ControllerKeyNotice | undefined;
}

/** One fixed key and no ring (tests, tools): offered alone, with no notice. */
export function fixedControllerSigner(identity: ControllerIdentity): ControllerSigner {
  return { candidates: () => [identity], notice: () => undefined };
}

/**
 * The node's reply-signing keys by id. A node record whose two lists do not
 * pair up is refused before anything is sent: guessing which key goes with
 * which id could make a forged reply verify.
 */
export function trustedNodeKeys(node: SouthboundNode): PublicKeySet {
  if (node.keyIds.length !== node.publicKeys.length) {
    throw new LunaNexaError(
      ErrorCode.VALIDATION_FAILED,
      `node ${node.id} has ${node.keyIds.length} key ids but ${node.publicKeys.length} public keys`,
      [{ path: 'publicKeys', message: 'must pair one to one with keyIds' }],
    );
  }
  if (node.keyIds.length === 0) {
    throw new LunaNexaError(
      ErrorCode.VALIDATION_FAILED,
      `node ${node.id} has no trusted key; its replies could not be verified`,
      [{ path: 'keyIds', message: 'must name at least one key' }],
    );
  }
  const keys = new Map<string, KeyObject>();
  node.keyIds.forEach((keyId, index) => {
    const line = node.publicKeys[index] ?? '';
    let key: KeyObject;
    try {
      key = parseEd25519PublicKey(line);
    } catch (error: unknown) {
      if (!(error instanceof LunaNexaError)) throw error;
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `node ${node.id}: ${error.message}`, [
        { path: `publicKeys.${index}`, message: error.message },
      ]);
    }
    keys.set(keyId, key);
  });
  return keys;
}
