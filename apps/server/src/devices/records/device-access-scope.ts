/**
 * What a device query may see. Every DevicesRepository method takes one, so a query that forgets
 * the caller's scopes does not compile. `SYSTEM_ACCESS` is for the server's own bookkeeping
 * (organization renames, tunnel authentication by API key hash) and never for a caller's request.
 */
export type DeviceAccessScope = { readonly scopes: readonly string[] } | typeof SYSTEM_ACCESS;

export const SYSTEM_ACCESS = Object.freeze({ system: true as const });

export function callerAccess(scopes: readonly string[]): DeviceAccessScope {
  return { scopes };
}
