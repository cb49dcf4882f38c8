import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DataSource } from 'typeorm';
import {
  CONTROLLER_KEY_NOTICE_PROTOCOL,
  CONTROLLER_KEY_ROTATION_WORKFLOW_ID,
  ErrorCode,
  LunaNexaError,
  WORKFLOW_TYPES,
  type RotateControllerKeyWorkflowInput,
} from '@lunanexa/contracts';
import { HEARTBEATING_LIFECYCLES, planRotation, ringPhase } from '@lunanexa/domain';
import {
  announceControllerKey,
  createRingKey,
  describeControllerKey,
  listControllerKeys,
  listOutdatedAgentNodes,
  type ControllerKeyRow,
} from '@lunanexa/persistence';
import { AuditWriter, CONTROLLER_KEY, type ControllerKeyRing } from '../auth';
import type { Caller } from '../common/caller';
import { API_CONFIG, controllerKeyFile, type ApiConfig } from '../config';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import type {
  ControllerKeyRingView,
  ControllerKeyRotation,
  ControllerRingKey,
  RotateControllerKeyInput,
} from './controller-keys.types';

function view(row: ControllerKeyRow): ControllerRingKey {
  return {
    keyId: row.keyId,
    sshFingerprint: row.sshFingerprint,
    publicKey: row.publicKey,
    state: row.state,
    rotationId: row.rotationId,
    acceptUntil: row.acceptUntil?.toISOString() ?? null,
    stateChangedAt: row.stateChangedAt?.toISOString() ?? null,
  };
}

export function rotationWorkflowId(rotationId: string): string {
  return `${CONTROLLER_KEY_ROTATION_WORKFLOW_ID}/${rotationId}`;
}

/** The rotation a ring is in the middle of: the next key's, or during the overlap the current key's. */
function rotationInProgress(rows: readonly ControllerKeyRow[]): string | null {
  const phase = ringPhase(rows);
  if (phase === 'announced') return rows.find((row) => row.state === 'next')?.rotationId ?? null;
  if (phase === 'overlap') return rows.find((row) => row.state === 'current')?.rotationId ?? null;
  return null;
}

/**
 * The controller key ring (docs/OPERATIONS.md "Rotating the controller key"):
 * reading it, and starting RotateControllerKey. The new key is generated here,
 * into the ring directory beside the controller key file, and announced in
 * the same request, so two admins rotating at once get CONFLICT rather than
 * two next keys; the workflow does the rest on its timers.
 */
@Injectable()
export class ControllerKeysService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    @Inject(CONTROLLER_KEY) private readonly ring: ControllerKeyRing,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async ringView(): Promise<ControllerKeyRingView> {
    const rows = await listControllerKeys(this.db);
    const rotationId = rotationInProgress(rows);
    const workflowId = rotationId === null ? null : rotationWorkflowId(rotationId);
    return {
      phase: ringPhase(rows),
      keys: rows.map(view),
      rotationWorkflowId: workflowId,
      temporalUiUrl: workflowId === null ? null : this.workflows.link(workflowId),
    };
  }

  async rotate(input: RotateControllerKeyInput, caller: Caller): Promise<ControllerKeyRotation> {
    const context = { actor: caller.actor, action: 'controller-key.rotate', ids: caller.ids };
    const rows = await listControllerKeys(this.db);
    const resumable = ringPhase(rows) === 'announced' ? rows.find((row) => row.state === 'next') : undefined;
    if (resumable?.rotationId && !(await this.workflows.exists(rotationWorkflowId(resumable.rotationId)))) {
      // A next key with no workflow: the request that announced it could not start one. Start it now.
      return this.start(resumable, input, caller, rows);
    }
    const nodesWithoutNotice = await listOutdatedAgentNodes(
      this.db,
      CONTROLLER_KEY_NOTICE_PROTOCOL,
      HEARTBEATING_LIFECYCLES,
    );
    const plan = await this.audit.parsedOrRefused(
      context,
      { reason: String(input.reason ?? '').slice(0, 200) },
      () =>
        planRotation(rows, {
          announceSeconds: input.announceSeconds ?? null,
          overlapSeconds: input.overlapSeconds ?? null,
          reason: typeof input.reason === 'string' ? input.reason : '',
          nodesWithoutNotice,
        }),
    );
    const rotationId = randomUUID();
    const key = createRingKey(controllerKeyFile(this.config));
    const description = describeControllerKey(key.publicKey);
    try {
      await announceControllerKey(this.db, description, rotationId, new Date());
    } catch (error) {
      rmSync(key.file, { force: true });
      if ((error as { code?: string }).code === '23505') {
        const conflict = new LunaNexaError(
          ErrorCode.CONFLICT,
          'another controller key rotation started just now',
        );
        await this.audit.refusal(context, { errorCode: conflict.code });
        throw conflict;
      }
      throw error;
    }
    await this.ring.reload();
    const announced = (await listControllerKeys(this.db)).find((row) => row.keyId === description.keyId);
    if (announced === undefined) throw new LunaNexaError(ErrorCode.INTERNAL, 'the announced key is gone');
    return this.start(announced, { ...input, ...plan }, caller, rows);
  }

  private async start(
    next: ControllerKeyRow,
    input: RotateControllerKeyInput,
    caller: Caller,
    before: readonly ControllerKeyRow[],
  ): Promise<ControllerKeyRotation> {
    const rotationId = next.rotationId as string;
    const plan = planRotation(
      before.filter((row) => row.state !== 'next'),
      {
        announceSeconds: input.announceSeconds ?? null,
        overlapSeconds: input.overlapSeconds ?? null,
        reason: input.reason,
      },
    );
    const workflowId = rotationWorkflowId(rotationId);
    const workflowInput: RotateControllerKeyWorkflowInput = {
      rotationId,
      nextKey: {
        fingerprint: next.fingerprint,
        publicKeyPem: next.publicKeyPem,
        keyId: next.keyId,
        sshFingerprint: next.sshFingerprint,
        publicKey: next.publicKey,
      },
      announceSeconds: plan.announceSeconds,
      overlapSeconds: plan.overlapSeconds,
      reason: plan.reason,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    const started = await this.workflows.start(WORKFLOW_TYPES.rotateControllerKey, {
      workflowId,
      args: [workflowInput],
      correlationId: caller.ids.correlationId,
      actor: caller.actor,
    });
    const now = Date.now();
    return {
      rotationId,
      workflowId,
      temporalUiUrl: started.temporalUiUrl,
      nextKey: view(next),
      switchAt: new Date(now + plan.announceSeconds * 1000).toISOString(),
      retireAt: new Date(now + (plan.announceSeconds + plan.overlapSeconds) * 1000).toISOString(),
    };
  }
}
