/**
 * The input of the REST routes that serve no operation of the catalog (registration, the bulk
 * reject, the users API), written with the catalog's parameter builders and checked by the
 * server's same ajv path (operation-input.ts). A dotted name (`device_info.hostname`) is a field
 * of a nested object, which is required and closed like the route's own.
 */
import { CONTROL_CHARS } from '../control-chars';
import { DEVICE_ID_PATTERN, LIMITS } from '../limits';
import { bool, optStr, ParamSpec, str } from './contract';

const FIELD = LIMITS.maxInfoFieldLength;
/** Free text other users' terminals show: no control or bidirectional formatting characters. */
const TEXT = { minLength: 1, maxLength: FIELD, pattern: `^[^${CONTROL_CHARS.source.slice(1, -1)}]*$`, patternProblem: 'must not contain control or bidirectional formatting characters' } as const;
const info = (what: string) => str(what, TEXT);

export const ROUTE_INPUTS = {
  /** POST /auth/device: a runtime asks to be registered (unauthenticated, rate-limited). */
  registration_request: {
    'device_info.hostname': info('host name'),
    'device_info.platform': info('platform'),
    'device_info.architecture': info('CPU architecture'),
    'device_info.os_version': info('operating system version'),
    owner_scope: str('user:<email> or org:<org_id>', { maxLength: FIELD + 6, pattern: '^(user|org):', rule: 'user:<email> or org:<org_id>' }),
    device_id: str('device id', { pattern: DEVICE_ID_PATTERN.source, rule: '1-128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit' }),
    // 43 base64url characters carry 258 bits: the last one's two low bits are zero for 32 bytes.
    public_key: str('the runtime identity key: base64url (no padding) of the raw 32-byte Ed25519 public key', { pattern: '^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$', rule: 'base64url (no padding) of a 32-byte Ed25519 public key' }),
    name: optStr('display name (svc runtime run --name); the host name when omitted'),
  },
  /** GET /auth/device/status: the runtime polls its request (signed, docs/protocol.md). */
  registration_status: {
    request_id: str('registration request id', { pattern: '^[A-Za-z0-9_-]{8,64}$', rule: 'a registration request id' }),
  },
  /** POST /devices/registrations/reject: every pending request the caller may decide that matches all the filters. */
  registrations_reject: {
    owner_scope: optStr('user:<email> or org:<org_id>', { minLength: 1, maxLength: FIELD + 6 }),
    source_address: optStr('the address the requests came from', { minLength: 1, maxLength: 64 }),
    device_id: optStr('device id', { minLength: 1, maxLength: 128 }),
  },
  /** POST /api/tickets: the device and the stream a browser's terminal ticket opens; the stream's arguments are its catalog `args`. */
  terminal_ticket: {
    device: str('device id or name', { minLength: 1, maxLength: 256 }),
    operation: str('the stream the ticket opens', { enum: ['device_shell', 'device_exec'] }),
  },
  /** GET /users (server administrators). */
  users_list: {
    active: { ...bool('only active (true) or only pending (false) accounts', false), default: undefined },
  },
} satisfies Record<string, Record<string, ParamSpec>>;

export type RouteInputName = keyof typeof ROUTE_INPUTS;
