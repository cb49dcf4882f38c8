import { setTimeout as sleep } from 'node:timers/promises';
import {
  DEPLOYMENT_PURPOSES,
  ErrorCode,
  PLACEMENT_STRATEGIES,
  type DeploymentPurpose,
  type PlacementStrategy,
} from '@lunanexa/contracts';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { parseIdempotencyKey, parseModelVersionRef, parseName, parseWholeNumber } from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors';
import { FLEET_DOCUMENTS, type Deployment, type DeploymentOperation, type PlacementPlan } from '../fleet-api';
import { formatFields, formatTable, writeJson } from '../output';
import { WORKFLOW_REQUEST_TIMEOUT_MS, renderAssignments } from './nodes';

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;
export const DEPLOY_POLL_INTERVAL_MS = 1000;
/** States a deployment does not leave on its own: waiting for Ready past them is pointless. */
const GAVE_UP_STATES: ReadonlySet<string> = new Set(['Failed', 'Stopped']);

function stateText(deployment: Deployment): string {
  return deployment.stateReason === null
    ? deployment.state
    : `${deployment.state} (${deployment.stateReason})`;
}

export function renderDeploymentList(deployments: readonly Deployment[]): string {
  if (deployments.length === 0) {
    return 'No deployments. Create one: lunanexa deploy create <name> --model <name>@<version>\n';
  }
  return formatTable(
    ['NAME', 'MODEL', 'STATE', 'READY', 'GENERATION', 'REASON'],
    deployments.map((deployment) => [
      deployment.name,
      deployment.modelRef,
      deployment.state,
      `${deployment.readyReplicas}/${deployment.desiredReplicas}`,
      `${deployment.observedGeneration}/${deployment.generation}`,
      deployment.stateReason ?? '',
    ]),
  );
}

export function renderDeployment(deployment: Deployment): string {
  const fields = formatFields([
    ['name', deployment.name],
    ['id', deployment.id],
    ['model', deployment.modelRef],
    ['purpose', deployment.purpose],
    ['state', stateText(deployment)],
    ['replicas', `${deployment.readyReplicas} ready of ${deployment.desiredReplicas} desired`],
    ['generation', `${deployment.observedGeneration} observed of ${deployment.generation} desired`],
    ['workflow', deployment.workflowId],
    ['temporal ui', deployment.temporalUiUrl],
    ['created', `${deployment.createdAt} by ${deployment.createdBy}`],
    ['updated', deployment.updatedAt],
  ]);
  const assignments =
    deployment.assignments.length === 0
      ? 'ASSIGNMENTS  (none yet)\n'
      : renderAssignments(deployment.assignments, 'NODE');
  return `${fields}\n${assignments}`;
}

export interface DeployCreateOptions {
  readonly model?: string;
  readonly purpose?: string;
  readonly strategy?: string;
  readonly node?: string;
  readonly replicas?: string;
  readonly key?: string;
  readonly wait?: boolean;
  readonly waitTimeout?: string;
}

/** `--strategy spread|binpack` (any case) as the API's placement strategy. */
export function parseStrategy(raw: string): PlacementStrategy {
  const strategy = PLACEMENT_STRATEGIES.find((name) => name.toLowerCase() === raw.toLowerCase());
  if (strategy === undefined) {
    throw usageError(
      `--strategy must be ${PLACEMENT_STRATEGIES.map((name) => name.toLowerCase()).join(' or ')}, not ${JSON.stringify(raw)}`,
    );
  }
  return strategy;
}

/** `--purpose serving|candidate` (any case) as the API's purpose name. */
export function parsePurpose(raw: string): DeploymentPurpose {
  const purpose = DEPLOYMENT_PURPOSES.find((name) => name.toLowerCase() === raw.toLowerCase());
  if (purpose === undefined) {
    throw usageError(
      `--purpose must be ${DEPLOYMENT_PURPOSES.map((name) => name.toLowerCase()).join(' or ')}, not ${JSON.stringify(raw)}`,
    );
  }
  return purpose;
}

