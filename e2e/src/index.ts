export * from './temporal-test-env';
export * from './stack-process';
export * from './leak-scan';
