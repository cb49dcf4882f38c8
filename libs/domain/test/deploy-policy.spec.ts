import { expect } from 'chai';
import { DEPLOYMENT_PURPOSES, type DeploymentPurpose, type ErrorCode } from '@lunanexa/contracts';
import { decideDeployPolicy, type DeployPolicyFacts } from '../src/deploy-policy';

/** An Approved, licensed, evaluated, verified version that fits the fleet: every purpose allows it. */
const good: DeployPolicyFacts = {
  modelRef: 'chat@2',
  versionState: 'Approved',
  licenseName: 'apache',
  licenseApproval: 'Approved',
  licenseAllowedDataClasses: ['public', 'internal'],
  dataClass: 'internal',
  runtimeId: 'runtime-fake',
  runtimeAllowed: true,
  hardwareFits: true,
  hardwareReasons: [],
  evaluation: { passed: true, suite: 'smoke' },
  verification: { ok: true },
  signature: { ok: true, signed: true, keyId: 'ed25519:0123456789abcdef0123456789abcdef' },
};

/** A version that was just verified and never evaluated: what a candidate deployment is for. */
const fresh: DeployPolicyFacts = { ...good, versionState: 'Verified', evaluation: null };

const digestMismatch = { ok: false, code: 'DIGEST_MISMATCH', message: 'hashes to sha256:bb…' } as const;
const storeDown = { ok: false, code: 'DEPENDENCY_UNAVAILABLE', message: 'connect ECONNREFUSED' } as const;

function codeOf(facts: DeployPolicyFacts, purpose: DeploymentPurpose): ErrorCode | 'allowed' {
  const decision = decideDeployPolicy(facts, purpose);
  if (decision.allowed) return 'allowed';
  expect(decision.reason, 'the reason names the version').to.include(facts.modelRef);
  return decision.code;
}

type Case = readonly [name: string, facts: DeployPolicyFacts, code: ErrorCode];

