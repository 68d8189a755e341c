/**
 * The peer hop's wire: one HTTP/2 request per operation stream, on the holder's peer listener,
 * carrying what the tunnel stream would (`:path` of the operation, TUNNEL_HEADERS) plus the device.
 */
export const PEER_HEADERS = {
  device: 'svc-peer-device',
  /** "1": the request body ends with trailers (StreamRequest.trailers). */
  trailers: 'svc-peer-trailers',
  /** On a refusal by the holder itself (not the device): its error code, DEVICE_OFFLINE or RATE_LIMITED. */
  refusal: 'svc-peer-refusal',
} as const;

/** Headers that belong to a hop, not to the device's answer. */
export function deviceFields<T extends Record<string, unknown>>(headers: T): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || name === 'content-length' || value === undefined) continue;
    fields[name] = value as string | string[];
  }
  return fields;
}
