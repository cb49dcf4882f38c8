import './support/contract-modules';

import { expect } from 'chai';

import {
  TENANT_ID_PATTERN,
  allowlistEffect,
  canSetDataPolicy,
  canSetRuntimeAllowed,
  retentionText,
  signingKeyInputProblem,
  canManageSigningKeys,
} from '../src/app/pages/policies/policy-rules';
import { canAs } from './support/roles';

describe('console policy rules', () => {
  it('leaves data policies and the runtime allowlist to administrators', () => {
    expect(canSetDataPolicy(canAs('admin'))).to.equal(true);
    expect(canSetDataPolicy(canAs('operator'))).to.equal(false);
    expect(canSetRuntimeAllowed(canAs('admin'))).to.equal(true);
    expect(canSetRuntimeAllowed(canAs('operator'))).to.equal(false);
  });

  it('says how long payloads are kept', () => {
    expect(retentionText({ retentionMode: 'days', retentionDays: 30 })).to.equal(
      'kept 30 days, then deleted with a receipt',
    );
    expect(retentionText({ retentionMode: 'days', retentionDays: 1 })).to.equal(
      'kept 1 day, then deleted with a receipt',
    );
    expect(retentionText({ retentionMode: 'none', retentionDays: null })).to.equal('never kept');
    // A mode this console does not know yet is shown as the API sent it.
    expect(retentionText({ retentionMode: 'forever', retentionDays: null })).to.equal('forever');
  });

  it('states what changing a runtime allowlist flag does', () => {
    expect(allowlistEffect({ name: 'vllm', version: '0.6.0', allowed: true })).to.match(
      /^Takes vllm 0\.6\.0 off the runtime allowlist: no rollout may move an alias to a version on it\. /,
    );
    expect(allowlistEffect({ name: 'vllm', version: '0.6.0', allowed: false })).to.equal(
      'Puts vllm 0.6.0 on the runtime allowlist: versions on it may be rolled out once approved.',
    );
  });

  it('takes opaque tenant ids, as the gateway does', () => {
    expect(TENANT_ID_PATTERN.test('default')).to.equal(true);
    expect(TENANT_ID_PATTERN.test('bad id')).to.equal(false);
  });
});

describe('console signing key rules', () => {
  const PEM =
    '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----';

  it('leaves signing keys to administrators', () => {
    expect(canManageSigningKeys(canAs('admin'))).to.equal(true);
    expect(canManageSigningKeys(canAs('operator'))).to.equal(false);
  });

  it('takes a PEM or the base64 of 32 raw bytes, with a label, and says what is wrong otherwise', () => {
    expect(signingKeyInputProblem('release pipeline', PEM)).to.equal(null);
    expect(signingKeyInputProblem('ci', `${'A'.repeat(43)}=`)).to.equal(null);
    expect(signingKeyInputProblem('', PEM)).to.equal('A label of 1 to 200 characters.');
    expect(signingKeyInputProblem('tab\there', PEM)).to.equal(
      'The label may not contain control characters.',
    );
    expect(signingKeyInputProblem('ci', 'not a key')).to.match(/^An Ed25519 public key/);
  });
});
