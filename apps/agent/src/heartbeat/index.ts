export * from './client';
export * from './credential';
export * from './refusal-queue';
export * from './sequence';
