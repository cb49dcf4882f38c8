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
    // Every module of the bundle is evaluated again for each workflow the worker starts or
    // replays: schema libraries and the contracts' index (every API schema) stay out of it.
    const modules = [...bundle.code.matchAll(/^\/\*\*\*\/ "([^"]+)"$/gm)].map((m) => m[1]);
    expect(modules.length, 'module ids found in the bundle').to.be.greaterThan(20);
    expect(
      modules.filter((id) => /node_modules\/zod\/|libs\/contracts\/dist\/src\/index\.js/.test(id)),
    ).to.deep.equal([]);
  });
});
