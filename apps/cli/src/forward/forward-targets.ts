import { checkHost, checkPort, ConflictError, ForbiddenError, ForwardTarget, InvalidInputError, parseForwardTarget } from '@svc/common';

/** `svc forward --stdio`'s target: `22`, `10.0.0.5:22`, `[::1]:22` or an absolute socket path. */
export function parseStdioTarget(text: string): ForwardTarget {
  if (text.startsWith('/')) return parseForwardTarget({ kind: 'unix', path: text });
  const colon = text.lastIndexOf(':');
  const portText = text.slice(colon + 1);
  if (!/^\d+$/.test(portText)) throw new InvalidInputError(`Invalid target ${JSON.stringify(text)}: use a port, host:port or an absolute socket path`);
  const host = colon < 0 ? undefined : checkHost(text.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), 'host');
  return parseForwardTarget({ kind: 'tcp', ...(host ? { host } : {}), port: checkPort(Number(portText), 'port') });
}

/**
 * A local listener that could not start, said the way a user fixes it (another program holds the
 * port, a privileged port). Other errors pass unchanged.
 */
export function listenFailure(error: unknown): unknown {
  const { code, port, address } = error as NodeJS.ErrnoException & { port?: number; address?: string };
  const where = port !== undefined && port > 0 ? `local port ${port}` : address ? `local socket ${address}` : 'the local address';
  if (code === 'EADDRINUSE') return new ConflictError(`Cannot listen on ${where}: it is already in use (stop what holds it, or pick another)`);
  if (code === 'EACCES') return new ForbiddenError(`Cannot listen on ${where}: permission denied (ports below 1024 need privileges)`);
  return error;
}
