export * from './binding';
export * from './identity';
export * from './stream';
