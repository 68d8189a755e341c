export * from './contract';
export * from './catalog';
export * from './results';
export * from './result-schemas';
export * from './input-schema';
export * from './sub-routes';
export { JOB_LOGS_DEFAULT_TAIL, JOB_LOGS_MAX_TAIL } from './route-params';
export * from './route-inputs';
export * from './routes';
