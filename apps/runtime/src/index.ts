/** What the `svc` CLI imports to offer `svc runtime run|logout`. */
export { logoutRuntime, LOGOUT_USAGE, runRuntime, RUN_USAGE } from './runtime-command';
export type { RuntimeIo } from './runtime-daemon';
export { EXIT_CODES } from './runtime-exit';
export { main as runtimeMain } from './main';
export { SERVICE_USAGE } from './service/service-command';
