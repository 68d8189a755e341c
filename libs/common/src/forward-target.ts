import { isIP } from 'node:net';
import { InvalidInputError } from './errors';
import { TUNNEL_OPS, TunnelOp } from './tunnel/constants';

/**
 * What a forward connects to on the device's side: a TCP port (on the device itself by default,
 * or another host on its network) or a unix socket. The same rules check a target wherever it
 * appears: a forward spec (CLI, MCP), the client stream's `svc-args` (server), and the device
 * stream's arguments (runtime).
 */
export type ForwardTarget = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** The device itself. */
export const FORWARD_DEFAULT_HOST = '127.0.0.1';
/** sun_path holds 108 bytes on Linux, the last one the terminating NUL. */
export const UNIX_SOCKET_PATH_MAX_BYTES = 107;

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/;

/** 1–65535; anything else (0, 65536, 1.5, "22") is refused with a message naming `what`. */
export function checkPort(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    throw new InvalidInputError(`${what} must be a port number from 1 to 65535, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** An IPv4 or IPv6 address (IPv6 without brackets) or a DNS name the device resolves. */
export function checkHost(value: unknown, what: string): string {
  if (typeof value !== 'string' || (isIP(value) === 0 && !HOSTNAME.test(value))) {
    throw new InvalidInputError(`${what} must be an IP address or a host name, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Absolute, no NUL, short enough for a socket address. */
export function checkSocketPath(value: unknown, what: string): string {
  if (typeof value !== 'string' || !value.startsWith('/')) throw new InvalidInputError(`${what} must be an absolute socket path (starting with /), got ${JSON.stringify(value)}`);
  if (value.includes('\0')) throw new InvalidInputError(`${what} must not contain NUL`);
  if (Buffer.byteLength(value) > UNIX_SOCKET_PATH_MAX_BYTES) throw new InvalidInputError(`${what} is longer than ${UNIX_SOCKET_PATH_MAX_BYTES} bytes, the limit of a unix socket address`);
  return value;
}

/** `{"kind":"tcp","host"?,"port"}` or `{"kind":"unix","path"}`; unknown fields are refused. */
export function parseForwardTarget(raw: unknown, what = 'target'): ForwardTarget {
  const object = plainObject(raw, what);
  if (object.kind === 'tcp') return parseTcpFields(object, what, ['kind']);
  if (object.kind === 'unix') return parseUnixFields(object, what, ['kind']);
  throw new InvalidInputError(`${what}.kind must be "tcp" or "unix"`);
}

/** The device stream carrying a forward: its operation and `svc-args`. */
export function forwardStreamRequest(target: ForwardTarget): { op: TunnelOp; args: Record<string, unknown> } {
  return target.kind === 'tcp'
    ? { op: TUNNEL_OPS.forwardTcp, args: { host: target.host, port: target.port } }
    : { op: TUNNEL_OPS.forwardUnix, args: { path: target.path } };
}

/** Arguments of the device stream `/v1/forward/tcp`: `{host?, port}`. */
export function parseTcpForwardArgs(raw: Record<string, unknown>): ForwardTarget & { kind: 'tcp' } {
  return parseTcpFields(raw, 'forward/tcp', []);
}

/** Arguments of the device stream `/v1/forward/unix`: `{path}`. */
export function parseUnixForwardArgs(raw: Record<string, unknown>): ForwardTarget & { kind: 'unix' } {
  return parseUnixFields(raw, 'forward/unix', []);
}

/** `host:port` with IPv6 hosts in brackets, or the socket path: for messages and audit details. */
export function describeForwardTarget(target: ForwardTarget): string {
  if (target.kind === 'unix') return target.path;
  return `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
}

function parseTcpFields(object: Record<string, unknown>, what: string, extra: string[]): ForwardTarget & { kind: 'tcp' } {
  refuseUnknown(object, what, [...extra, 'host', 'port']);
  const host = object.host === undefined ? FORWARD_DEFAULT_HOST : checkHost(object.host, `${what}.host`);
  return { kind: 'tcp', host, port: checkPort(object.port, `${what}.port`) };
}

function parseUnixFields(object: Record<string, unknown>, what: string, extra: string[]): ForwardTarget & { kind: 'unix' } {
  refuseUnknown(object, what, [...extra, 'path']);
  return { kind: 'unix', path: checkSocketPath(object.path, `${what}.path`) };
}

function plainObject(raw: unknown, what: string): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InvalidInputError(`${what} must be an object`);
  return raw as Record<string, unknown>;
}

function refuseUnknown(object: Record<string, unknown>, what: string, known: string[]): void {
  const unknown = Object.keys(object).find((key) => !known.includes(key));
  if (unknown !== undefined) throw new InvalidInputError(`${what}: unknown field ${unknown}`);
}
