export * from './file-contract';
export * from './relative-path';
export * from './fs-errors';
export * from './exclude-rules';
export * from './digest-tap';
export * from './atomic-write';
export * from './tree-walk';
export * from './sync-plan';
