export * from './errors';
export * from './scopes';
export * from './roles';
export * from './limits';
export * from './operations';
export * from './config';
export * from './access';
