import { expect } from 'chai';
import {
  API_TOKEN_PREFIX,
  PERMISSIONS,
  ROLE_PERMISSIONS,
  ROLES,
  UsernameSchema,
  apiTokenActor,
  isRole,
  lowerRole,
  operatorActor,
  roleAtLeast,
  roleHasPermission,
  rolesWithPermission,
} from '../src/index';

describe('roles and permissions', () => {
  it('orders the roles viewer < operator < admin', () => {
    expect(ROLES).to.deep.equal(['viewer', 'operator', 'admin']);
    expect(roleAtLeast('admin', 'operator')).to.equal(true);
    expect(roleAtLeast('operator', 'operator')).to.equal(true);
    expect(roleAtLeast('viewer', 'operator')).to.equal(false);
    expect(lowerRole('admin', 'viewer')).to.equal('viewer');
    expect(lowerRole('operator', 'admin')).to.equal('operator');
  });

  it('grants each role everything the roles below it have (permissions only grow with rank)', () => {
    for (let i = 1; i < ROLES.length; i++) {
      const lower = ROLES[i - 1] ?? 'viewer';
      const higher = ROLES[i] ?? 'admin';
      for (const permission of ROLE_PERMISSIONS[lower]) {
        expect(roleHasPermission(higher, permission), `${higher} ⊇ ${lower}: ${permission}`).to.equal(true);
      }
    }
  });

  it('is the table the issue specifies', () => {
    expect(rolesWithPermission('session')).to.deep.equal(['viewer', 'operator', 'admin']);
    expect(rolesWithPermission('read')).to.deep.equal(['viewer', 'operator', 'admin']);
    expect(rolesWithPermission('operate')).to.deep.equal(['operator', 'admin']);
    expect(rolesWithPermission('administer')).to.deep.equal(['admin']);
    // Every permission is held by someone; every listed permission exists.
    for (const permission of PERMISSIONS) expect(rolesWithPermission(permission).length).to.be.greaterThan(0);
    for (const role of ROLES) {
      for (const permission of ROLE_PERMISSIONS[role]) expect(PERMISSIONS).to.include(permission);
    }
  });

  it('recognises role names exactly', () => {
    expect(isRole('admin')).to.equal(true);
    expect(isRole('Admin')).to.equal(false);
    expect(isRole('root')).to.equal(false);
    expect(isRole(undefined)).to.equal(false);
  });

  it('names actors and normalises usernames to lower case', () => {
    expect(operatorActor('alice')).to.equal('operator:alice');
    expect(apiTokenActor(`${API_TOKEN_PREFIX}abcdEFGH`)).to.equal('token:lnx_abcdEFGH');
    expect(UsernameSchema.parse('Alice.Ops')).to.equal('alice.ops');
    for (const bad of ['a', '1abc', 'has space', 'ümlaut', 'x'.repeat(65), '']) {
      expect(UsernameSchema.safeParse(bad).success, bad).to.equal(false);
    }
  });
});