export function deployCreateInput(
  name: string,
  options: DeployCreateOptions,
): {
  name: string;
  model: string;
  purpose: DeploymentPurpose;
  placementStrategy?: PlacementStrategy;
  replicas: number;
  node?: string;
  idempotencyKey?: string;
} {
  if (options.model === undefined) throw usageError('--model <name>@<version> is required');
  return {
    name: parseName(name, 'deployment name'),
    model: parseModelVersionRef(options.model, '--model').ref,
    purpose: options.purpose === undefined ? 'Serving' : parsePurpose(options.purpose),
    ...(options.strategy === undefined ? {} : { placementStrategy: parseStrategy(options.strategy) }),
    replicas: options.replicas === undefined ? 1 : parseWholeNumber(options.replicas, '--replicas', 1),
    ...(options.node === undefined ? {} : { node: options.node }),
    ...(options.key === undefined ? {} : { idempotencyKey: parseIdempotencyKey(options.key) }),
  };
}

/**
 * Polls until the deployment is Ready. Failed or Stopped ends the wait
 * early (DEPLOYMENT_FAILED); running out of time is DEADLINE_EXCEEDED with
 * the last state seen, which usually says why (e.g. no eligible node).
 */
export async function waitForReady(
  ctx: CommandContext,
  deploymentId: string,
  name: string,
  timeoutSeconds: number,
  pollIntervalMs: number = DEPLOY_POLL_INTERVAL_MS,
): Promise<Deployment> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let lastSeen: Deployment | null = null;
  let lastReported = '';
  for (;;) {
    const { data, requestId } = await ctx.api.graphql(
      FLEET_DOCUMENTS.deployment,
      { deployment: deploymentId },
      Results.DeploymentQuerySchema,
    );
    const deployment = data.deployment;
    if (deployment !== null) {
      lastSeen = deployment;
      if (deployment.state === 'Ready') return deployment;
      if (GAVE_UP_STATES.has(deployment.state)) {
        throw new CliError(
          { code: CliErrorCode.DEPLOYMENT_FAILED, message: `deployment ${name} is ${stateText(deployment)}` },
          requestId,
        );
      }
      const progress = `${stateText(deployment)}, ${deployment.readyReplicas}/${deployment.desiredReplicas} ready`;
      if (!ctx.json && progress !== lastReported) {
        ctx.io.stderr(`waiting for deployment ${name}: ${progress}\n`);
        lastReported = progress;
      }
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      const last = lastSeen === null ? 'no record yet' : `last state ${stateText(lastSeen)}`;
      throw new CliError(
        {
          code: ErrorCode.DEADLINE_EXCEEDED,
          message: `deployment ${name} was not Ready within ${timeoutSeconds} s (${last})`,
        },
        requestId,
      );
    }
    await sleep(Math.min(pollIntervalMs, remaining));
  }
}

export async function deployCreateCommand(
  ctx: CommandContext,
  name: string,
  options: DeployCreateOptions,
  pollIntervalMs: number = DEPLOY_POLL_INTERVAL_MS,
): Promise<ExitCode> {
  const input = deployCreateInput(name, options);
  if (options.waitTimeout !== undefined && options.wait !== true) {
    throw usageError('--wait-timeout only applies with --wait');
  }
  const waitTimeout =
    options.waitTimeout === undefined
      ? DEFAULT_WAIT_TIMEOUT_SECONDS
      : parseWholeNumber(options.waitTimeout, '--wait-timeout', 1);
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.createDeployment,
    { input },
    Results.CreateDeploymentMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  const operation: DeploymentOperation = data.createDeployment;
  if (!ctx.json) {
    ctx.io.stdout(
      formatFields([
        ['deployment', `${input.name} (${operation.deploymentId})`],
        ['model', input.model],
        ['purpose', input.purpose],
        [
          'state',
          operation.deployment === null
            ? 'Pending (record not written yet)'
            : stateText(operation.deployment),
        ],
        ['workflow', operation.workflowId],
        ['temporal ui', operation.temporalUiUrl],
        ['correlation id', operation.correlationId],
      ]),
    );
  }
  if (options.wait !== true) {
    if (ctx.json) writeJson(ctx.io.stdout, { ...operation, requestId });
    return ExitCode.OK;
  }
  const ready = await waitForReady(ctx, operation.deploymentId, input.name, waitTimeout, pollIntervalMs);
  if (ctx.json) writeJson(ctx.io.stdout, { ...operation, deployment: ready, requestId });
  else ctx.io.stdout(`\n${renderDeployment(ready)}`);
  return ExitCode.OK;
}

