export * from './binding';
export * from './identity';
export * from './stream';
export * from './field-block';
export * from './operation-stream';
