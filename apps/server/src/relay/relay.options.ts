/** Whether this process listens for tunnels (tests that need no runtimes leave UNIFIED_PORT alone). */
export interface RelayOptions {
  listen: boolean;
}

export const RELAY_OPTIONS = Symbol('RELAY_OPTIONS');
