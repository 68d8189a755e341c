import { AsyncLocalStorage } from 'node:async_hooks';
import { CLIENT_KIND_MCP } from '@svc/common';

export interface RequestContext {
  requestId: string;
  /** The client announced itself as `svc mcp` (CLIENT_KIND_HEADER): audit entries say "via MCP". */
  viaMcp?: boolean;
  /** A terminal or exec session of the web dashboard (the WebSocket bridge): audit entries say "via browser". */
  viaBrowser?: boolean;
}

/** Carries the request id to every log line and error body produced while serving a request. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string {
  return requestContext.getStore()?.requestId ?? 'none';
}

/** Whether the request in progress came from `svc mcp`. */
export function requestViaMcp(): boolean {
  return requestContext.getStore()?.viaMcp === true;
}

/** Whether the request in progress is a browser's terminal or exec session. */
export function requestViaBrowser(): boolean {
  return requestContext.getStore()?.viaBrowser === true;
}

/** Reads CLIENT_KIND_HEADER as received (a string, an array or nothing). */
export function announcesMcp(value: string | string[] | undefined): boolean {
  return (Array.isArray(value) ? value[0] : value)?.toLowerCase() === CLIENT_KIND_MCP;
}
