export * from './hash-chain';
export * from './evidence-archive';
export * from './evidence-bundle';
