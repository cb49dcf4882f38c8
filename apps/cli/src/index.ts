export * from './api-client';
export * from './cli';
export * from './context';
export * from './errors';
export * from './output';
export * from './commands/ping';
export * from './commands/status';
export * from './commands/version';
