import { isIP } from 'node:net';
import { InvalidInputError } from './errors';
import { checkHost, checkSocketPath, FORWARD_DEFAULT_HOST, ForwardTarget } from './forward-target';

/** Where a forward listens on the caller's machine. */
export type ForwardLocal = { kind: 'tcp'; port: number } | { kind: 'unix'; path: string };

/** One listener and the target each of its connections reaches on the device's side. */
export interface ForwardMapping {
  local: ForwardLocal;
  remote: ForwardTarget;
}

/** A range forwards this many ports at most: each is a listener on the caller's machine. */
export const FORWARD_RANGE_MAX_PORTS = 1000;
const SPEC_MAX_CHARS = 1024;

/**
 * Parses one forward spec (docs/protocol.md, "Forward specs"):
 *
 *   8080:80                   local port 8080 → port 80 on the device
 *   8080:10.0.0.5:80          → port 80 of another host on the device's network ([v6] in brackets)
 *   8080-8090:9080-9090       a range: equal lengths, pairwise
 *   /tmp/d.sock:/run/d.sock   a local unix socket → a unix socket on the device
 *   2375:/run/podman.sock     the sides may differ in kind
 *
 * Returns one mapping per forwarded port (a range gives several). Socket paths are absolute and
 * cannot contain `:`. Every refusal is an InvalidInputError quoting the spec.
 */
export function parseForwardSpec(spec: string): ForwardMapping[] {
  const fail = (why: string): never => {
    throw new InvalidInputError(`Invalid forward spec ${JSON.stringify(spec)}: ${why}`);
  };
  if (typeof spec !== 'string' || spec.length === 0) return fail('it is empty; use <local>:<remote>, e.g. 8080:80');
  if (spec.length > SPEC_MAX_CHARS) return fail(`longer than ${SPEC_MAX_CHARS} characters`);
  if (/\s/.test(spec)) return fail('it contains white space');
  const parts = splitSpec(spec, fail);
  if (parts.length < 2 || parts.length > 3) return fail('use <local>:<remote> or <local>:<host>:<remote>');
  const [localText, ...remoteParts] = parts;
  const remoteText = remoteParts[remoteParts.length - 1];
  const hostText = remoteParts.length === 2 ? remoteParts[0] : undefined;

  const local = parseSide(localText, 'local side', fail);
  const remote = parseSide(remoteText, 'remote side', fail);
  if (hostText !== undefined && remote.kind === 'socket') return fail('a host can only be given for a TCP port, not a socket path');
  const host = hostText === undefined ? FORWARD_DEFAULT_HOST : parseHost(hostText, fail);

  const localPorts = local.kind === 'ports' ? local : undefined;
  const remotePorts = remote.kind === 'ports' ? remote : undefined;
  const count = (side: Ports | undefined) => (side ? side.last - side.first + 1 : 1);
  if (count(localPorts) !== count(remotePorts)) {
    return fail(`the local side covers ${count(localPorts)} port(s) and the remote side ${count(remotePorts)}; ranges must have the same length`);
  }
  const mappings: ForwardMapping[] = [];
  for (let i = 0; i < count(localPorts); i++) {
    mappings.push({
      local: localPorts ? { kind: 'tcp', port: localPorts.first + i } : { kind: 'unix', path: (local as Socket).path },
      remote: remotePorts ? { kind: 'tcp', host, port: remotePorts.first + i } : { kind: 'unix', path: (remote as Socket).path },
    });
  }
  return mappings;
}

/**
 * What forward_start answers in `targets`: `TcpPort(<local>-><remote>)` when the device side is
 * a TCP port (`host:port` when the host is not the device itself), `UnixSocket(<local>-><remote>)`
 * when it is a socket.
 */
export function renderForwardMapping(mapping: ForwardMapping): string {
  const local = mapping.local.kind === 'tcp' ? String(mapping.local.port) : mapping.local.path;
  const { remote } = mapping;
  if (remote.kind === 'unix') return `UnixSocket(${local}->${remote.path})`;
  const host = remote.host === FORWARD_DEFAULT_HOST ? '' : `${isIP(remote.host) === 6 ? `[${remote.host}]` : remote.host}:`;
  return `TcpPort(${local}->${host}${remote.port})`;
}

interface Ports {
  kind: 'ports';
  first: number;
  last: number;
}
interface Socket {
  kind: 'socket';
  path: string;
}

/** Splits on `:` outside brackets; a bracketed part keeps its brackets. */
function splitSpec(spec: string, fail: (why: string) => never): string[] {
  const parts: string[] = [];
  let current = '';
  let inBrackets = false;
  for (const char of spec) {
    if (char === '[') {
      if (inBrackets || current !== '') fail('"[" may only open an IPv6 host');
      inBrackets = true;
    } else if (char === ']') {
      if (!inBrackets) fail('unbalanced "]"');
      inBrackets = false;
    } else if (char === ':' && !inBrackets) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (inBrackets) fail('unbalanced "["');
  parts.push(current);
  return parts;
}

function parseSide(text: string, what: string, fail: (why: string) => never): Ports | Socket {
  if (text === '') return fail(`the ${what} is empty`);
  if (text.startsWith('[')) return fail(`an IPv6 address in brackets is only allowed as the host, in <local>:<host>:<remote>`);
  if (text.startsWith('/')) {
    try {
      return { kind: 'socket', path: checkSocketPath(text, `the ${what}`) };
    } catch (err) {
      return fail((err as Error).message);
    }
  }
  const range = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!range) return fail(`the ${what} ${JSON.stringify(text)} is neither a port, a port range (8080-8090) nor an absolute socket path`);
  const first = port(range[1], what, fail);
  const last = range[2] === undefined ? first : port(range[2], what, fail);
  if (last < first) return fail(`the range ${text} is reversed; write it low-high`);
  if (last - first + 1 > FORWARD_RANGE_MAX_PORTS) return fail(`the range ${text} covers more than ${FORWARD_RANGE_MAX_PORTS} ports`);
  return { kind: 'ports', first, last };
}

function port(digits: string, what: string, fail: (why: string) => never): number {
  const value = Number(digits);
  if (digits.length > 5 || value < 1 || value > 65535) return fail(`port ${digits} on the ${what} is out of range (1-65535)`);
  return value;
}

function parseHost(text: string, fail: (why: string) => never): string {
  if (text === '') return fail('the host is empty');
  const bracketed = /^\[(.*)\]$/.exec(text);
  if (bracketed) {
    if (isIP(bracketed[1]) !== 6) return fail(`${text} is not an IPv6 address`);
    return bracketed[1];
  }
  if (text.includes('[') || text.includes(']')) return fail('write an IPv6 host in brackets, e.g. 8080:[fd00::1]:80');
  try {
    return checkHost(text, 'the host');
  } catch (err) {
    return fail((err as Error).message);
  }
}
