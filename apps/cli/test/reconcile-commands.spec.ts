import { expect } from 'chai';
import { runCli } from '../src/cli';
import { captureIo, cannedApis, sentOperations } from './support';

const DRIFT = [
  {
    kind: 'DeploymentWorkflowMissing',
    target: 'dep-1',
    deploymentId: 'dep-1',
    nodeId: null,
    desired: 'deployment chat is Ready: its workflow deployment/dep-1 runs',
    observed: 'no running workflow deployment/dep-1',
    repair: 'ResumeDeploymentWorkflow',
    note: 'resumed: it places what is missing, pushes the assignments and renews their leases',
  },
  {
    kind: 'UnknownReplicaOnNode',
    target: 'asg-late',
    deploymentId: null,
    nodeId: 'node-1',
    desired: 'nothing under asg-late on spark-01',
    observed: 'spark-01 runs it at generation 1 (Ready) for deployment dep-late',
    repair: null,
    note: 'no signed assignment for it is on record to stop it with: the agent stops it when its lease ends',
  },
];

function run(dryRun: boolean, outcome: string, drift = DRIFT) {
  return {
    workflowId: dryRun ? 'reconcile/dry-run/k' : 'reconcile/k-1',
    temporalUiUrl: 'http://ui/namespaces/default/workflows/reconcile%2Fk-1',
    correlationId: 'corr-1',
    dryRun,
    inSync: drift.length === 0,
    receiptHash: dryRun ? null : 'a'.repeat(64),
    receiptSeq: dryRun ? null : 42,
    drift,
    repairs:
      drift.length === 0
        ? []
        : [
            {
              kind: 'ResumeDeploymentWorkflow',
              target: 'dep-1',
              deploymentId: 'dep-1',
              fromGeneration: null,
              toGeneration: null,
              stop: false,
              reason: 'deployment chat (Ready) has no running workflow',
              outcome,
            },
          ],
  };
}

describe('reconcile command against a canned API', () => {
  const { serve } = cannedApis();

  it('--dry-run sends dryRun, prints each drift with its repair (or why none), and exits 1 while there is drift', async () => {
    const { url, requests } = await serve({
      Reconcile: () => ({ data: { reconcileFleet: run(true, 'not applied: dry run') } }),
    });
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'reconcile', '--dry-run'], io, '0.1.0')).to.equal(1);
    expect(sentOperations(requests)[0]?.variables).to.deep.equal({ input: { dryRun: true } });
    expect(io.out()).to.match(
      /^dry run: 2 drift\(s\), 1 repair\(s\) a pass would take \(nothing changed\)$/m,
    );
    expect(io.out()).to.match(
      /^DeploymentWorkflowMissing +dep-1 +no running workflow deployment\/dep-1 +ResumeDeploymentWorkflow$/m,
    );
    expect(io.out()).to.match(/^UnknownReplicaOnNode +asg-late +.* none: no signed assignment/m);
  });

  it('a dry run of a fleet in sync exits 0 and says so', async () => {
    const { url } = await serve({
      Reconcile: () => ({ data: { reconcileFleet: run(true, 'not applied: dry run', []) } }),
    });
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'reconcile', '--dry-run'], io, '0.1.0')).to.equal(0);
    expect(io.out()).to.contain('in sync: the desired state and what runs agree');
  });

  it('a pass prints its receipt and outcomes; exits 1 when a repair could not be made', async () => {
    const { url, requests } = await serve({
      Reconcile: () => ({
        data: { reconcileFleet: run(false, 'not applied: deployment dep-1 does not exist') },
      }),
    });
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'reconcile', '--key', 'k-1'], io, '0.1.0')).to.equal(1);
    expect(sentOperations(requests)[0]?.variables).to.deep.equal({
      input: { dryRun: false, idempotencyKey: 'k-1' },
    });
    expect(io.out()).to.match(
      /^reconcile pass reconcile\/k-1: 2 drift\(s\), 1 repair\(s\), receipt #42 a{64}$/m,
    );
    const json = captureIo();
    await serve({ Reconcile: () => ({ data: { reconcileFleet: run(false, 'applied') } }) }).then(
      async (second) => {
        expect(await runCli(['--json', '--api-url', second.url, 'reconcile'], json, '0.1.0')).to.equal(0);
      },
    );
    expect(JSON.parse(json.out())).to.deep.equal(run(false, 'applied'));
  });

  it('refuses a bad --key before calling the API', async () => {
    const { url, requests } = await serve({});
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'reconcile', '--key', 'not a key!'], io, '0.1.0')).to.equal(64);
    expect(requests).to.have.length(0);
  });
});
