import { expect } from 'chai';
import { bundleWorkflowCode } from '@temporalio/worker';

describe('workflow bundle', function () {
  this.timeout(120_000);

  it('bundles workflows/ with the Temporal bundler (determinism sandbox rules apply)', async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../src'),
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: () => undefined,
      },
    });
    expect(bundle.code).to.be.a('string').and.to.include('pingWorkflow');
  });
});
