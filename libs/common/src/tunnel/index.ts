export * from './constants';
export * from './tunnel-protocol.error';
export * from './frames';
export * from './hello';
export * from './stream-args';
export * from './shell-args';
export * from './exec-args';
