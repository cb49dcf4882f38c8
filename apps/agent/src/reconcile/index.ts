export * from './adopted-container';
export * from './adopted-runtime';
export * from './runtime-load';
export * from './proc';
export * from './reconciler';
export * from './records';
