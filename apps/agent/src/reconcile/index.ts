export * from './adopted-runtime';
export * from './in-flight';
export * from './proc';
export * from './reconciler';
export * from './records';
