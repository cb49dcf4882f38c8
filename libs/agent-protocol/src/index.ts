export * from './protocol';
export * from './envelope';
export * from './keys';
export * from './signing';
export * from './replay-guard';
export * from './fence';
export * from './framing';
export * from './fixtures';