export async function deployListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    FLEET_DOCUMENTS.deployments,
    undefined,
    Results.DeploymentsQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.deployments);
  else ctx.io.stdout(renderDeploymentList(data.deployments));
  return ExitCode.OK;
}

export async function deployGetCommand(ctx: CommandContext, name: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.deployment,
    { deployment: name },
    Results.DeploymentQuerySchema,
  );
  if (data.deployment === null) {
    throw new CliError(
      { code: ErrorCode.NOT_FOUND, message: `deployment ${name} does not exist` },
      requestId,
    );
  }
  if (ctx.json) writeJson(ctx.io.stdout, data.deployment);
  else ctx.io.stdout(renderDeployment(data.deployment));
  return ExitCode.OK;
}

export async function deployStopCommand(ctx: CommandContext, name: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.stopDeployment,
    { deployment: name },
    Results.StopDeploymentMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  const operation = data.stopDeployment;
  if (ctx.json) {
    writeJson(ctx.io.stdout, { ...operation, requestId });
    return ExitCode.OK;
  }
  ctx.io.stdout(
    formatFields([
      ['deployment', `${name} (${operation.deploymentId})`],
      ['state', operation.deployment === null ? 'unknown' : stateText(operation.deployment)],
      ['workflow', operation.workflowId],
      ['temporal ui', operation.temporalUiUrl],
      ['correlation id', operation.correlationId],
    ]),
  );
  return ExitCode.OK;
}

export interface PlacementPlanOptions {
  readonly model?: string;
  readonly replicas?: string;
  readonly strategy?: string;
  readonly node?: string;
  readonly deployment?: string;
}

export function renderPlacementPlan(plan: PlacementPlan): string {
  const head = `${plan.strategy}: ${plan.chosen.length} of ${plan.replicas} replica(s) placed${plan.unplaced > 0 ? `, ${plan.unplaced} unplaced` : ''} (dry run: nothing changed)\n`;
  return (
    head +
    formatTable(
      ['NODE', 'VERDICT', 'WHY'],
      [
        ...plan.chosen.map((choice) => [choice.node, 'chosen', choice.reason]),
        ...plan.rejected.map((rejection) => [rejection.node, 'passed over', rejection.reasons.join('; ')]),
      ],
    )
  );
}

/** `placement plan`: what the scheduler would do now and why, for every node; changes nothing. */
export async function placementPlanCommand(
  ctx: CommandContext,
  options: PlacementPlanOptions,
): Promise<ExitCode> {
  if (options.model === undefined) throw usageError('--model <name>@<version> is required');
  const input = {
    model: parseModelVersionRef(options.model, '--model').ref,
    replicas: options.replicas === undefined ? 1 : parseWholeNumber(options.replicas, '--replicas', 1),
    placementStrategy: options.strategy === undefined ? 'Spread' : parseStrategy(options.strategy),
    ...(options.node === undefined ? {} : { node: options.node }),
    ...(options.deployment === undefined ? {} : { deployment: options.deployment }),
  };
  const { data } = await ctx.api.graphql(
    FLEET_DOCUMENTS.placementPlan,
    { input },
    Results.PlacementPlanQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.placementPlan);
  else ctx.io.stdout(renderPlacementPlan(data.placementPlan));
  return data.placementPlan.unplaced > 0 ? ExitCode.FAILURE : ExitCode.OK;
}
