export * from './collections';
