import './support/contract-modules';

import { expect } from 'chai';

import {
  apiTokenInputProblem,
  canManageOperators,
  newPasswordProblem,
  operatorActionEffect,
  operatorActions,
  tokenState,
} from '../src/app/pages/access/access-rules';
import { canAs } from './support/roles';

describe('console access rules', () => {
  const operator = (id: string, disabledAt: string | null = null) => ({
    id,
    username: `user-${id}`,
    role: 'operator' as const,
    disabledAt,
    createdAt: '2026-12-06T12:00:00.000Z',
  });

  it('leaves operator accounts to administrators', () => {
    expect(canManageOperators(canAs('admin'))).to.equal(true);
    expect(canManageOperators(canAs('operator'))).to.equal(false);
    expect(canManageOperators(canAs('viewer'))).to.equal(false);
  });

  it('checks a new password as the API does, and that it was typed twice the same', () => {
    expect(newPasswordProblem('short', 'short', null)).to.equal('At least 12 characters.');
    expect(newPasswordProblem('long enough pw', 'long enough pw', 'long enough pw')).to.equal(
      'The new password is the current one.',
    );
    expect(newPasswordProblem('long enough pw', 'long enough pX', null)).to.equal(
      'The two new passwords differ.',
    );
    expect(newPasswordProblem('long enough pw', 'long enough pw', 'old password 1')).to.equal(null);
  });

  it('offers no action on a disabled account or on the caller’s own, and says what each does', () => {
    expect(operatorActions(operator('a'), 'b')).to.deep.equal(['resetPassword', 'endSessions', 'disable']);
    expect(operatorActions(operator('a', '2026-12-06T13:00:00.000Z'), 'b')).to.deep.equal([]);
    expect(operatorActions(operator('a'), 'a')).to.deep.equal([]);
    expect(operatorActionEffect('disable', { username: 'pia' })).to.match(/^Disables pia: .*no re-enable\./);
    expect(operatorActionEffect('resetPassword', { username: 'pia' })).to.match(
      /ends every session of theirs/,
    );
  });

  it('shows a credential revoked, used, expired or active, in that order', () => {
    const now = new Date('2026-12-06T12:00:00.000Z');
    expect(tokenState({ revokedAt: '2026-12-01T00:00:00Z', usedAt: '2026-12-01T00:00:00Z' }, now)).to.equal(
      'Revoked',
    );
    expect(tokenState({ usedAt: '2026-12-01T00:00:00Z', expiresAt: '2026-12-02T00:00:00Z' }, now)).to.equal(
      'Used',
    );
    expect(tokenState({ expiresAt: '2026-12-06T12:00:00.000Z' }, now)).to.equal('Expired');
    expect(tokenState({ expiresAt: null }, now)).to.equal('Active');
  });

  it('checks an API token’s name and lifetime as the API does', () => {
    expect(apiTokenInputProblem('  ', 30)).to.equal('A name of 1 to 100 characters.');
    expect(apiTokenInputProblem('ci', 0)).to.equal('Expires in 1 to 365 days, or never.');
    expect(apiTokenInputProblem('ci', 366)).to.equal('Expires in 1 to 365 days, or never.');
    expect(apiTokenInputProblem('ci', null)).to.equal(null);
    expect(apiTokenInputProblem('ci', 90)).to.equal(null);
  });
});
