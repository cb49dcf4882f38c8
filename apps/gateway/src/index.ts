export * from './config';
export * from './route-table';
export * from './server';
export * from './metrics';
export * from './upstream';
export * from './workloads';
export { readJsonBody, violationsFrom } from './http';
export * from './postgres-route-table';
export * from './request-log';
