export * from './temporal-test-env';
export * from './stack-process';
export * from './leak-scan';
export * from './control-plane-fixture';
export * from './fleet-harness';
export * from './browser';
export * from './console-page';
export * from './node-loss';
