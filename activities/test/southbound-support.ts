import { spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ed25519KeyId, openSshPublicKey, sshFingerprint } from '@lunanexa/agent-protocol';
import { AGENT_PROTOCOL_VERSION, AssignmentSchema, type Assignment } from '@lunanexa/contracts';
import type { ControllerIdentity, SouthboundNode } from '../src/southbound';

/**
 * The real agent, run as its own process from its build output. activities/
 * may not import apps/ (DESIGN.md "Dependency direction"; eslint and
 * test/architecture.spec.ts enforce it for tests too), and a process is what
 * the controller talks to in production anyway: a TCP port, a host key, a
 * node key.
 */
const AGENT_MAIN = join(__dirname, '..', '..', '..', 'apps', 'agent', 'dist', 'src', 'main.js');

export const NODE_NAME = 'spark-01';

/** Where the agent keeps its node key and accepted assignments (apps/agent/src/ssh). */
const NODE_KEY_FILE = 'node-ed25519.pem';
const ASSIGNMENTS_FILE = 'assignments.json';

export interface TestController {
  readonly identity: ControllerIdentity;
  readonly publicLine: string;
}

export function makeController(): TestController {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    identity: { privateKey, keyId: ed25519KeyId(publicKey) },
    publicLine: openSshPublicKey(publicKey),
  };
}

/** The fingerprint of a fresh key: a host key no server here presents. */
export function someOtherFingerprint(): string {
  return sshFingerprint(generateKeyPairSync('ed25519').publicKey);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('no port'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

export interface AgentProcess {
  /** The node as enrollment would have recorded it (host key pinned, node key trusted). */
  readonly node: SouthboundNode;
  readonly dataDir: string;
  readonly httpUrl: string;
  /** The agent's JSON log lines so far. */
  logs(): Record<string, unknown>[];
  /** `<dataDir>/assignments.json` as bytes, or null before the first accepted assignment. */
  persistedAssignments(): string | null;
  health(): Promise<{
    acceptedAssignments: number;
    sshRefusals: { request: string; keyId: string | null }[];
  }>;
  stop(): Promise<void>;
}

interface ListeningLine {
  readonly msg: string;
  readonly ssh: { readonly port: number; readonly hostKeyFingerprint: string; readonly nodeKeyId: string };
}

export async function startAgentProcess(controllers: readonly TestController[]): Promise<AgentProcess> {
  if (!existsSync(AGENT_MAIN)) {
    throw new Error(`${AGENT_MAIN} is missing: build the agent first (npx tsc -b apps/agent)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'lunanexa-southbound-'));
  const dataDir = join(dir, 'state');
  const httpPort = await freePort();
  const sshPort = await freePort();
  const configFile = join(dir, 'agent.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      nodeName: NODE_NAME,
      listen: { host: '127.0.0.1', port: httpPort },
      dataDir,
      inventory: { source: 'simulated', profile: 'dgx-spark' },
      ssh: {
        host: '127.0.0.1',
        port: sshPort,
        authorizedControllerKeys: controllers.map((controller) => ({
          keyId: controller.identity.keyId,
          publicKey: controller.publicLine,
        })),
      },
    }),
  );

  const child = spawn(process.execPath, [AGENT_MAIN, '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));

  let listening: ListeningLine;
  try {
    listening = await waitForListening(child, lines, exited, () => stderr);
  } catch (error: unknown) {
    await stopChild(child, exited);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  // Enrollment will carry the node's public key; until then it is read from the agent's data dir.
  const nodePublicKey: KeyObject = createPublicKey(
    createPrivateKey(readFileSync(join(dataDir, NODE_KEY_FILE), 'utf8')),
  );
  if (ed25519KeyId(nodePublicKey) !== listening.ssh.nodeKeyId) {
    throw new Error(`the node key on disk is not the one the agent announced (${listening.ssh.nodeKeyId})`);
  }
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  return {
    node: {
      id: NODE_NAME,
      address: '127.0.0.1',
      sshPort: listening.ssh.port,
      hostKeyFingerprint: listening.ssh.hostKeyFingerprint,
      keyIds: [listening.ssh.nodeKeyId],
      publicKeys: [openSshPublicKey(nodePublicKey)],
      agentProtocol: AGENT_PROTOCOL_VERSION,
    },
    dataDir,
    httpUrl,
    logs: () => [...lines],
    persistedAssignments: () => {
      const file = join(dataDir, ASSIGNMENTS_FILE);
      return existsSync(file) ? readFileSync(file, 'utf8') : null;
    },
    health: async () => {
      const response = await fetch(`${httpUrl}/health`);
      return (await response.json()) as Awaited<ReturnType<AgentProcess['health']>>;
    },
    stop: async () => {
      const code = await stopChild(child, exited);
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`the agent exited with ${code}: ${stderr}`);
    },
  };
}

async function waitForListening(
  child: ChildProcess,
  lines: readonly Record<string, unknown>[],
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<ListeningLine> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let waited = 0; waited < 15_000; waited += 50) {
    const line = lines.find((entry) => entry['msg'] === 'agent listening');
    if (line !== undefined) return line as unknown as ListeningLine;
    if (gone) throw new Error(`the agent exited with ${child.exitCode} before listening: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the agent did not start within 15 s: ${stderr()}`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  return exited;
}

/** A valid assignment for the agent's node: the contract fixture, leased for an hour. */
export function anAssignment(overrides: Partial<Assignment> = {}): Assignment {
  const fixture = join(
    dirname(require.resolve('@lunanexa/contracts/package.json')),
    'fixtures',
    'v1',
    'assignment.json',
  );
  const base = AssignmentSchema.parse(JSON.parse(readFileSync(fixture, 'utf8')));
  return AssignmentSchema.parse({
    ...base,
    nodeId: NODE_NAME,
    leaseExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    ...overrides,
  });
}
