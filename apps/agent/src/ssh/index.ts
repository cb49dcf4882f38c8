export * from './assignment-store';
export * from './atomic-file';
export * from './keys';
export * from './protocol-channel';
export * from './refusals';
export * from './server';
export * from './southbound';
export * from './trust';
