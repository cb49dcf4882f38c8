export * from './state-machine';
export * from './node-lifecycle';
export * from './model-version-lifecycle';
export * from './deployment-lifecycle';
export * from './workload-lifecycle';
export * from './node-readiness';
