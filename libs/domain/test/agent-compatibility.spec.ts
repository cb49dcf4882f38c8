import { expect } from 'chai';
import { AGENT_PROTOCOL_VERSION } from '@lunanexa/contracts';
import { acceptsTrustedSigningKeys, agentCompatibility, agentProtocolOf } from '../src';

describe('agent compatibility (version skew)', () => {
  it('an agent that does not report a protocol is protocol 1, outdated, and gets no trusted keys', () => {
    expect(agentProtocolOf({})).to.equal(1);
    expect(agentCompatibility({})).to.deep.equal({
      protocol: 1,
      outdated: true,
      reason: `agent protocol 1, controller ${AGENT_PROTOCOL_VERSION}: the agent does not verify artifact signatures; upgrade it`,
    });
    expect(acceptsTrustedSigningKeys(1)).to.equal(false);
  });

  it("an agent at this release's protocol is current and gets trusted keys", () => {
    expect(agentCompatibility({ agentProtocol: AGENT_PROTOCOL_VERSION })).to.deep.equal({
      protocol: AGENT_PROTOCOL_VERSION,
      outdated: false,
      reason: null,
    });
    expect(acceptsTrustedSigningKeys(AGENT_PROTOCOL_VERSION)).to.equal(true);
  });

  it('an agent newer than the controller is not outdated', () => {
    expect(agentCompatibility({ agentProtocol: AGENT_PROTOCOL_VERSION + 1 }).outdated).to.equal(false);
  });
});
