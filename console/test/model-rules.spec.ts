import './support/contract-modules';

import { MODEL_VERSION_STATES } from '@lunanexa/contracts';
import { allowedEvents, modelVersionLifecycle } from '@lunanexa/domain';
import { expect } from 'chai';

import {
  aliasesServing,
  bytesText,
  canCreateModelVersion,
  hardwareText,
  isApproved,
  retirementMode,
  parameterText,
  runtimeMismatches,
  shortDigest,
  versionActionEffect,
  versionActions,
} from '../src/app/pages/models/model-rules';
import { canAs } from './support/roles';

type Hardware = Parameters<typeof hardwareText>[0];
type Effected = Parameters<typeof versionActionEffect>[1];
type AliasUse = Parameters<typeof aliasesServing>[1][number];

const hardware = (overrides: Partial<Hardware> = {}): Hardware => ({
  architectures: ['arm64'],
  memoryModels: ['unified'],
  minComputeCapability: '8.0',
  maxComputeCapability: null,
  minCudaVersion: '12.1',
  gpusPerReplica: 1,
  minMemoryBytesPerReplica: null,
  ...overrides,
});

const alias = (name: string, current: string | null, canary: string | null): AliasUse => ({
  id: `alias-${name}`,
  name,
  currentRevision: 3,
  canaryWeight: 10,
  current: current === null ? null : { revision: 3, modelRef: current },
  activeRollout: canary === null ? null : { id: 'r-1', modelRef: canary, state: 'Canary' },
});

