import { expect } from 'chai';
import { AGENT_PROTOCOL_VERSION, ErrorCode } from '@lunanexa/contracts';
import { agentCompatibility, agentProtocolOf, refusedTrustedSigningKeys } from '../src';

describe('agent compatibility (version skew)', () => {
  const unrecognized = {
    code: ErrorCode.VALIDATION_FAILED,
    violations: [{ message: 'Unrecognized key: "trustedSigningKeys"' }],
  };

  it('an agent that does not report a protocol is protocol 1 and outdated', () => {
    expect(agentProtocolOf({})).to.equal(1);
    expect(agentCompatibility({})).to.deep.equal({
      protocol: 1,
      outdated: true,
      reason: `the agent does not report its protocol (release 0.1.0 or older), the controller speaks ${AGENT_PROTOCOL_VERSION}: upgrade it`,
    });
  });

  it("an agent at this release's protocol is current; one newer is not outdated", () => {
    expect(agentCompatibility({ agentProtocol: AGENT_PROTOCOL_VERSION })).to.deep.equal({
      protocol: AGENT_PROTOCOL_VERSION,
      outdated: false,
      reason: null,
    });
    expect(agentCompatibility({ agentProtocol: AGENT_PROTOCOL_VERSION + 1 }).outdated).to.equal(false);
  });

  it('only a protocol-1 agent refusing the trustedSigningKeys field counts as the pre-signature refusal', () => {
    expect(refusedTrustedSigningKeys(1, unrecognized)).to.equal(true);
    expect(refusedTrustedSigningKeys(2, unrecognized)).to.equal(false);
    expect(refusedTrustedSigningKeys(1, { ...unrecognized, code: ErrorCode.SIGNATURE_INVALID })).to.equal(
      false,
    );
    expect(
      refusedTrustedSigningKeys(1, {
        code: ErrorCode.VALIDATION_FAILED,
        violations: [{ message: 'Required' }],
      }),
    ).to.equal(false);
  });
});
