export * from './config';
export * from './logger';
export * from './request-context';
export * from './metrics';
export * from './build-info';
export * from './shutdown';
export * from './tracing';
export * from './http-server';
