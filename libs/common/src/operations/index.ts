export * from './contract';
export * from './catalog';
export * from './results';
export * from './result-schemas';
export * from './input-schema';
