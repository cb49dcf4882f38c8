import { ErrorCode, LunaNexaError, type ControllerKeyPublicParts } from '@lunanexa/contracts';
import { nodesTrustingOnlyPreviousKey, signingKey } from '@lunanexa/domain';
import {
  activateControllerKey,
  announceControllerKey,
  listControllerKeys,
  listNodes,
  retirePreviousControllerKey,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';

/** What the rotation's switch needs of the worker's own ring: a fresh view, and whether it holds a key. */
export interface WorkerControllerKeyRing {
  reload(): Promise<void>;
  holds(fingerprint: string): boolean;
}

export interface ControllerKeyActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
  readonly ring?: WorkerControllerKeyRing;
}

export interface ControllerKeyStepContext {
  readonly actor: string;
  readonly correlationId: string;
  readonly requestId: string;
  readonly rotationId: string;
}

/** The steps of RotateControllerKey; each is idempotent (its receipt is written once per workflow). */
export function createControllerKeyActivities({ db, clock, ring }: ControllerKeyActivityPorts) {
  return {
    /** Records the next key; returns the key that signs until the switch. */
    async announceControllerKey(
      input: ControllerKeyStepContext & {
        readonly nextKey: ControllerKeyPublicParts;
        readonly announceSeconds: number;
        readonly overlapSeconds: number;
        readonly reason: string;
      },
    ): Promise<{ currentKeyId: string; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const now = clock.now();
          const before = await listControllerKeys(manager);
          const current = signingKey(before);
          const announced = before.find((key) => key.state === 'next');
          if (announced !== undefined && announced.keyId !== input.nextKey.keyId) {
            throw new LunaNexaError(
              ErrorCode.CONFLICT,
              `controller key ${announced.keyId} is already announced`,
            );
          }
          if (current.keyId === input.nextKey.keyId) {
            throw new LunaNexaError(ErrorCode.CONFLICT, 'the announced key already signs');
          }
          await announceControllerKey(manager, input.nextKey, input.rotationId, now);
          const receipt = await receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'controller-key.announced',
            step: 'announce',
            evidence: {
              rotationId: input.rotationId,
              currentKeyId: current.keyId,
              nextKeyId: input.nextKey.keyId,
              nextSshFingerprint: input.nextKey.sshFingerprint,
              announceSeconds: input.announceSeconds,
              overlapSeconds: input.overlapSeconds,
              reason: input.reason,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { currentKeyId: current.keyId, receipt };
        }),
      );
    },

    /**
     * The switch. Waits (retryably) until this worker holds the new private
     * key: a multi-host install copies the ring file to every controller host
     * during the announce window.
     */
    async activateControllerKey(
      input: ControllerKeyStepContext & {
        readonly nextKey: ControllerKeyPublicParts;
        readonly overlapSeconds: number;
      },
    ): Promise<{ switchedAt: string; acceptUntil: string; receipt: Receipt }> {
      return typed(async () => {
        if (ring !== undefined) {
          await ring.reload();
          if (!ring.holds(input.nextKey.fingerprint)) {
            throw new LunaNexaError(
              ErrorCode.DEPENDENCY_UNAVAILABLE,
              `this worker does not hold the private key of ${input.nextKey.sshFingerprint} yet: copy ` +
                `ring/${input.nextKey.fingerprint}.pem beside the controller key file on this host (mode 0600)`,
            );
          }
        }
        return receiptedTransaction(db, async (manager) => {
          const now = clock.now();
          const acceptUntil = new Date(now.getTime() + input.overlapSeconds * 1000);
          await activateControllerKey(manager, input.rotationId, acceptUntil, now);
          const ringNow = await listControllerKeys(manager);
          const current = signingKey(ringNow);
          if (current.keyId !== input.nextKey.keyId) {
            throw new LunaNexaError(
              ErrorCode.CONFLICT,
              `the ring's current key is ${current.keyId}, not the rotation's`,
            );
          }
          const previous = ringNow.find((key) => key.state === 'previous');
          const receipt = await receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'controller-key.activated',
            step: 'activate',
            evidence: {
              rotationId: input.rotationId,
              keyId: current.keyId,
              sshFingerprint: current.sshFingerprint,
              previousKeyId: previous?.keyId ?? null,
              acceptPreviousUntil: (previous?.acceptUntil ?? acceptUntil).toISOString(),
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return {
            switchedAt: now.toISOString(),
            acceptUntil: (previous?.acceptUntil ?? acceptUntil).toISOString(),
            receipt,
          };
        });
      });
    },

    /** The end of the overlap: retires the previous key and names the nodes that had not added the new one. */
    async retireControllerKey(
      input: ControllerKeyStepContext & { readonly keyId: string; readonly previousKeyId: string },
    ): Promise<{ retiredAt: string; nodesNotTrustingNewKey: string[]; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const now = clock.now();
          const laggards = nodesTrustingOnlyPreviousKey(await listNodes(manager)).map((node) => node.name);
          await retirePreviousControllerKey(manager, now);
          const receipt = await receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'controller-key.retired',
            step: 'retire',
            evidence: {
              rotationId: input.rotationId,
              retiredKeyId: input.previousKeyId,
              keyId: input.keyId,
              nodesNotTrustingNewKey: laggards,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { retiredAt: now.toISOString(), nodesNotTrustingNewKey: laggards, receipt };
        }),
      );
    },
  };
}
