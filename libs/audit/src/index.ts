export * from './hash-chain';