describe('console model rules', () => {
  describe('version actions', () => {
    const view = (state: string, allowedEvents: string[], role: 'viewer' | 'operator' | 'admin') =>
      Object.fromEntries(
        versionActions({ ref: 'chat@1', state, allowedEvents }, canAs(role)).map((action) => [
          action.action,
          action,
        ]),
      );

    it("enables what the version's allowed events say, with the reason for the rest", () => {
      const evaluated = view('Evaluated', ['approve', 'startEvaluation', 'retire'], 'admin');
      expect(evaluated['approve']).to.include({ offered: true, enabled: true });
      expect(evaluated['evaluate']).to.include({ offered: true, enabled: true });
      expect(evaluated['deprecate']).to.deep.include({
        enabled: false,
        reason: 'chat@1 is Evaluated; only an Approved version is deprecated',
      });
      expect(evaluated['verify']).to.include({ enabled: true });
    });

    it('never verifies a retired version again', () => {
      expect(view('Retired', [], 'admin')['verify']).to.deep.include({
        enabled: false,
        reason: 'chat@1 is Retired; a retired version is never verified again',
      });
    });

    it('offers reinstate, retire and withdraw exactly where the lifecycle in libs/domain allows them', () => {
      for (const state of MODEL_VERSION_STATES) {
        const events: string[] = allowedEvents(modelVersionLifecycle, state);
        const actions = view(state, events, 'operator');
        expect(actions['reinstate'] !== undefined, `${state} reinstate`).to.equal(
          events.includes('reinstate'),
        );
        const leaves = events.includes('retire') || events.includes('withdraw');
        expect(actions['retire'] !== undefined, `${state} retire`).to.equal(leaves);
        const mode = retirementMode({ allowedEvents: events }, false);
        expect(mode === null).to.equal(!leaves);
        if (mode !== null) {
          // Retire when the lifecycle allows it; the withdrawal only where it is the one way out, or chosen.
          expect(mode.withdraw, state).to.equal(!events.includes('retire'));
          expect(actions['retire']?.label).to.equal(events.includes('retire') ? 'Retire' : 'Withdraw');
        }
      }
      expect(retirementMode({ allowedEvents: ['reinstate', 'retire', 'withdraw'] }, true)).to.deep.equal({
        withdraw: true,
        choice: true,
      });
      expect(view('Retired', [], 'viewer')['retire']).to.equal(undefined);
      expect(view('Deprecated', ['reinstate', 'retire', 'withdraw'], 'viewer')['retire']).to.include({
        offered: false,
      });
    });

    it("offers each control by the role's permission: operators run the registry, viewers only read", () => {
      const operator = view('Evaluated', ['approve'], 'operator');
      expect(Object.values(operator).every((action) => action.offered)).to.equal(true);
      expect(operator['evaluate']).to.deep.include({
        enabled: false,
        reason: 'chat@1 is Evaluated; only Verified, Evaluated or EvaluationFailed versions are evaluated',
      });
      expect(Object.values(view('Evaluated', ['approve'], 'viewer')).some((a) => a.offered)).to.equal(false);
      expect(canCreateModelVersion(canAs('operator'))).to.equal(true);
      expect(canCreateModelVersion(canAs('viewer'))).to.equal(false);
    });
  });

  it('states what approving and deprecating mean', () => {
    const version: Effected = {
      ref: 'chat@2',
      license: { name: 'Apache-2.0', approvalState: 'Approved' },
      evaluation: { suite: 'smoke', passed: false },
    } as Effected;
    expect(versionActionEffect('approve', version)).to.equal(
      'Approves chat@2 for rollouts: any alias may then be moved to it (license Apache-2.0 is Approved). ' +
        'Its latest evaluation (smoke) failed.',
    );
    expect(versionActionEffect('approve', { ...version, evaluation: null })).to.match(
      /It has no evaluation on record\.$/,
    );
    expect(versionActionEffect('deprecate', version)).to.match(/^Deprecates chat@2: aliases that serve it/);
    expect(versionActionEffect('retire', version, [{ alias: 'chat', how: 'current revision 3' }])).to.equal(
      'Retires chat@2 for good: it is never served, verified or rolled out again, and cannot be reinstated. ' +
        'Serving it now: chat (current revision 3).',
    );
    expect(versionActionEffect('reinstate', version)).to.equal(
      'Reinstates chat@2 to Approved: rollouts may target it again. No alias serves it.',
    );
    expect(isApproved({ state: 'Approved' })).to.equal(true);
    expect(isApproved({ state: 'Deprecated' })).to.equal(false);
  });

  it('prints sizes and parameter counts, with a dash for none', () => {
    expect(bytesText(1_500_000_000)).to.equal('1.4 GiB');
    expect(bytesText(0)).to.equal('0 B');
    expect(bytesText(null)).to.equal('—');
    expect(parameterText(7_241_732_096)).to.equal('7.2 B');
    expect(parameterText(124_000_000)).to.equal('124 M');
    expect(parameterText(null)).to.equal('—');
  });

  it('describes hardware requirements in one line', () => {
    expect(hardwareText(hardware())).to.equal(
      '1 GPU per replica, compute capability 8.0+, CUDA 12.1+, arm64, unified memory',
    );
    expect(
      hardwareText(
        hardware({
          gpusPerReplica: 2,
          maxComputeCapability: '9.0',
          minCudaVersion: null,
          architectures: ['arm64', 'amd64'],
          memoryModels: ['unified', 'discrete'],
          minMemoryBytesPerReplica: 40 * 1024 ** 3,
        }),
      ),
    ).to.equal(
      '2 GPUs per replica, compute capability 8.0–9.0, no CUDA dependency, arm64 or amd64, ' +
        'unified or discrete memory, 40.0 GiB per replica',
    );
  });

  it('names the architectures and memory models the runtime cannot serve', () => {
    expect(runtimeMismatches(hardware(), hardware({ architectures: ['amd64', 'arm64'] }))).to.deep.equal([]);
    expect(
      runtimeMismatches(hardware(), hardware({ architectures: ['amd64'], memoryModels: ['discrete'] })),
    ).to.deep.equal([
      'needs arm64; the runtime runs on amd64',
      'needs unified memory; the runtime supports discrete',
    ]);
  });

  it('lists the aliases serving a version now or moving to it, by name', () => {
    const aliases = [
      alias('search', 'chat@2', null),
      alias('chat', 'chat@1', 'chat@2'),
      alias('other', 'embed@1', null),
    ];
    expect(aliasesServing('chat@2', aliases)).to.deep.equal([
      { alias: 'chat', how: 'canary at 10 % (rollout Canary)' },
      { alias: 'search', how: 'current revision 3' },
    ]);
    expect(aliasesServing('none@1', aliases)).to.deep.equal([]);
  });

  it('shortens a digest, keeping its algorithm', () => {
    expect(shortDigest('sha256:0123456789abcdef0123')).to.equal('sha256:0123456789ab…');
    expect(shortDigest('0123456789abcdef')).to.equal('0123456789ab…');
  });
});
