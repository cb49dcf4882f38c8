export * from './config';
export * from './bootstrap';
export * from './schema';
