import { expect } from 'chai';
import { renderDeployment, renderDeploymentList } from '../src/commands/deployments';
import { renderCreatedToken, renderTokenList, tokenState } from '../src/commands/node-tokens';
import { renderNode, renderNodeList, replicaSummary, summarizeGpus } from '../src/commands/nodes';
import { formatBytes, formatDuration, formatInstant } from '../src/output';
import {
  ACTIVE_NODE,
  BOOTSTRAP_TOKEN,
  CREATED_TOKEN,
  NOW,
  PENDING_NODE,
  PLACING_DEPLOYMENT,
  READY_DEPLOYMENT,
} from './fleet-fixtures';

describe('fleet output formatting', () => {
  describe('helpers', () => {
    for (const [seconds, text] of [
      [0, '0s'],
      [59.9, '59s'],
      [60, '1m00s'],
      [185, '3m05s'],
      [7440, '2h04m'],
      [266_400, '3d02h'],
    ] as const) {
      it(`formats ${seconds} s as ${text}`, () => expect(formatDuration(seconds)).to.equal(text));
    }

    it('formats bytes in binary units and unknown memory as -', () => {
      expect(formatBytes(130663165952)).to.equal('121.7 GiB');
      expect(formatBytes(512)).to.equal('512 B');
      expect(formatBytes(null)).to.equal('-');
    });

    it('says how far an instant is from now, both ways', () => {
      expect(formatInstant('2025-11-20T09:29:07.000Z', NOW)).to.equal('2025-11-20T09:29:07.000Z (in 15m00s)');
      expect(formatInstant('2025-11-20T09:13:07.000Z', NOW)).to.equal('2025-11-20T09:13:07.000Z (1m00s ago)');
      expect(formatInstant(null, NOW)).to.equal('-');
    });

    it('groups GPUs by model', () => {
      expect(summarizeGpus(PENDING_NODE.gpus)).to.equal('2x NVIDIA H100 80GB HBM3');
      expect(summarizeGpus([])).to.equal('0');
    });

    it('counts replicas Ready out of those meant to run, ignoring ones being stopped', () => {
      const stopping = { ...ACTIVE_NODE.assignments[0], intent: 'Stop', observedState: 'Stopping' };
      expect(replicaSummary([...ACTIVE_NODE.assignments, stopping])).to.equal('1/2');
    });
  });

  describe('node list', () => {
    it('prints one row per node with lifecycle, readiness, cordon, GPUs, heartbeat age, replicas and agent (marked when outdated)', () => {
      expect(renderNodeList([ACTIVE_NODE, PENDING_NODE])).to.equal(
        [
          'NAME      LIFECYCLE  READINESS    CORDONED  GPUS                      HEARTBEAT  REPLICAS  AGENT',
          'spark-01  Active     Ready        no        1x NVIDIA GB10            2s ago     1/2       0.2.0',
          'h100-07   Pending    Unreachable  yes       2x NVIDIA H100 80GB HBM3  never      0/0       0.1.0 (outdated)',
          '',
        ].join('\n'),
      );
    });

    it('says how to enroll the first node when there is none', () => {
      expect(renderNodeList([])).to.contain('lunanexa node token create');
    });
  });

  describe('node get', () => {
    const text = renderNode(ACTIVE_NODE, NOW);
    const lines = text.split('\n');

    it('shows state, lease and credential with times relative to now', () => {
      expect(lines).to.include.members([
        'lifecycle        Active',
        'readiness        Ready',
        'cordoned         no',
        'heartbeat        2s ago',
        'lease expires    2025-11-20T09:14:35.120Z (in 28s)',
        'credential       serial 2, key ed25519:4444444444444444, expires 2025-12-20T09:00:00.000Z (in 29d23h)',
      ]);
    });

    it('shows labels, taints and the inventory', () => {
      expect(lines).to.include.members([
        'labels           lunanexa.io/gpu-family=gb10, rack=r1',
        'taints           maintenance=true:PreferNoSchedule',
        'inventory        arm64, 20 CPU cores, 121.7 GiB memory',
      ]);
      expect(text).to.contain(
        '0    NVIDIA GB10  unified       121.7 GiB  114.0 GiB  proc-meminfo  12.1     GPU-5f3e1a2b-8c4d-4e6f-9a0b-1c2d3e4f5a6b\n',
      );
    });

    it('shows conditions', () => {
      expect(text).to.contain(
        'CONDITION  STATUS  REASON             SINCE                     MESSAGE\n' +
          'Ready      True    HeartbeatReceived  2025-11-20T09:00:12.000Z\n',
      );
    });

    it('shows each assignment with desired, acknowledged and observed generation side by side', () => {
      expect(text).to.contain(
        [
          'DEPLOYMENT            INTENT  DESIRED GEN  ACKED GEN  OBSERVED GEN  STATE     IN-FLIGHT  PORT   MESSAGE',
          'dep-5e1c0a9b3f2d4e6a  Run     3            3          3             Ready     2          18001',
          'dep-77aa01c2e9b04d13  Run     2            1          1             Starting  -          -      pulling weights',
          '',
        ].join('\n'),
      );
    });

    it('marks what a Pending node has not reported yet instead of printing zeros', () => {
      const pending = renderNode(PENDING_NODE, NOW);
      expect(pending).to.contain('heartbeat        never\n');
      expect(pending).to.contain('lease expires    -\n');
      expect(pending).to.contain('labels           (none)\n');
      expect(pending).to.match(/^1 {4}NVIDIA H100 80GB HBM3 {2}discrete {6}79\.6 GiB {2}- {5}nvml/m);
      expect(pending).to.contain('ASSIGNMENTS  (none)\n');
    });
  });

  describe('deployments', () => {
    it('lists state, ready/desired replicas, observed/desired generation and the reason', () => {
      expect(renderDeploymentList([READY_DEPLOYMENT, PLACING_DEPLOYMENT])).to.equal(
        [
          'NAME  MODEL    STATE    READY  GENERATION  REASON',
          'chat  demo@v1  Ready    1/1    3/3',
          'big   demo@v2  Placing  0/2    0/1         NoEligibleNode: 2 nodes filtered (1 cordoned, 1 not Active)',
          '',
        ].join('\n'),
      );
    });

    it('shows one deployment with its workflow link and assignments by node', () => {
      const text = renderDeployment(READY_DEPLOYMENT);
      expect(text).to.contain('state        Ready\n');
      expect(text).to.contain('replicas     1 ready of 1 desired\n');
      expect(text).to.contain(`temporal ui  ${READY_DEPLOYMENT.temporalUiUrl}\n`);
      expect(text).to.contain(
        'spark-01  Run     3            3          3             Ready  2          18001\n',
      );
      expect(renderDeployment(PLACING_DEPLOYMENT)).to.contain(
        'state        Placing (NoEligibleNode: 2 nodes filtered (1 cordoned, 1 not Active))\n',
      );
    });
  });

  describe('bootstrap tokens', () => {
    it('prints a new token first, marked as shown once, then where the agent must connect', () => {
      const text = renderCreatedToken(CREATED_TOKEN, NOW);
      expect(text.split('\n').slice(0, 2)).to.deep.equal([
        'Bootstrap token (shown once, store it now; it enrolls one node):',
        `  ${CREATED_TOKEN.token}`,
      ]);
      expect(text).to.contain('expires         2025-11-20T09:29:07.000Z (in 15m00s)\n');
      expect(text).to.contain(`controller url  ${CREATED_TOKEN.controllerUrl}\n`);
      expect(text).to.contain(`controller key  ${CREATED_TOKEN.controllerKeyFingerprint}\n`);
      expect(text).to.match(/On the node, run:\n {2}lunanexa-agent .*--bootstrap-token lnxb_/);
    });

    it('lists tokens by whether they can still enroll a node, never with the secret', () => {
      const text = renderTokenList([BOOTSTRAP_TOKEN], NOW);
      expect(text).to.contain('usable');
      expect(text).to.not.contain(CREATED_TOKEN.token);
      expect(tokenState({ ...BOOTSTRAP_TOKEN, revokedAt: '2025-11-20T09:15:00.000Z' }, NOW)).to.equal(
        'revoked',
      );
      expect(
        tokenState({ ...BOOTSTRAP_TOKEN, usedAt: '2025-11-20T09:15:00.000Z', usedByNodeId: 'node-1' }, NOW),
      ).to.equal('used by node-1');
      expect(tokenState(BOOTSTRAP_TOKEN, new Date('2025-11-20T09:29:07.000Z'))).to.equal('expired');
    });
  });
});
