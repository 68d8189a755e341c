export * from './model';
export * from './schema';
export * from './request-checks';
export * from './update-labels';
export * from './channel';
export * from './schema-errors';
export * from './redaction';
