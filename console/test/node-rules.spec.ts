import './support/contract-modules';

import { expect } from 'chai';

import {
  drainScope,
  drainScopeText,
  formatAge,
  formatBytes,
  formatLabel,
  formatTaint,
  gpuMemoryModels,
  gpuSummary,
  nodeActionStates,
  parseLabels,
  parseTaints,
  runningAssignments,
  recoveryRuns,
} from '../src/app/pages/nodes/node-rules';
import { canAs } from './support/roles';

type Assignment = Parameters<typeof runningAssignments>[0]['assignments'][number];
type Gpu = Parameters<typeof gpuSummary>[0][number];
type NodeActions = Parameters<typeof nodeActionStates>[0]['actions'];

const assignment = (intent: string, inFlight: number | null): Assignment => ({
  id: `a-${intent}-${inFlight}`,
  deploymentId: 'd-1',
  nodeName: 'dgx-2',
  generation: 1,
  intent,
  leaseExpiresAt: '2026-12-06T00:00:00Z',
  ackedGeneration: 1,
  observedState: 'Ready',
  observedGeneration: 1,
  endpointPort: 9000,
  inFlight,
  message: null,
  observedAt: null,
});

const gpu = (index: number, name: string, memoryModel = 'discrete'): Gpu => ({
  index,
  name,
  uuid: `GPU-${index}`,
  memoryModel,
  memorySource: 'nvml',
  totalMemoryBytes: null,
  freeMemoryBytes: null,
  computeCapability: '8.0',
});

