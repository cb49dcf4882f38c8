import { expect } from 'chai';
import { runCli } from '../src/cli';
import { deployCreateCommand } from '../src/commands/deployments';
import { commandContext } from '../src/context';
import type { Deployment } from '../src/fleet-api';
import {
  ACTIVE_NODE,
  BOOTSTRAP_TOKEN,
  CREATED_TOKEN,
  MODEL_VERSION,
  PLACING_DEPLOYMENT,
  READY_DEPLOYMENT,
} from './fleet-fixtures';
import { captureIo, cannedApis, graphqlRoute, sentOperations, type GraphQLHandlers } from './support';

const OPERATION = {
  workflowId: 'deployment/dep-5e1c0a9b3f2d4e6a',
  temporalUiUrl: READY_DEPLOYMENT.temporalUiUrl,
  correlationId: 'corr-7',
  deploymentId: READY_DEPLOYMENT.id,
};

describe('fleet commands against a canned API', () => {
  const { serve, serveRoutes } = cannedApis();

  describe('node', () => {
    it('lists nodes as a table, and as the API array with --json before or after the command', async () => {
      const { url } = await serve({ Nodes: () => ({ data: { nodes: [ACTIVE_NODE] } }) });
      const text = captureIo();
      expect(await runCli(['--api-url', url, 'node', 'list'], text, '0.1.0')).to.equal(0);
      expect(text.out()).to.match(
        /^spark-01 {2}Active {5}Ready {6}no {8}1x NVIDIA GB10 {2}\S+ ago +1\/2 +0\.2\.0$/m,
      );
      for (const argv of [
        ['--json', '--api-url', url, 'node', 'list'],
        ['node', 'list', '--json', '--api-url', url],
      ]) {
        const io = captureIo();
        expect(await runCli(argv, io, '0.1.0'), argv.join(' ')).to.equal(0);
        expect(JSON.parse(io.out())).to.deep.equal([ACTIVE_NODE]);
      }
    });

    it('turns an unknown node (null) into NOT_FOUND, exit 1', async () => {
      const { url, requests } = await serve({ Node: () => ({ data: { node: null } }) });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'node', 'get', 'nope'], io, '0.1.0')).to.equal(1);
      expect(io.out()).to.equal('');
      expect(io.err()).to.equal(
        `error[NOT_FOUND]: node nope does not exist (request ${String(requests[0]?.headers['x-request-id'])})\n`,
      );
    });

    it('replaces labels with exactly the pairs given, and clears them only with --none', async () => {
      const { url, requests } = await serve({
        SetNodeLabels: (variables) => ({
          data: { setNodeLabels: { ...ACTIVE_NODE, labels: variables['labels'] } },
        }),
      });
      const io = captureIo();
      expect(
        await runCli(['--api-url', url, 'node', 'label', 'spark-01', 'gpu=gb10', 'rack='], io, '0.1.0'),
      ).to.equal(0);
      expect(io.out()).to.equal('node spark-01 labels: gpu=gb10, rack=\n');
      expect(
        await runCli(['--api-url', url, 'node', 'label', 'spark-01', '--none'], captureIo(), '0.1.0'),
      ).to.equal(0);
      expect(sentOperations(requests).map((operation) => operation.variables)).to.deep.equal([
        {
          node: 'spark-01',
          labels: [
            { key: 'gpu', value: 'gb10' },
            { key: 'rack', value: '' },
          ],
        },
        { node: 'spark-01', labels: [] },
      ]);
    });

    it('sends taints as key, value and effect', async () => {
      const { url, requests } = await serve({
        SetNodeTaints: (variables) => ({
          data: { setNodeTaints: { ...ACTIVE_NODE, taints: variables['taints'] } },
        }),
      });
      const io = captureIo();
      expect(
        await runCli(
          ['--api-url', url, 'node', 'taint', 'spark-01', 'maintenance=true:NoSchedule', 'gpu:NoExecute'],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(io.out()).to.equal('node spark-01 taints: maintenance=true:NoSchedule, gpu:NoExecute\n');
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        node: 'spark-01',
        taints: [
          { key: 'maintenance', value: 'true', effect: 'NoSchedule' },
          { key: 'gpu', value: '', effect: 'NoExecute' },
        ],
      });
    });

    it('cordons and uncordons', async () => {
      const { url, requests } = await serve({
        CordonNode: () => ({ data: { node: { ...ACTIVE_NODE, cordoned: true } } }),
        UncordonNode: () => ({ data: { node: ACTIVE_NODE } }),
      });
      const cordon = captureIo();
      expect(await runCli(['--api-url', url, 'node', 'cordon', 'spark-01'], cordon, '0.1.0')).to.equal(0);
      expect(cordon.out()).to.contain('node spark-01 cordoned');
      const uncordon = captureIo();
      expect(
        await runCli(['--json', '--api-url', url, 'node', 'uncordon', 'spark-01'], uncordon, '0.1.0'),
      ).to.equal(0);
      expect(JSON.parse(uncordon.out())).to.deep.include({ node: ACTIVE_NODE });
      expect(sentOperations(requests).map((operation) => operation.name)).to.deep.equal([
        'CordonNode',
        'UncordonNode',
      ]);
    });

    it('drains with --timeout in seconds, printing receipt, workflow and Temporal link', async () => {
      const drained = {
        workflowId: 'drain-node/node-01JD3K5Q8Y7Z/k1',
        temporalUiUrl:
          'http://127.0.0.1:8233/namespaces/lunanexa/workflows/drain-node%2Fnode-01JD3K5Q8Y7Z%2Fk1/history',
        correlationId: 'corr-9',
        receiptHash: 'b'.repeat(64),
        replicasAtStart: 2,
        inFlightAtStart: 3,
        inFlightAtTimeout: 0,
        node: { ...ACTIVE_NODE, lifecycle: 'Drained', cordoned: true },
      };
      // Answers after 200 ms: longer than a --timeout of 30 would allow if it were read as milliseconds.
      const api = await serveRoutes({
        'POST /graphql': (request) => ({
          ...graphqlRoute({ DrainNode: () => ({ data: { drainNode: drained } }) })(request),
          delayMs: 200,
        }),
      });
      const io = captureIo();
      expect(
        await runCli(
          ['--api-url', api.url, 'node', 'drain', 'spark-01', '--timeout', '30', '--key', 'k1'],
          io,
          '0.1.0',
        ),
        io.err(),
      ).to.equal(0);
      expect(sentOperations(api.requests)[0]?.variables).to.deep.equal({
        node: 'spark-01',
        timeoutSeconds: 30,
        idempotencyKey: 'k1',
      });
      expect(io.out()).to.contain(`receipt             ${'b'.repeat(64)}\n`);
      expect(io.out()).to.contain(`workflow            ${drained.workflowId}\n`);
      expect(io.out()).to.contain(`temporal ui         ${drained.temporalUiUrl}\n`);
    });

    it('sends --force and --reason, and a refused drain exits 1 naming the stranded deployment', async () => {
      const api = await serveRoutes({
        'POST /graphql': graphqlRoute({
          DrainNode: () => ({
            code: 'DRAIN_WOULD_STRAND_REPLICAS',
            message: 'draining would strand 1 replica(s) with nowhere to go (chat)',
          }),
        }),
      });
      const io = captureIo();
      const argv = ['--api-url', api.url, 'node', 'drain', 'spark-01', '--force', '--reason', 'psu swap'];
      expect(await runCli(argv, io, '0.1.0')).to.equal(1);
      expect(io.err()).to.match(/^error\[DRAIN_WOULD_STRAND_REPLICAS\]: draining would strand .*\(chat\)/);
      expect(sentOperations(api.requests)[0]?.variables).to.deep.include({ force: true, reason: 'psu swap' });
    });

    it('still applies the global --timeout given before the command to a drain', async () => {
      const api = await serveRoutes({ 'POST /graphql': () => ({ status: 200, body: '', hang: true }) });
      const io = captureIo();
      expect(
        await runCli(['--timeout', '150', '--api-url', api.url, 'node', 'drain', 'spark-01'], io, '0.1.0'),
      ).to.equal(69);
      expect(io.err()).to.contain('no answer within 150 ms');
      expect(sentOperations(api.requests)[0]?.variables).to.deep.include({
        timeoutSeconds: 60,
        idempotencyKey: null,
      });
    });
  });

  describe('node token', () => {
    it('creates a token with labels, TTL, node name and auto-approve; --json carries the token for scripts', async () => {
      const { url, requests } = await serve({
        CreateBootstrapToken: () => ({ data: { createBootstrapToken: CREATED_TOKEN } }),
      });
      const io = captureIo();
      const argv = ['--json', '--api-url', url, 'node', 'token', 'create', '--node-name', 'spark-02'];
      argv.push('--label', 'rack=r2', '--label', 'zone=a', '--ttl', '600', '--auto-approve');
      expect(await runCli(argv, io, '0.1.0')).to.equal(0);
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        input: {
          autoApprove: true,
          ttlSeconds: 600,
          nodeName: 'spark-02',
          labels: [
            { key: 'rack', value: 'r2' },
            { key: 'zone', value: 'a' },
          ],
        },
      });
      expect(JSON.parse(io.out())).to.deep.include({
        token: CREATED_TOKEN.token,
        agentInvocation: CREATED_TOKEN.agentInvocation,
      });
    });

    it('exits 77 when the caller may not administer tokens', async () => {
      const { url } = await serve({
        CreateBootstrapToken: () => ({ code: 'FORBIDDEN', message: 'bootstrap tokens need the admin role' }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'node', 'token', 'create'], io, '0.1.0')).to.equal(77);
      expect(io.err()).to.match(/^error\[FORBIDDEN\]: bootstrap tokens need the admin role \(request /);
    });

    it('lists and revokes', async () => {
      const revoked = { ...BOOTSTRAP_TOKEN, revokedAt: '2025-11-20T09:20:00.000Z' };
      const { url, requests } = await serve({
        BootstrapTokens: () => ({ data: { bootstrapTokens: [BOOTSTRAP_TOKEN] } }),
        RevokeBootstrapToken: () => ({ data: { revokeBootstrapToken: revoked } }),
      });
      const list = captureIo();
      expect(await runCli(['--api-url', url, 'node', 'token', 'list'], list, '0.1.0')).to.equal(0);
      expect(list.out()).to.contain(BOOTSTRAP_TOKEN.prefix);
      const revoke = captureIo();
      expect(
        await runCli(['--api-url', url, 'node', 'token', 'revoke', BOOTSTRAP_TOKEN.id], revoke, '0.1.0'),
      ).to.equal(0);
      expect(revoke.out()).to.equal(
        `bootstrap token lnxb_Zk3p9QaB… (${BOOTSTRAP_TOKEN.id}) revoked at 2025-11-20T09:20:00.000Z\n`,
      );
      expect(sentOperations(requests)[1]?.variables).to.deep.equal({ id: BOOTSTRAP_TOKEN.id });
    });
  });

  describe('model', () => {
    it('registers name@version on the fake runtime with its timing options', async () => {
      const { url, requests } = await serve({
        RegisterModelVersion: () => ({ data: { registerModelVersion: MODEL_VERSION } }),
      });
      const io = captureIo();
      expect(
        await runCli(
          ['--api-url', url, 'model', 'register', 'demo@v1', '--ttft-ms', '50', '--tokens-per-second', '200'],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        input: { model: 'demo', version: 'v1', runtime: 'fake', ttftMs: 50, tokensPerSecond: 200 },
      });
      expect(io.out()).to.contain('registered  demo@v1\n');
    });

    it('exits 1 on CONFLICT', async () => {
      const { url } = await serve({
        RegisterModelVersion: () => ({ code: 'CONFLICT', message: 'demo@v1 is already registered' }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'model', 'register', 'demo@v1'], io, '0.1.0')).to.equal(1);
      expect(io.err()).to.match(/^error\[CONFLICT\]: demo@v1 is already registered/);
    });
  });

  describe('deploy', () => {
    function polling(states: readonly Deployment[]): GraphQLHandlers {
      let poll = 0;
      return {
        CreateDeployment: () => ({ data: { createDeployment: { ...OPERATION, deployment: null } } }),
        Deployment: () => ({ data: { deployment: states[Math.min(poll++, states.length - 1)] ?? null } }),
      };
    }

    it('creates a deployment and prints its workflow and Temporal link', async () => {
      const { url, requests } = await serve(polling([]));
      const io = captureIo();
      expect(
        await runCli(
          [
            '--api-url',
            url,
            'deploy',
            'create',
            'chat',
            '--model',
            'demo@v1',
            '--purpose',
            'candidate',
            '--node',
            'spark-01',
            '--replicas',
            '2',
          ],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        input: { name: 'chat', model: 'demo@v1', purpose: 'Candidate', replicas: 2, node: 'spark-01' },
      });
      expect(io.out()).to.contain('purpose         Candidate\n');
      expect(io.out()).to.contain(`workflow        ${OPERATION.workflowId}\n`);
      expect(io.out()).to.contain(`temporal ui     ${OPERATION.temporalUiUrl}\n`);
    });

    it('--wait polls until Ready and exits 0', async () => {
      const { url, requests } = await serve(
        polling([{ ...READY_DEPLOYMENT, state: 'Placing' }, READY_DEPLOYMENT]),
      );
      const io = captureIo();
      const ctx = commandContext({ apiUrl: url }, io, '0.1.0');
      expect(await deployCreateCommand(ctx, 'chat', { model: 'demo@v1', wait: true }, 10)).to.equal(0);
      expect(io.err()).to.equal('waiting for deployment chat: Placing, 1/1 ready\n');
      expect(io.out()).to.contain('state        Ready\n');
      expect(sentOperations(requests).map((operation) => operation.name)).to.deep.equal([
        'CreateDeployment',
        'Deployment',
        'Deployment',
      ]);
      expect(sentOperations(requests)[1]?.variables).to.deep.equal({ deployment: OPERATION.deploymentId });
    });

    it('--wait through runCli prints the Ready deployment as JSON', async () => {
      const { url } = await serve(polling([READY_DEPLOYMENT]));
      const io = captureIo();
      expect(
        await runCli(
          ['--json', '--api-url', url, 'deploy', 'create', 'chat', '--model', 'demo@v1', '--wait'],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(JSON.parse(io.out())).to.deep.include({
        deployment: READY_DEPLOYMENT,
        deploymentId: OPERATION.deploymentId,
      });
      expect(io.err()).to.equal('');
    });

    it('--wait exits 1 with DEPLOYMENT_FAILED when the deployment fails', async () => {
      const failed = {
        ...READY_DEPLOYMENT,
        state: 'Failed',
        stateReason: 'runtime exited with code 3',
        readyReplicas: 0,
      };
      const { url } = await serve(polling([PLACING_DEPLOYMENT, failed]));
      const io = captureIo();
      const ctx = commandContext({ apiUrl: url }, io, '0.1.0');
      const error = await deployCreateCommand(ctx, 'chat', { model: 'demo@v1', wait: true }, 10).then(
        () => undefined,
        (thrown: unknown) => thrown as { code: string; message: string; exitCode: number },
      );
      expect(error).to.deep.include({
        code: 'DEPLOYMENT_FAILED',
        message: 'deployment chat is Failed (runtime exited with code 3)',
        exitCode: 1,
      });
    });

    it('--wait gives up after --wait-timeout with DEADLINE_EXCEEDED (exit 75) and the last state seen', async () => {
      const { url } = await serve(polling([PLACING_DEPLOYMENT]));
      const io = captureIo();
      const argv = [
        '--api-url',
        url,
        'deploy',
        'create',
        'big',
        '--model',
        'demo@v2',
        '--wait',
        '--wait-timeout',
        '1',
      ];
      expect(await runCli(argv, io, '0.1.0')).to.equal(75);
      expect(io.err()).to.contain(
        'error[DEADLINE_EXCEEDED]: deployment big was not Ready within 1 s (last state Placing (NoEligibleNode: 2 nodes filtered (1 cordoned, 1 not Active)))',
      );
    });

    it('asks for a Serving deployment by default; the deploy gate refuses an unevaluated version with its code (exit 1)', async () => {
      const { url, requests } = await serve({
        CreateDeployment: () => ({
          code: 'EVALUATION_NOT_PASSED',
          message: 'demo@v1: no evaluation has run; to evaluate it, deploy it with purpose Candidate',
        }),
      });
      const io = captureIo();
      expect(
        await runCli(['--api-url', url, 'deploy', 'create', 'chat', '--model', 'demo@v1'], io, '0.1.0'),
      ).to.equal(1);
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        input: { name: 'chat', model: 'demo@v1', purpose: 'Serving', replicas: 1 },
      });
      expect(io.err()).to.match(/^error\[EVALUATION_NOT_PASSED\]: demo@v1: no evaluation has run/);
    });

    it('sends --strategy binpack as the placement strategy, and refuses an unknown one before calling', async () => {
      const { url, requests } = await serve(polling([]));
      const io = captureIo();
      expect(
        await runCli(
          ['--api-url', url, 'deploy', 'create', 'chat', '--model', 'demo@v1', '--strategy', 'BinPack'],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        input: {
          name: 'chat',
          model: 'demo@v1',
          purpose: 'Serving',
          placementStrategy: 'Binpack',
          replicas: 1,
        },
      });
      const bad = captureIo();
      expect(
        await runCli(
          ['--api-url', url, 'deploy', 'create', 'chat', '--model', 'demo@v1', '--strategy', 'random'],
          bad,
          '0.1.0',
        ),
      ).to.equal(64);
      expect(bad.err()).to.contain('--strategy must be spread or binpack');
    });

    it('maps MODEL_NOT_FOUND to exit 1', async () => {
      const { url } = await serve({
        CreateDeployment: () => ({
          code: 'MODEL_NOT_FOUND',
          message: 'model version missing@v1 is not registered',
        }),
      });
      const io = captureIo();
      expect(
        await runCli(['--api-url', url, 'deploy', 'create', 'x', '--model', 'missing@v1'], io, '0.1.0'),
      ).to.equal(1);
      expect(io.err()).to.match(/^error\[MODEL_NOT_FOUND\]: model version missing@v1 is not registered/);
    });

    it('gets, lists and stops deployments; an unknown one is NOT_FOUND', async () => {
      const { url } = await serve({
        Deployments: () => ({ data: { deployments: [READY_DEPLOYMENT, PLACING_DEPLOYMENT] } }),
        Deployment: (variables) => ({
          data: { deployment: variables['deployment'] === 'chat' ? READY_DEPLOYMENT : null },
        }),
        StopDeployment: () => ({
          data: { stopDeployment: { ...OPERATION, deployment: { ...READY_DEPLOYMENT, state: 'Stopped' } } },
        }),
      });
      const list = captureIo();
      expect(await runCli(['--api-url', url, 'deploy', 'list'], list, '0.1.0')).to.equal(0);
      expect(list.out()).to.match(/^big {3}demo@v2 {2}Placing {2}0\/2/m);
      const get = captureIo();
      expect(await runCli(['--api-url', url, 'deploy', 'get', 'chat'], get, '0.1.0')).to.equal(0);
      expect(get.out()).to.contain('model        demo@v1\n');
      expect(get.out()).to.contain('purpose      Candidate\n');
      const missing = captureIo();
      expect(await runCli(['--api-url', url, 'deploy', 'get', 'nope'], missing, '0.1.0')).to.equal(1);
      expect(missing.err()).to.match(/^error\[NOT_FOUND\]: deployment nope does not exist/);
      const stop = captureIo();
      expect(await runCli(['--api-url', url, 'deploy', 'stop', 'chat'], stop, '0.1.0')).to.equal(0);
      expect(stop.out()).to.contain('state           Stopped\n');
    });
  });

  describe('placement', () => {
    const PLAN = {
      strategy: 'Binpack',
      replicas: 2,
      chosen: [
        {
          node: 'spark-02',
          reason: 'eligible and its hardware fits one replica; Binpack rank 1 of 2 eligible',
        },
      ],
      rejected: [
        { node: 'spark-01', reasons: ['cordoned'] },
        {
          node: 'spark-03',
          reasons: ['memory: 4.0 GiB free of 103.4 GiB with 4 replica(s) placed, the replica needs 24.0 GiB'],
        },
      ],
      unplaced: 1,
    };

    it('plan prints every node with its verdict and reason, sends the options, and exits 1 when a replica stays unplaced', async () => {
      const { url, requests } = await serve({ PlacementPlan: () => ({ data: { placementPlan: PLAN } }) });
      const io = captureIo();
      expect(
        await runCli(
          [
            '--api-url',
            url,
            'placement',
            'plan',
            '--model',
            'demo@v1',
            '--replicas',
            '2',
            '--strategy',
            'binpack',
          ],
          io,
          '0.1.0',
        ),
      ).to.equal(1);
      expect(sentOperations(requests)[0]?.variables).to.deep.equal({
        input: { model: 'demo@v1', replicas: 2, placementStrategy: 'Binpack' },
      });
      expect(io.out()).to.match(
        /^Binpack: 1 of 2 replica\(s\) placed, 1 unplaced \(dry run: nothing changed\)$/m,
      );
      expect(io.out()).to.match(
        /^spark-02 +chosen +eligible and its hardware fits one replica; Binpack rank 1 of 2 eligible$/m,
      );
      expect(io.out()).to.match(/^spark-03 +passed over +memory: 4\.0 GiB free/m);
      const json = captureIo();
      expect(
        await runCli(['--json', '--api-url', url, 'placement', 'plan', '--model', 'demo@v1'], json, '0.1.0'),
      ).to.equal(1);
      expect(JSON.parse(json.out())).to.deep.equal(PLAN);
    });
  });
});
