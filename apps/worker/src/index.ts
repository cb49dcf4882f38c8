export * from './config';
export * from './worker';
export * from './health-server';
export * from './fleet-workflows';
