export * from './verify';
