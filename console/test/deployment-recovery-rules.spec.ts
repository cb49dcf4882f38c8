import './support/contract-modules';

import { expect } from 'chai';

import {
  deploymentRecoveryRuns,
  recoveryOutcomeText,
} from '../src/app/pages/deployments/deployment-recovery-rules';

const event = (action: string, workflowId: string, occurredAt: string, evidence: unknown) => ({
  action,
  workflowId,
  occurredAt,
  temporalUiUrl: `http://ui/${workflowId}`,
  evidenceJson: JSON.stringify(evidence),
});

const NODES = [
  { id: 'node-1', name: 'spark-a' },
  { id: 'node-2', name: 'spark-b' },
];

describe('console deployment recovery rules', () => {
  const events = [
    event('node.recovery.complete', 'nodeRecovery/node-1/1', '2026-12-06T10:01:00Z', {
      nodeId: 'node-1',
      replaced: true,
      secondsToReplaced: 41.2,
      lostAssignments: ['a', 'b'],
      deployments: [
        { deploymentId: 'dep-chat', desiredReplicas: 2, readyElsewhere: 2, finished: false },
        { deploymentId: 'dep-embed', desiredReplicas: 1, readyElsewhere: 1, finished: false },
      ],
    }),
    event('node.recovery.start', 'nodeRecovery/node-1/1', '2026-12-06T10:00:00Z', {
      nodeId: 'node-1',
      lostAssignments: ['a', 'b'],
      deployments: ['dep-chat', 'dep-embed'],
    }),
    event('node.recovery.start', 'nodeRecovery/node-2/1', '2026-12-06T11:00:00Z', {
      nodeId: 'node-2',
      lostAssignments: ['c'],
      deployments: ['dep-embed'],
    }),
    event('node.recovery.start', 'nodeRecovery/node-9/1', '2026-12-06T12:00:00Z', {
      nodeId: 'node-9',
      lostAssignments: ['d'],
      deployments: ['dep-chat'],
    }),
  ];

  it('keeps the runs whose receipts name the deployment, with the lost node and its own progress', () => {
    const runs = deploymentRecoveryRuns(events, 'dep-chat', NODES);
    expect(
      runs.map((run) => [run.workflowId, run.nodeName, run.readyElsewhere, run.desiredReplicas]),
    ).to.deep.equal([
      // A node no longer on record is named by its id.
      ['nodeRecovery/node-9/1', 'node-9', null, null],
      ['nodeRecovery/node-1/1', 'spark-a', 2, 2],
    ]);
    expect(runs.map(recoveryOutcomeText)).to.deep.equal(['recovering…', '2 of 2 Ready elsewhere in 41 s']);
    expect(deploymentRecoveryRuns(events, 'dep-embed', NODES).map((run) => run.nodeName)).to.deep.equal([
      'spark-b',
      'spark-a',
    ]);
    expect(deploymentRecoveryRuns(events, 'dep-other', NODES)).to.deep.equal([]);
  });

  it('says when a run gave up short of whole', () => {
    const [run] = deploymentRecoveryRuns(
      [
        event('node.recovery.complete', 'w', '2026-12-06T10:05:00Z', {
          nodeId: 'node-1',
          replaced: false,
          secondsToReplaced: null,
          deployments: [{ deploymentId: 'dep-chat', desiredReplicas: 2, readyElsewhere: 1, finished: false }],
        }),
      ],
      'dep-chat',
      NODES,
    );
    expect(run === undefined ? '' : recoveryOutcomeText(run)).to.equal(
      '1 of 2 Ready elsewhere when it gave up',
    );
  });
});
