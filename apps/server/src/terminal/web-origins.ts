import type { IncomingHttpHeaders } from 'node:http';
import { ForbiddenError } from '@svc/common';

const MISSING = 'Access denied: terminal tickets are for browser pages; the request has no Origin header';

/**
 * The browser origin a ticket request or a terminal WebSocket comes from, if it may use the
 * bridge: one of WEB_ORIGINS, or with WEB_ORIGINS empty the server's own origin as the browser
 * addressed it (the Origin's host and port equal the Host header; a browser sets both, a page of
 * another site cannot). Anything else, or no Origin at all, is refused (403).
 */
export function allowedOrigin(headers: IncomingHttpHeaders, webOrigins: readonly string[]): string {
  const origin = single(headers.origin);
  if (!origin || origin === 'null') throw new ForbiddenError(MISSING);
  const normalized = origin.toLowerCase();
  const allowed = webOrigins.length > 0 ? webOrigins.includes(normalized) : sameHost(normalized, single(headers.host));
  if (!allowed) throw new ForbiddenError(`Access denied: origin ${origin} may not use the terminal bridge`);
  return normalized;
}

function sameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
