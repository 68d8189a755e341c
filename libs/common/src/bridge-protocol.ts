import { InvalidInputError } from './errors';

/**
 * The terminal bridge's WebSocket subprotocols (docs/dashboard.md, "Tickets and the terminal
 * bridge"). A browser's WebSocket can send no Authorization header and a token never goes into a
 * URL, so the page offers its access token as a second subprotocol beside BRIDGE_PROTOCOL, which
 * is the only one the server ever selects: the token is never echoed back. Kubernetes' API server
 * takes a bearer token the same way. Browser-safe: no node builtin (the dashboard imports it).
 */
export const BRIDGE_PROTOCOL = 'svc.v1';
const BEARER_PREFIX = 'svc.bearer.';
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A bearer token is visible ASCII (RFC 6750's b64token and a JWT's characters are a subset). */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

/** What the page passes to `new WebSocket(url, protocols)`. */
export function bridgeProtocols(accessToken: string): string[] {
  const bytes = new TextEncoder().encode(accessToken);
  const base64 = btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(''));
  return [BRIDGE_PROTOCOL, BEARER_PREFIX + base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')];
}

/** The offered subprotocols of a `Sec-WebSocket-Protocol` header, and the bearer token among them (undefined when none is offered). */
export function offeredProtocols(header: string | undefined): { protocols: string[]; bearer: string | undefined } {
  const protocols = (header ?? '').split(',').map((value) => value.trim()).filter((value) => value !== '');
  const bearers = protocols.filter((value) => value.startsWith(BEARER_PREFIX));
  if (bearers.length > 1) throw new InvalidInputError('Sec-WebSocket-Protocol offers more than one bearer token');
  return { protocols, bearer: bearers.length === 1 ? decodeBearer(bearers[0].slice(BEARER_PREFIX.length)) : undefined };
}

function decodeBearer(encoded: string): string {
  let token = '';
  if (BASE64URL.test(encoded)) {
    try {
      token = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
    } catch {
      // Not base64 after all (a length of 4n+1): refused below.
    }
  }
  if (!TOKEN_CHARS.test(token)) throw new InvalidInputError(`The ${BEARER_PREFIX}… subprotocol must carry a bearer token as base64url`);
  return token;
}
