export * from './variables';
export * from './client-variables';
