import { expect } from 'chai';
import { ErrorCode } from '@lunanexa/contracts';
import { RuntimeError, multiNodeRuntimeAdapter } from '../../src/runtimes';

describe('multi-node runtime adapter', () => {
  it('refuses every profile with a typed error until one is validated', () => {
    const profile = {
      modelVersion: 'llama-3-1-405b-instruct@2024-07-23',
      runtimeId: 'runtime-vllm-0-11',
      networkProfile: 'connectx-7-200g',
    };
    let caught: unknown;
    try {
      multiNodeRuntimeAdapter(profile);
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(RuntimeError);
    const error = caught as RuntimeError;
    expect(error.reason).to.equal('MULTI_NODE_NOT_VALIDATED');
    expect(error.code).to.equal(ErrorCode.HARDWARE_INCOMPATIBLE);
    for (const part of Object.values(profile)) expect(error.message).to.include(part);
  });
});
