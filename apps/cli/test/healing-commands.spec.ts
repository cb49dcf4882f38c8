import { expect } from 'chai';
import { runCli } from '../src/cli';
import { captureIo, cannedApis, sentOperations } from './support';

const RULES = {
  crashLoopRestarts: 3,
  healthFailureThreshold: 6,
  nodeCrashThreshold: 5,
  nodeCrashWindowSeconds: 600,
  nodeCrashMinReplicas: 2,
  maxActionsPerPass: 3,
  cooldownSeconds: 300,
};

const RESTART = {
  rule: 'restart-crash-looping-replica',
  kind: 'RestartReplica',
  target: 'asg-dep-1-node-1',
  nodeId: 'node-1',
  deploymentId: 'dep-1',
  reason: 'replica of chat restarted 3 times since its last healing restart (threshold 3); last state Failed',
  evidenceJson: '{"restarts":3,"threshold":3}',
};

function run(dryRun: boolean, outcome: string | null) {
  return {
    workflowId: dryRun ? '' : 'healing/k-1',
    temporalUiUrl: dryRun ? '' : 'http://ui/namespaces/default/workflows/healing%2Fk-1',
    correlationId: 'corr-1',
    plan: {
      dryRun,
      rules: RULES,
      actions: [{ ...RESTART, outcome, receiptHash: outcome === null ? null : 'sha256:ab' }],
      skipped: [
        {
          rule: 'cordon-crashing-node',
          target: 'node-2',
          reason: 'node spark-02 is the last schedulable node',
        },
      ],
    },
  };
}

describe('heal command against a canned API', () => {
  const { serve } = cannedApis();

  it('--dry-run sends dryRun and prints every action and held-back candidate with its reason', async () => {
    const { url, requests } = await serve({ Heal: () => ({ data: { heal: run(true, null) } }) });
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'heal', '--dry-run', '--max-actions', '2'], io, '0.1.0')).to.equal(
      0,
    );
    expect(sentOperations(requests)[0]?.variables).to.deep.equal({
      input: { dryRun: true, rules: { maxActionsPerPass: 2 } },
    });
    expect(io.out()).to.match(/^dry run: 1 action\(s\) would be taken, 1 held back \(nothing changed\)$/m);
    expect(io.out()).to.match(
      /^restart-crash-looping-replica +asg-dep-1-node-1 +would act +replica of chat restarted 3 times/m,
    );
    expect(io.out()).to.match(
      /^cordon-crashing-node +node-2 +held back +node spark-02 is the last schedulable node$/m,
    );
  });

  it('without --dry-run runs a pass, prints outcomes, and exits 1 when an action could not be applied', async () => {
    const { url, requests } = await serve({
      Heal: () => ({ data: { heal: run(false, 'not applied: the deployment workflow is not running') } }),
    });
    const io = captureIo();
    expect(await runCli(['--api-url', url, 'heal', '--key', 'k-1'], io, '0.1.0')).to.equal(1);
    expect(sentOperations(requests)[0]?.variables).to.deep.equal({
      input: { dryRun: false, idempotencyKey: 'k-1' },
    });
    expect(io.out()).to.match(/^healing pass healing\/k-1: 1 action\(s\), 1 held back$/m);
    const json = captureIo();
    await serve({ Heal: () => ({ data: { heal: run(false, 'applied') } }) }).then(async (second) => {
      expect(await runCli(['--json', '--api-url', second.url, 'heal'], json, '0.1.0')).to.equal(0);
    });
    expect(JSON.parse(json.out())).to.deep.equal(run(false, 'applied'));
  });

  it('refuses a bad --max-actions before calling the API', async () => {
    const { url, requests } = await serve({});
    const io = captureIo();
    expect(
      await runCli(['--api-url', url, 'heal', '--dry-run', '--max-actions', 'many'], io, '0.1.0'),
    ).to.equal(64);
    expect(requests).to.have.length(0);
    expect(io.err()).to.contain('--max-actions');
  });
});
