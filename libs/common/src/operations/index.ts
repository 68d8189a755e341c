export * from './contract';
export * from './catalog';
export * from './results';
