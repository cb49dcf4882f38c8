import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '@lunanexa/observability';
import type { AgentConfig } from './config';
import { agentHealth, type AgentHealth } from './health';
import { AGENT_SERVICE, createAgentHttpServer } from './http-server';
import { collectNvidiaInventory, type InventoryReport } from './inventory/collect';
import { systemHostProbe, type HostProbe } from './inventory/host';
import { simulatedInventory } from './inventory/simulated';
import { createAgentMetrics } from './metrics';
import { ASSIGNMENTS_FILE, AssignmentStore, type AcceptedAssignment } from './ssh/assignment-store';
import type { OnAssignmentAccepted } from './ssh/protocol-channel';
import { SshRefusalLog } from './ssh/refusals';
import type { SshServerLimits } from './ssh/server';
import { startSouthbound, type Southbound } from './ssh/southbound';

export interface AgentOptions {
  readonly config: AgentConfig;
  readonly logger: Logger;
  readonly agentVersion: string;
  readonly commit: string;
  /** The machine to inventory when `inventory.source` is `nvidia-smi`; tests pass captured outputs. */
  readonly probe?: HostProbe;
  readonly now?: () => Date;
  /**
   * Runtime reconciliation plugs in here: called after an assignment arriving
   * over SSH is persisted and acknowledged. Assignments persisted before a
   * restart are in `RunningAgent.assignments()` from the start.
   */
  readonly onAssignmentAccepted?: OnAssignmentAccepted;
  /** Envelope clock-skew window (default DEFAULT_MAX_SKEW_MS); tests shorten it. */
  readonly maxSkewMs?: number;
  readonly sshLimits?: Partial<SshServerLimits>;
}

export interface RunningAgent {
  readonly address: AddressInfo;
  /** The SSH server's address; null when `ssh` is not configured. */
  readonly sshAddress: AddressInfo | null;
  health(): AgentHealth;
  /** Every accepted assignment, reloaded from `<dataDir>/assignments.json` at start; ordered by id. */
  assignments(): readonly AcceptedAssignment[];
  /** Stops refreshing and closes the HTTP and SSH servers; resolves once connections are gone. */
  close(): Promise<void>;
}

/** How long open keep-alive connections may linger after shutdown starts. */
const SHUTDOWN_GRACE_MS = 5_000;

export function inventorySource(options: AgentOptions): () => Promise<InventoryReport> {
  const now = options.now ?? (() => new Date());
  const { inventory } = options.config;
  switch (inventory.source) {
    case 'simulated':
      return () =>
        Promise.resolve(
          simulatedInventory(inventory.profile, options.config.nodeName, {
            agentVersion: options.agentVersion,
            now,
          }),
        );
    case 'nvidia-smi': {
      const probe = options.probe ?? systemHostProbe();
      return () => collectNvidiaInventory(probe, { agentVersion: options.agentVersion, now });
    }
  }
}

/**
 * Collects the first inventory (a failure here stops the boot: an agent that
 * cannot describe its node has nothing to offer), serves health and metrics,
 * and refreshes the inventory on a timer. A failed refresh keeps the last good
 * inventory and logs why; the collected-at timestamp shows its age.
 */
export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const { config, logger } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const collect = inventorySource(options);
  const metrics = createAgentMetrics(AGENT_SERVICE, {
    version: options.agentVersion,
    commit: options.commit,
  });

  let report = await collect();
  metrics.recordInventory(report);
  logInventory(logger, report, null);

  // Until enrollment assigns node ids, a node is addressed by its name.
  const nodeId = config.nodeName;
  // Loaded whether or not SSH is configured: the node keeps its desired state while the controller is away.
  const store = await AssignmentStore.open(join(config.dataDir, ASSIGNMENTS_FILE), nodeId);
  if (store.list().length > 0) {
    logger.info({ assignments: store.summaries() }, 'persisted assignments reloaded');
  }
  const refusals = new SshRefusalLog({ counter: metrics.sshRefused, logger, now });
  const southbound: Southbound | null =
    config.ssh === undefined
      ? null
      : await startSouthbound({
          ssh: config.ssh,
          dataDir: config.dataDir,
          nodeId,
          store,
          refusals,
          metrics,
          logger,
          now,
          ...(options.maxSkewMs === undefined ? {} : { maxSkewMs: options.maxSkewMs }),
          ...(options.onAssignmentAccepted === undefined
            ? {}
            : { onAssignmentAccepted: options.onAssignmentAccepted }),
          ...(options.sshLimits === undefined ? {} : { limits: options.sshLimits }),
        });

  const health = (): AgentHealth =>
    agentHealth({
      nodeName: config.nodeName,
      agentVersion: options.agentVersion,
      startedAt,
      report,
      ssh: southbound?.health() ?? null,
      acceptedAssignments: store.list().length,
      sshRefusals: refusals.recent(),
    });
  const server = createAgentHttpServer({ health, metrics, logger });
  server.listen(config.listen.port, config.listen.host);
  try {
    await once(server, 'listening');
  } catch (error: unknown) {
    await southbound?.close();
    throw error;
  }
  const address = server.address() as AddressInfo;

  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  const scheduleRefresh = (): void => {
    // setTimeout after each run, not setInterval: a slow nvidia-smi never overlaps itself.
    timer = setTimeout(() => {
      collect()
        .then((next) => {
          const previous = report;
          report = next;
          metrics.recordInventory(next);
          logInventory(logger, next, previous);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'inventory refresh failed; keeping the last inventory');
        })
        .finally(() => {
          if (!closing) scheduleRefresh();
        });
    }, config.inventory.refreshIntervalSeconds * 1000);
    timer.unref();
  };
  scheduleRefresh();

  return {
    address,
    sshAddress: southbound?.server.address ?? null,
    health,
    assignments: () => store.list(),
    async close() {
      closing = true;
      if (timer !== undefined) clearTimeout(timer);
      await southbound?.close();
      const closed = once(server, 'close');
      server.close();
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}

/** Logs the first inventory, and later ones only when their problems change, so a steady node stays quiet. */
function logInventory(logger: Logger, report: InventoryReport, previous: InventoryReport | null): void {
  const { inventory, problems } = report;
  const summary = {
    architecture: inventory.architecture,
    gpuCount: inventory.gpus.length,
    gpus: inventory.gpus.map((gpu) => ({
      index: gpu.index,
      name: gpu.name,
      memoryModel: gpu.memoryModel,
      totalMemoryBytes: gpu.totalMemoryBytes,
      memorySource: gpu.memorySource,
    })),
  };
  const changed = previous === null || problems.join('\n') !== previous.problems.join('\n');
  if (!changed) return;
  if (problems.length > 0) logger.warn({ inventory: summary, problems }, 'inventory is incomplete');
  else
    logger.info(
      { inventory: summary },
      previous === null ? 'inventory collected' : 'inventory problems resolved',
    );
}