describe('deploy policy', () => {
  describe('checks every purpose makes, with the same code', () => {
    const cases: Case[] = [
      [
        'the license is pending review',
        { ...good, licenseApproval: 'PendingReview' },
        'LICENSE_NOT_APPROVED',
      ],
      ['the license was rejected', { ...good, licenseApproval: 'Rejected' }, 'LICENSE_NOT_APPROVED'],
      [
        'the data class is outside the license',
        { ...good, dataClass: 'restricted' },
        'DATA_CLASS_NOT_ALLOWED',
      ],
      ['the runtime is not on the allowlist', { ...good, runtimeAllowed: false }, 'RUNTIME_NOT_ALLOWED'],
      [
        'the artifact signature does not verify',
        {
          ...good,
          signature: { ok: false, code: 'SIGNATURE_INVALID', reason: 'chat@2: signing key revoked' },
        },
        'SIGNATURE_INVALID',
      ],
      [
        'the version is unsigned and a tenant forbids that',
        {
          ...good,
          signature: { ok: false, code: 'UNSIGNED_VERSION_NOT_ALLOWED', reason: 'chat@2: unsigned' },
        },
        'UNSIGNED_VERSION_NOT_ALLOWED',
      ],
      [
        'no node fits',
        { ...good, hardwareFits: false, hardwareReasons: ['gpu-a: needs 512 GiB'] },
        'HARDWARE_INCOMPATIBLE',
      ],
    ];
    for (const purpose of DEPLOYMENT_PURPOSES) {
      for (const [name, facts, code] of cases) {
        it(`${purpose}: refuses with ${code} when ${name}`, () => {
          expect(codeOf(facts, purpose)).to.equal(code);
          expect(codeOf({ ...facts, versionState: 'Verified', evaluation: null }, purpose)).to.equal(code);
        });
      }
    }

    it('a recorded SIGNATURE_INVALID verification keeps its code (Serving and Candidate)', () => {
      const verification = { ok: false, code: 'SIGNATURE_INVALID', message: 'key unknown' } as const;
      expect(codeOf({ ...good, verification }, 'Serving')).to.equal('SIGNATURE_INVALID');
      expect(codeOf({ ...fresh, verification }, 'Candidate')).to.equal('SIGNATURE_INVALID');
    });

    it('checks no data class when none applies (a deployment created directly: the gateway checks each request)', () => {
      for (const purpose of DEPLOYMENT_PURPOSES) {
        expect(codeOf({ ...good, dataClass: null, licenseAllowedDataClasses: [] }, purpose)).to.equal(
          'allowed',
        );
      }
    });

    it('names the hardware reasons of the nodes it passed over', () => {
      const decision = decideDeployPolicy(
        { ...good, hardwareFits: false, hardwareReasons: ['gpu-a: needs 512 GiB', 'gpu-b: arm64 only'] },
        'Candidate',
      );
      expect(decision.allowed === false && decision.reason).to.equal(
        'chat@2: no node in the fleet can run one replica: gpu-a: needs 512 GiB; gpu-b: arm64 only',
      );
    });
  });

  describe('Serving: the rollout gate', () => {
    it('allows an Approved, evaluated, verified version (also one whose digest was never recorded)', () => {
      expect(decideDeployPolicy(good, 'Serving')).to.deep.equal({ allowed: true });
      expect(codeOf({ ...good, verification: null }, 'Serving')).to.equal('allowed');
    });

    const cases: Case[] = [
      ['it was never evaluated', fresh, 'EVALUATION_NOT_PASSED'],
      [
        'its evaluation failed',
        { ...good, versionState: 'EvaluationFailed', evaluation: { passed: false, suite: 'smoke' } },
        'EVALUATION_NOT_PASSED',
      ],
      [
        'its state says the evaluation failed',
        { ...good, versionState: 'EvaluationFailed' },
        'EVALUATION_NOT_PASSED',
      ],
      [
        'it is unverified',
        { ...fresh, versionState: 'Registered', verification: null },
        'EVALUATION_NOT_PASSED',
      ],
      [
        'its verification failed',
        { ...fresh, versionState: 'VerificationFailed', verification: digestMismatch },
        'EVALUATION_NOT_PASSED',
      ],
      [
        'it is evaluated but not approved',
        { ...good, versionState: 'Evaluated' },
        'MODEL_VERSION_NOT_APPROVED',
      ],
      ['it is being re-evaluated', { ...good, versionState: 'Evaluating' }, 'MODEL_VERSION_NOT_APPROVED'],
      ['it is deprecated', { ...good, versionState: 'Deprecated' }, 'MODEL_VERSION_NOT_APPROVED'],
      ['it is retired', { ...good, versionState: 'Retired' }, 'MODEL_VERSION_NOT_APPROVED'],
      [
        'its last verification found other bytes',
        { ...good, verification: digestMismatch },
        'DIGEST_MISMATCH',
      ],
      [
        'its store could not be read last time',
        { ...good, verification: storeDown },
        'DEPENDENCY_UNAVAILABLE',
      ],
    ];
    for (const [name, facts, code] of cases) {
      it(`refuses with ${code} when ${name}`, () => {
        expect(codeOf(facts, 'Serving')).to.equal(code);
      });
    }

    it('says why in the reason', () => {
      const notApproved = decideDeployPolicy({ ...good, versionState: 'Retired' }, 'Serving');
      expect(notApproved.allowed === false && notApproved.reason).to.equal(
        'chat@2: is Retired, only Approved versions serve',
      );
      const failed = decideDeployPolicy(
        { ...good, evaluation: { passed: false, suite: 'strict' } },
        'Serving',
      );
      expect(failed.allowed === false && failed.reason).to.equal(
        'chat@2: evaluation suite strict did not pass',
      );
    });
  });

  describe('Candidate: the gate minus evaluation and approval', () => {
    const allowed: [string, DeployPolicyFacts][] = [
      ['a Verified version never evaluated', fresh],
      ['a version being evaluated', { ...fresh, versionState: 'Evaluating' }],
      ['an Evaluated version', { ...good, versionState: 'Evaluated' }],
      [
        'a version whose evaluation failed (to evaluate it again)',
        { ...good, versionState: 'EvaluationFailed', evaluation: { passed: false, suite: 'smoke' } },
      ],
      ['an Approved version', good],
    ];
    for (const [name, facts] of allowed) {
      it(`allows ${name}`, () => {
        expect(decideDeployPolicy(facts, 'Candidate')).to.deep.equal({ allowed: true });
      });
    }

    const refused: Case[] = [
      ['it is deprecated', { ...good, versionState: 'Deprecated' }, 'MODEL_VERSION_NOT_APPROVED'],
      ['it is retired', { ...fresh, versionState: 'Retired' }, 'MODEL_VERSION_NOT_APPROVED'],
      [
        'it is retired, whatever its last verification said',
        { ...fresh, versionState: 'Retired', verification: digestMismatch },
        'MODEL_VERSION_NOT_APPROVED',
      ],
      [
        'its verification failed on the digest',
        { ...fresh, versionState: 'VerificationFailed', verification: digestMismatch },
        'DIGEST_MISMATCH',
      ],
      [
        'its verification could not read the store',
        { ...fresh, versionState: 'VerificationFailed', verification: storeDown },
        'DEPENDENCY_UNAVAILABLE',
      ],
      [
        'its verification failed on something other than the bytes',
        { ...fresh, versionState: 'VerificationFailed', verification: null },
        'MODEL_VERSION_NOT_APPROVED',
      ],
      [
        'it was never verified',
        { ...fresh, versionState: 'Registered', verification: null },
        'MODEL_VERSION_NOT_APPROVED',
      ],
      [
        'its last verification found other bytes',
        { ...fresh, verification: digestMismatch },
        'DIGEST_MISMATCH',
      ],
    ];
    for (const [name, facts, code] of refused) {
      it(`refuses with ${code} when ${name}`, () => {
        expect(codeOf(facts, 'Candidate')).to.equal(code);
      });
    }

    it('says why in the reason', () => {
      const retired = decideDeployPolicy({ ...fresh, versionState: 'Retired' }, 'Candidate');
      expect(retired.allowed === false && retired.reason).to.equal(
        'chat@2: is Retired, no longer deployed, not even as a candidate',
      );
      const registered = decideDeployPolicy(
        { ...fresh, versionState: 'Registered', verification: null },
        'Candidate',
      );
      expect(registered.allowed === false && registered.reason).to.equal(
        'chat@2: is Registered; a candidate must be Verified first (verifyModelVersion)',
      );
    });
  });

  describe('order: the most fundamental reason first', () => {
    /** Fixes one failing fact at a time and records the code each step answers. */
    function ladder(
      start: DeployPolicyFacts,
      fixes: readonly Partial<DeployPolicyFacts>[],
      purpose: DeploymentPurpose,
    ): (ErrorCode | 'allowed')[] {
      const codes = [codeOf(start, purpose)];
      let facts = start;
      for (const fix of fixes) {
        facts = { ...facts, ...fix };
        codes.push(codeOf(facts, purpose));
      }
      return codes;
    }

    const everythingWrong: DeployPolicyFacts = {
      ...good,
      licenseApproval: 'PendingReview',
      dataClass: 'restricted',
      runtimeAllowed: false,
      hardwareFits: false,
      hardwareReasons: ['gpu-a: needs 512 GiB'],
      signature: { ok: false, code: 'SIGNATURE_INVALID', reason: 'chat@2: key unknown' },
    };
    const common: Partial<DeployPolicyFacts>[] = [
      { licenseApproval: 'Approved' },
      { signature: good.signature },
      { dataClass: 'internal' },
      { runtimeAllowed: true },
      { hardwareFits: true, hardwareReasons: [] },
    ];
    const commonCodes = [
      'LICENSE_NOT_APPROVED',
      'SIGNATURE_INVALID',
      'DATA_CLASS_NOT_ALLOWED',
      'RUNTIME_NOT_ALLOWED',
      'HARDWARE_INCOMPATIBLE',
    ] as const;

    it('Serving: license → signature → data class → runtime → hardware → evaluation → approval → digest', () => {
      const start = {
        ...everythingWrong,
        versionState: 'Evaluated',
        evaluation: null,
        verification: digestMismatch,
      } as const;
      expect(
        ladder(
          start,
          [
            ...common,
            { evaluation: { passed: true, suite: 'smoke' } },
            { versionState: 'Approved' },
            { verification: { ok: true } },
          ],
          'Serving',
        ),
      ).to.deep.equal([
        ...commonCodes,
        'EVALUATION_NOT_PASSED',
        'MODEL_VERSION_NOT_APPROVED',
        'DIGEST_MISMATCH',
        'allowed',
      ]);
    });

    it('Candidate: license → signature → data class → runtime → hardware → deprecated/retired → digest → verified', () => {
      const start = {
        ...everythingWrong,
        versionState: 'Deprecated',
        evaluation: null,
        verification: digestMismatch,
      } as const;
      expect(
        ladder(
          start,
          [
            ...common,
            { versionState: 'VerificationFailed' },
            { versionState: 'Registered', verification: null },
            { versionState: 'Verified' },
          ],
          'Candidate',
        ),
      ).to.deep.equal([
        ...commonCodes,
        'MODEL_VERSION_NOT_APPROVED',
        'DIGEST_MISMATCH',
        'MODEL_VERSION_NOT_APPROVED',
        'allowed',
      ]);
    });
  });
});
