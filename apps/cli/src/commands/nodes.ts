import { ErrorCode } from '@lunanexa/contracts';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import {
  parseIdempotencyKey,
  parseLabels,
  parseTaints,
  parseWholeNumber,
  type LabelArgument,
  type TaintArgument,
} from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { CliError, ExitCode, usageError } from '../errors';
import {
  FLEET_DOCUMENTS,
  type Assignment,
  type DrainResult,
  type FleetNode,
  type NodeOperation,
} from '../fleet-api';
import {
  UNKNOWN,
  formatBytes,
  formatDuration,
  formatFields,
  formatInstant,
  formatTable,
  writeJson,
  yesNo,
} from '../output';

/** What `node drain` waits for in-flight requests when --timeout is not given (the API's default too). */
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 60;
/**
 * Approve, reject and rotate answer when their workflow finishes; the API
 * bounds that wait itself (30 s by default), so this only has to outlast it.
 */
export const WORKFLOW_REQUEST_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------
// Rendering

/** `2x NVIDIA H100, 1x NVIDIA A100`; `0` for a node without GPUs. */
export function summarizeGpus(gpus: FleetNode['gpus']): string {
  if (gpus.length === 0) return '0';
  const counts = new Map<string, number>();
  for (const gpu of gpus) counts.set(gpu.name, (counts.get(gpu.name) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${count}x ${name}`).join(', ');
}

export function heartbeatAge(seconds: number | null): string {
  return seconds === null ? 'never' : `${formatDuration(seconds)} ago`;
}

/** `ready/wanted`: replicas reporting Ready out of those the controller wants running here. */
export function replicaSummary(assignments: readonly Assignment[]): string {
  const running = assignments.filter((assignment) => assignment.intent === 'Run');
  const ready = running.filter((assignment) => assignment.observedState === 'Ready');
  return `${ready.length}/${running.length}`;
}

export function formatLabels(labels: readonly { key: string; value: string }[]): string {
  return labels.length === 0 ? '(none)' : labels.map(({ key, value }) => `${key}=${value}`).join(', ');
}

export function formatTaints(taints: readonly { key: string; value: string; effect: string }[]): string {
  return taints.length === 0
    ? '(none)'
    : taints
        .map(({ key, value, effect }) => (value === '' ? `${key}:${effect}` : `${key}=${value}:${effect}`))
        .join(', ');
}

/** The agent's version, marked when it is behind the controller's agent protocol (docs/UPGRADING.md). */
export function agentSummary(node: Pick<FleetNode, 'agentVersion' | 'agentOutdated'>): string {
  return node.agentOutdated ? `${node.agentVersion} (outdated)` : node.agentVersion;
}

export function renderNodeList(nodes: readonly FleetNode[]): string {
  if (nodes.length === 0) return 'No nodes enrolled. Create a bootstrap token: lunanexa node token create\n';
  return formatTable(
    ['NAME', 'LIFECYCLE', 'READINESS', 'CORDONED', 'GPUS', 'HEARTBEAT', 'REPLICAS', 'AGENT'],
    nodes.map((node) => [
      node.name,
      node.lifecycle,
      node.readiness,
      yesNo(node.cordoned),
      summarizeGpus(node.gpus),
      heartbeatAge(node.heartbeatAgeSeconds),
      replicaSummary(node.assignments),
      agentSummary(node),
    ]),
  );
}

/**
 * One assignment row per replica with desired and observed generations side
 * by side: an agent that is behind shows ACKED/OBSERVED lower than DESIRED.
 */
export function renderAssignments(assignments: readonly Assignment[], first: 'DEPLOYMENT' | 'NODE'): string {
  const orUnknown = (value: number | string | null): string => (value === null ? UNKNOWN : String(value));
  return formatTable(
    [first, 'INTENT', 'DESIRED GEN', 'ACKED GEN', 'OBSERVED GEN', 'STATE', 'IN-FLIGHT', 'PORT', 'MESSAGE'],
    assignments.map((assignment) => [
      first === 'DEPLOYMENT' ? assignment.deploymentId : assignment.nodeName,
      assignment.intent,
      String(assignment.generation),
      orUnknown(assignment.ackedGeneration),
      orUnknown(assignment.observedGeneration),
      orUnknown(assignment.observedState),
      orUnknown(assignment.inFlight),
      orUnknown(assignment.endpointPort),
      assignment.message ?? '',
    ]),
  );
}

export function renderNode(node: FleetNode, now: Date = new Date()): string {
  const credential =
    `serial ${node.credentialSerial}, key ${node.keyId}` +
    (node.nextKeyId === null ? '' : ` (rotating to ${node.nextKeyId})`) +
    `, expires ${formatInstant(node.credentialExpiresAt, now)}`;
  const sections = [
    formatFields([
      ['name', node.name],
      ['id', node.id],
      ['lifecycle', node.lifecycle],
      ['readiness', node.readiness],
      ['cordoned', yesNo(node.cordoned)],
      ['heartbeat', heartbeatAge(node.heartbeatAgeSeconds)],
      ['lease expires', formatInstant(node.leaseExpiresAt, now)],
      ['address', `${node.address} (ssh port ${node.sshPort})`],
      ['host key', node.hostKeyFingerprint],
      ['credential', credential],
      [
        'agent',
        node.agentOutdatedReason === null
          ? `${node.agentVersion} (protocol ${node.agentProtocol})`
          : `${node.agentVersion} (outdated: ${node.agentOutdatedReason})`,
      ],
      [
        'inventory',
        `${node.architecture}, ${node.cpuCores} CPU cores, ${formatBytes(node.systemMemoryBytes)} memory`,
      ],
      ['labels', formatLabels(node.labels)],
      ['taints', formatTaints(node.taints)],
      ['enrolled', node.enrolledAt],
      ['enroll workflow', node.enrollWorkflowId],
      ['temporal ui', node.temporalUiUrl],
    ]),
    formatTable(
      ['CONDITION', 'STATUS', 'REASON', 'SINCE', 'MESSAGE'],
      node.conditions.map((condition) => [
        condition.type,
        condition.status,
        condition.reason,
        condition.lastTransitionAt,
        condition.message ?? '',
      ]),
    ),
    node.gpus.length === 0
      ? 'GPUS  (none reported)\n'
      : formatTable(
          ['GPU', 'NAME', 'MEMORY MODEL', 'TOTAL', 'FREE', 'SOURCE', 'COMPUTE', 'UUID'],
          node.gpus.map((gpu) => [
            String(gpu.index),
            gpu.name,
            gpu.memoryModel,
            formatBytes(gpu.totalMemoryBytes),
            formatBytes(gpu.freeMemoryBytes),
            gpu.memorySource,
            gpu.computeCapability,
            gpu.uuid,
          ]),
        ),
    node.assignments.length === 0
      ? 'ASSIGNMENTS  (none)\n'
      : renderAssignments(node.assignments, 'DEPLOYMENT'),
  ];
  return sections.join('\n');
}

function renderOperation(
  operation: NodeOperation,
  outcome: string,
  extra: readonly (readonly [string, string])[] = [],
): string {
  return formatFields([
    ['node', `${operation.node.name} ${outcome}`],
    ['lifecycle', operation.node.lifecycle],
    ['readiness', operation.node.readiness],
    ['workflow', operation.workflowId],
    ['temporal ui', operation.temporalUiUrl],
    ['receipt', operation.receiptHash ?? '(workflow still running)'],
    ['correlation id', operation.correlationId],
    ...extra,
  ]);
}

export function renderDrain(result: DrainResult): string {
  return formatFields([
    ['node', `${result.node.name} drained`],
    ['lifecycle', result.node.lifecycle],
    ['replicas at start', String(result.replicasAtStart)],
    ['in-flight at start', String(result.inFlightAtStart)],
    ['cut off at timeout', String(result.inFlightAtTimeout)],
    ['receipt', result.receiptHash],
    ['workflow', result.workflowId],
    ['temporal ui', result.temporalUiUrl],
    ['correlation id', result.correlationId],
  ]);
}

// ---------------------------------------------------------------------------
// Commands

export async function nodeListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(FLEET_DOCUMENTS.nodes, undefined, Results.NodesQuerySchema);
  if (ctx.json) writeJson(ctx.io.stdout, data.nodes);
  else ctx.io.stdout(renderNodeList(data.nodes));
  return ExitCode.OK;
}

/** The API answers null for an unknown node; a script needs that as NOT_FOUND, not as `null` and exit 0. */
export async function nodeGetCommand(ctx: CommandContext, node: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(FLEET_DOCUMENTS.node, { node }, Results.NodeQuerySchema);
  if (data.node === null) {
    throw new CliError({ code: ErrorCode.NOT_FOUND, message: `node ${node} does not exist` }, requestId);
  }
  if (ctx.json) writeJson(ctx.io.stdout, data.node);
  else ctx.io.stdout(renderNode(data.node));
  return ExitCode.OK;
}

function writeOperation(
  ctx: CommandContext,
  operation: NodeOperation,
  requestId: string,
  outcome: string,
): void {
  if (ctx.json) writeJson(ctx.io.stdout, { ...operation, requestId });
  else ctx.io.stdout(renderOperation(operation, outcome));
}

export async function nodeApproveCommand(ctx: CommandContext, node: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.approveNode,
    { node },
    Results.ApproveNodeMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  writeOperation(ctx, data.approveNode, requestId, 'approved');
  return ExitCode.OK;
}

export interface RejectOptions {
  readonly reason?: string;
}

export async function nodeRejectCommand(
  ctx: CommandContext,
  node: string,
  options: RejectOptions,
): Promise<ExitCode> {
  const reason = options.reason ?? '';
  if (reason.trim() === '' || reason.length > 1024) {
    throw usageError('--reason must be 1-1024 characters saying why the node is rejected (it is audited)');
  }
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.rejectNode,
    { node, reason },
    Results.RejectNodeMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  writeOperation(ctx, data.rejectNode, requestId, 'rejected');
  return ExitCode.OK;
}

export interface ReplaceOptions {
  readonly none?: boolean;
}

/**
 * The API replaces the whole set, so an empty argument list would silently
 * delete every label; clearing takes an explicit --none.
 */
function replacement<T>(
  raws: readonly string[],
  options: ReplaceOptions,
  parse: (raws: readonly string[]) => T[],
  what: string,
): T[] {
  if (options.none === true) {
    if (raws.length > 0) throw usageError(`--none removes every ${what}; it takes no ${what} arguments`);
    return [];
  }
  if (raws.length === 0) {
    throw usageError(`give the complete new ${what} set, or --none to remove every ${what}`);
  }
  return parse(raws);
}

export async function nodeLabelCommand(
  ctx: CommandContext,
  node: string,
  raws: readonly string[],
  options: ReplaceOptions,
): Promise<ExitCode> {
  const labels: LabelArgument[] = replacement(raws, options, (all) => parseLabels(all), 'label');
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.setNodeLabels,
    { node, labels },
    Results.SetNodeLabelsMutationSchema,
  );
  const updated = data.setNodeLabels;
  if (ctx.json) writeJson(ctx.io.stdout, { node: updated, requestId });
  else ctx.io.stdout(`node ${updated.name} labels: ${formatLabels(updated.labels)}\n`);
  return ExitCode.OK;
}

export async function nodeTaintCommand(
  ctx: CommandContext,
  node: string,
  raws: readonly string[],
  options: ReplaceOptions,
): Promise<ExitCode> {
  const taints: TaintArgument[] = replacement(raws, options, parseTaints, 'taint');
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.setNodeTaints,
    { node, taints },
    Results.SetNodeTaintsMutationSchema,
  );
  const updated = data.setNodeTaints;
  if (ctx.json) writeJson(ctx.io.stdout, { node: updated, requestId });
  else ctx.io.stdout(`node ${updated.name} taints: ${formatTaints(updated.taints)}\n`);
  return ExitCode.OK;
}

export async function nodeCordonCommand(
  ctx: CommandContext,
  node: string,
  cordon: boolean,
): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    cordon ? FLEET_DOCUMENTS.cordonNode : FLEET_DOCUMENTS.uncordonNode,
    { node },
    cordon ? Results.CordonNodeMutationSchema : Results.UncordonNodeMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { node: data.node, requestId });
  else if (cordon)
    ctx.io.stdout(`node ${data.node.name} cordoned: no new placements; running replicas keep serving\n`);
  else ctx.io.stdout(`node ${data.node.name} uncordoned: open for new placements\n`);
  return ExitCode.OK;
}

export interface DrainOptions {
  /** Seconds, as typed. */
  readonly timeout?: string;
  readonly key?: string;
  /** Drain even when replicas have nowhere else to go; the API wants a reason with it. */
  readonly force?: boolean;
  readonly reason?: string;
}

export async function nodeDrainCommand(
  ctx: CommandContext,
  node: string,
  options: DrainOptions,
): Promise<ExitCode> {
  const timeoutSeconds =
    options.timeout === undefined
      ? DEFAULT_DRAIN_TIMEOUT_SECONDS
      : parseWholeNumber(options.timeout, '--timeout (seconds)', 0);
  const idempotencyKey = options.key === undefined ? null : parseIdempotencyKey(options.key);
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.drainNode,
    {
      node,
      timeoutSeconds,
      idempotencyKey,
      ...(options.force === true ? { force: true } : {}),
      ...(options.reason === undefined ? {} : { reason: options.reason }),
    },
    Results.DrainNodeMutationSchema,
    // The drain may legitimately take its whole timeout before the API answers.
    { timeoutMs: waitingTimeoutMs(ctx, timeoutSeconds * 1000 + WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.drainNode, requestId });
  else ctx.io.stdout(renderDrain(data.drainNode));
  return ExitCode.OK;
}

export interface RotateOptions {
  readonly key?: string;
}

export async function nodeRotateCredentialCommand(
  ctx: CommandContext,
  node: string,
  options: RotateOptions,
): Promise<ExitCode> {
  const idempotencyKey = options.key === undefined ? null : parseIdempotencyKey(options.key);
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.rotateNodeCredential,
    { node, idempotencyKey },
    Results.RotateNodeCredentialMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  const operation = data.rotateNodeCredential;
  if (ctx.json) writeJson(ctx.io.stdout, { ...operation, requestId });
  else
    ctx.io.stdout(
      renderOperation(operation, 'credential rotated', [
        ['credential', `serial ${operation.node.credentialSerial}, key ${operation.node.keyId}`],
        ['expires', formatInstant(operation.node.credentialExpiresAt, new Date())],
      ]),
    );
  return ExitCode.OK;
}
