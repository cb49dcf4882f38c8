import { expect } from 'chai';
import {
  findDeployment,
  findModelVersion,
  insertDeployment,
  listAuditEvents,
  writeDeploymentState,
} from '@lunanexa/persistence';
import {
  dataOf,
  registerDeployableVersion,
  startTestApi,
  type GraphQLBody,
  type TestApi,
} from './api-test-support';

/**
 * A deployment's routing policy through the API on real PostgreSQL:
 * `setDeploymentRoutingPolicy` changes it (the gateways' route rows read the
 * column), is audited with before and after, and refuses an unknown policy,
 * an unknown deployment and a viewer with typed errors, changing nothing.
 */

const SET = `mutation($d: String!, $p: String!) {
  setDeploymentRoutingPolicy(deployment: $d, routingPolicy: $p) { id name routingPolicy } }`;
const READ = `query($d: String!) { deployment(deployment: $d) { routingPolicy } }`;

function codeOf(answer: GraphQLBody): string {
  return answer.errors?.[0]?.extensions.code ?? 'none';
}

describe('deployment routing policy API on real PostgreSQL', function () {
  this.timeout(300_000);
  let api: TestApi;
  let operator = '';
  let viewer = '';
  const events = async () =>
    // Newest first from the audit list; oldest first here, as they were appended.
    (
      await listAuditEvents(api.fixture.ds.manager, {
        beforeSeq: null,
        action: 'deployment.setRoutingPolicy',
        limit: 1000,
      })
    ).reverse();
  const policyRow = async () => (await findDeployment(api.fixture.ds, 'dep-chat'))?.routingPolicy;

  before(async () => {
    api = await startTestApi('routing_policy');
    operator = await api.operator('routing-operator', 'operator');
    viewer = await api.operator('routing-viewer', 'viewer');
    const ref = await registerDeployableVersion(api, operator, 'chat', 1024);
    const version = await findModelVersion(api.fixture.ds, ref);
    // The deployment row as its workflow would have written it; no workflow runs here (nothing is placed).
    const at = new Date();
    await insertDeployment(api.fixture.ds, {
      id: 'dep-chat',
      name: 'chat-prod',
      modelVersionId: version!.id,
      modelRef: ref,
      desiredReplicas: 1,
      requestedNodeId: null,
      workflowId: 'deployment/dep-chat',
      createdBy: 'test',
      createdAt: at,
      purpose: 'Serving',
      rolloutId: null,
      placementStrategy: 'Spread',
    });
    await writeDeploymentState(api.fixture.ds, {
      deploymentId: 'dep-chat',
      state: 'Ready',
      reason: null,
      at,
      observedGeneration: 1,
    });
  });

  after(async () => {
    await api?.stop();
  });

  it('a new deployment is least-loaded; an operator sets prefix-affinity by name, audited with before and after', async () => {
    expect(
      dataOf<{ routingPolicy: string }>(await api.graphql(READ, { d: 'chat-prod' }, viewer), 'deployment'),
    ).to.deep.equal({
      routingPolicy: 'least-loaded',
    });
    const set = dataOf<{ id: string; routingPolicy: string }>(
      await api.graphql(SET, { d: 'chat-prod', p: 'prefix-affinity' }, operator),
      'setDeploymentRoutingPolicy',
    );
    expect(set).to.deep.equal({ id: 'dep-chat', name: 'chat-prod', routingPolicy: 'prefix-affinity' });
    expect(await policyRow()).to.equal('prefix-affinity');
    const [event] = await events();
    expect(event).to.deep.include({ decision: 'allowed', result: 'succeeded' });
    expect(event?.evidence).to.deep.include({
      deploymentId: 'dep-chat',
      before: { routingPolicy: 'least-loaded' },
      after: { routingPolicy: 'prefix-affinity' },
    });
    dataOf(
      await api.graphql(SET, { d: 'dep-chat', p: 'round-robin' }, operator),
      'setDeploymentRoutingPolicy',
    );
    expect(await policyRow()).to.equal('round-robin');
  });

  it('refuses an unknown policy (VALIDATION_FAILED), an unknown deployment (NOT_FOUND) and a viewer (FORBIDDEN); nothing changes', async () => {
    const before = await policyRow();
    const audited = (await events()).length;
    const bad = await api.graphql(SET, { d: 'chat-prod', p: 'random' }, operator);
    expect(codeOf(bad)).to.equal('VALIDATION_FAILED');
    expect(bad.errors?.[0]?.extensions['violations']).to.deep.equal([
      { path: 'routingPolicy', message: 'must be one of round-robin, least-loaded, prefix-affinity' },
    ]);
    expect(codeOf(await api.graphql(SET, { d: 'no-such-deployment', p: 'round-robin' }, operator))).to.equal(
      'NOT_FOUND',
    );
    expect(codeOf(await api.graphql(SET, { d: 'chat-prod', p: 'least-loaded' }, viewer))).to.equal(
      'FORBIDDEN',
    );
    expect(await policyRow()).to.equal(before);
    const refusals = (await events()).slice(audited);
    expect(
      refusals.map((event) => [event.decision, event.result, event.evidence['errorCode']]),
    ).to.deep.include.members([
      ['denied', 'refused', 'VALIDATION_FAILED'],
      ['denied', 'refused', 'NOT_FOUND'],
    ]);
  });
});