describe('console node rules', () => {
  describe('drain scope', () => {
    it('counts only replicas meant to run, summing what they reported', () => {
      const node = {
        name: 'dgx-2',
        assignments: [assignment('Run', 3), assignment('Run', 4), assignment('Stop', 9)],
      };
      expect(runningAssignments(node)).to.have.length(2);
      expect(drainScope(node)).to.deep.equal({ replicas: 2, inFlight: 7, unreported: 0 });
      expect(drainScopeText(node)).to.equal('drains node dgx-2: 2 replicas, 7 in-flight requests');
    });

    it('says one in the singular and names replicas that never reported', () => {
      const node = { name: 'dgx-2', assignments: [assignment('Run', 1), assignment('Run', null)] };
      expect(drainScope(node)).to.deep.equal({ replicas: 2, inFlight: 1, unreported: 1 });
      expect(drainScopeText(node)).to.equal(
        'drains node dgx-2: 2 replicas, 1 in-flight request (1 replica has not reported in-flight requests)',
      );
      expect(drainScopeText({ name: 'idle', assignments: [] })).to.equal(
        'drains node idle: 0 replicas, 0 in-flight requests',
      );
    });
  });

  describe('node actions', () => {
    const actions: NodeActions = [
      { action: 'approve', allowed: false, reason: 'node dgx-2 is Active; only Pending nodes are approved' },
      { action: 'reject', allowed: false, reason: 'node dgx-2 is Active; only Pending nodes are rejected' },
      { action: 'cordon', allowed: true, reason: null },
      { action: 'uncordon', allowed: true, reason: null },
      { action: 'drain', allowed: true, reason: null },
      { action: 'rotateCredential', allowed: true, reason: null },
      { action: 'setLabels', allowed: true, reason: null },
    ];

    it("enables what the API allows and disables the rest with the API's reason", () => {
      const states = nodeActionStates(
        {
          actions: actions.map((entry) =>
            entry.action === 'drain'
              ? { action: 'drain', allowed: false, reason: 'node dgx-2 is Pending; only Active nodes drain' }
              : entry,
          ),
        },
        canAs('operator'),
      );
      expect(states.drain).to.deep.equal({
        offered: true,
        enabled: false,
        reason: 'node dgx-2 is Pending; only Active nodes drain',
      });
      expect(states.cordon).to.deep.equal({ offered: true, enabled: true });
      expect(states.setLabels).to.deep.equal({ offered: true, enabled: true });
    });

    it('offers approve and reject only while the API allows them, and nothing to a viewer', () => {
      expect(nodeActionStates({ actions }, canAs('operator')).approve.offered).to.equal(false);
      expect(nodeActionStates({ actions }, canAs('operator')).reject.offered).to.equal(false);
      const pending = actions.map((entry) =>
        entry.action === 'approve' || entry.action === 'reject'
          ? { action: entry.action, allowed: true, reason: null }
          : entry,
      );
      expect(nodeActionStates({ actions: pending }, canAs('operator')).approve).to.deep.equal({
        offered: true,
        enabled: true,
      });
      expect(nodeActionStates({ actions: pending }, canAs('operator')).reject).to.deep.equal({
        offered: true,
        enabled: true,
      });
      const viewer = nodeActionStates({ actions: pending }, canAs('viewer'));
      expect(Object.values(viewer).some((state) => state.offered)).to.equal(false);
    });

    it('keeps an action the API did not list disabled', () => {
      const states = nodeActionStates({ actions: [] }, canAs('admin'));
      expect(states.rotateCredential.enabled).to.equal(false);
      expect(states.rotateCredential.reason).to.match(/did not say/);
    });
  });

  describe('inventory', () => {
    it('sums GPUs by name in index order, "none" without any', () => {
      expect(gpuSummary([])).to.equal('none');
      expect(gpuSummary([gpu(2, 'NVIDIA A100'), gpu(0, 'NVIDIA GB10'), gpu(1, 'NVIDIA GB10')])).to.equal(
        '2 × NVIDIA GB10, 1 × NVIDIA A100',
      );
      expect(gpuMemoryModels([gpu(0, 'a', 'unified'), gpu(1, 'b', 'unified'), gpu(2, 'c')])).to.equal(
        'unified, discrete',
      );
    });

    it('prints bytes in binary units and a dash for a missing or nonsensical figure', () => {
      expect(formatBytes(512)).to.equal('512 B');
      expect(formatBytes(1536)).to.equal('1.5 KiB');
      expect(formatBytes(128 * 1024 ** 3)).to.equal('128.0 GiB');
      expect(formatBytes(3 * 1024 ** 5)).to.equal('3072.0 TiB');
      for (const missing of [null, undefined, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(formatBytes(missing)).to.equal('—');
      }
    });

    it('prints a heartbeat age from seconds to days, "never" without one', () => {
      expect(formatAge(null)).to.equal('never');
      expect(formatAge(4.9)).to.equal('4 s');
      expect(formatAge(-3)).to.equal('0 s');
      expect(formatAge(200)).to.equal('3 min 20 s');
      expect(formatAge(7500)).to.equal('2 h 5 min');
      expect(formatAge(90_000)).to.equal('1 d 1 h');
    });
  });

  describe('labels and taints', () => {
    it('prints them as the CLI does', () => {
      expect(formatLabel({ key: 'zone', value: 'a' })).to.equal('zone=a');
      expect(formatLabel({ key: 'gpu', value: '' })).to.equal('gpu');
      expect(formatTaint({ key: 'maint', value: '', effect: 'NoSchedule' })).to.equal('maint:NoSchedule');
    });

    it('reads one label per line, trimming, a bare key for an empty value, skipping blank lines', () => {
      expect(parseLabels(' zone = a \n\ngpu\nurl=http://x=y\n')).to.deep.equal([
        { key: 'zone', value: 'a' },
        { key: 'gpu', value: '' },
        { key: 'url', value: 'http://x=y' },
      ]);
      expect(parseLabels('')).to.deep.equal([]);
    });

    it('reads the effect after the last colon and quotes back lines with an unknown or missing effect', () => {
      expect(parseTaints('maint=yes:NoSchedule\nhost=a:b:NoExecute\nbad:Sometimes\nnocolon\n')).to.deep.equal(
        {
          taints: [
            { key: 'maint', value: 'yes', effect: 'NoSchedule' },
            { key: 'host', value: 'a:b', effect: 'NoExecute' },
          ],
          invalid: ['bad:Sometimes', 'nocolon'],
        },
      );
      expect(parseTaints(':PreferNoSchedule')).to.deep.equal({ taints: [], invalid: [':PreferNoSchedule'] });
    });
  });
});

describe('console node recovery runs', () => {
  const event = (
    action: string,
    workflowId: string,
    occurredAt: string,
    evidence: Record<string, unknown>,
  ) => ({
    action,
    workflowId,
    occurredAt,
    temporalUiUrl: `http://ui/${workflowId}`,
    evidenceJson: JSON.stringify(evidence),
  });

  it('reads each workflow’s start and completion receipts as one run, newest first', () => {
    const runs = recoveryRuns([
      event('node.recovery.complete', 'nodeRecovery/n1/1', '2026-12-06T10:01:00Z', {
        replaced: true,
        secondsToReplaced: 12.5,
        lostAssignments: ['a', 'b'],
        deployments: [{}, {}],
      }),
      event('node.recovery.start', 'nodeRecovery/n1/1', '2026-12-06T10:00:00Z', {
        lostAssignments: ['a', 'b'],
        deployments: ['d1', 'd2'],
      }),
      event('node.recovery.start', 'nodeRecovery/n1/2', '2026-12-06T11:00:00Z', {
        lostAssignments: ['c'],
        deployments: ['d1'],
      }),
    ]);
    expect(
      runs.map((run) => [
        run.workflowId,
        run.lostReplicas,
        run.deployments,
        run.replaced,
        run.secondsToReplaced,
      ]),
    ).to.deep.equal([
      ['nodeRecovery/n1/2', 1, 1, null, null],
      ['nodeRecovery/n1/1', 2, 2, true, 12.5],
    ]);
    expect(runs[1]).to.deep.include({
      startedAt: '2026-12-06T10:00:00Z',
      completedAt: '2026-12-06T10:01:00Z',
    });
  });

  it('says a run that finished short of whole, and survives evidence it cannot read', () => {
    const [run] = recoveryRuns([
      {
        action: 'node.recovery.complete',
        workflowId: 'w',
        occurredAt: 't',
        evidenceJson: '{"replaced":false}',
      },
      { action: 'node.recovery.start', workflowId: 'w', occurredAt: 's', evidenceJson: 'not json' },
    ]);
    expect(run).to.deep.include({ replaced: false, lostReplicas: 0 });
    expect(
      recoveryRuns([
        { action: 'node.recovery.start', workflowId: null, occurredAt: 'x', evidenceJson: '{}' },
      ]),
    ).to.deep.equal([]);
  });
});
