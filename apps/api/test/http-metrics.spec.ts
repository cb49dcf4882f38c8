import { expect } from 'chai';
import { AGENT_HTTP_PATHS } from '@lunanexa/agent-protocol';
import { UNMATCHED_ROUTE } from '@lunanexa/observability';
import { routeLabel } from '../src/metrics/http-metrics';

describe('api HTTP metrics route label', () => {
  it('labels the agent endpoints on their own, so heartbeat ingest time is its own series', () => {
    expect(routeLabel(AGENT_HTTP_PATHS.heartbeat, false)).to.equal('/agent/v1/heartbeat');
    expect(routeLabel(`${AGENT_HTTP_PATHS.enroll}?x=1`, false)).to.equal('/agent/v1/enroll');
  });

  it('keeps any other path out of the label set (bounded cardinality)', () => {
    expect(routeLabel('/agent/v1/heartbeat/extra', false)).to.equal(UNMATCHED_ROUTE);
    expect(routeLabel('/random-scan', false)).to.equal(UNMATCHED_ROUTE);
    expect(routeLabel('/random-scan', true)).to.equal('console');
  });
});
