/**
 * The REST routes that serve no operation of the catalog: sign-in discovery, the runtime's
 * registration, the bulk reject, health, the event stream and the metrics. Each says its method
 * and path, who may call it, its input (checked by the server's same ajv path as an operation's;
 * a dotted name, `device_info.hostname`, is a field of a nested object) and its answer; the server
 * binds each from here (`@CatalogRoute(name)`), with its OpenAPI description.
 */
import type { ServerCapability } from '../roles';
import type { ErrorCode } from '../errors';
import { CONTROL_CHARS } from '../control-chars';
import { DEVICE_ID_PATTERN, LIMITS } from '../limits';
import { answer, errorsByStatus, HttpMethod, optStr, ParamSpec, RouteAnswer, str } from './contract';
import type { NestedInput, ParamsInput } from './catalog';
import type { InferredResult } from './results';
import { array, integer, nullable, object, oneOf, string } from './schema-builders';

/** Anyone; a user token (never the admin key); or whoever AccessPolicy grants a server capability. */
export type RouteAccess = 'public' | 'users' | { server: ServerCapability };

export interface CatalogRouteSpec {
  method: HttpMethod;
  path: string;
  summary: string;
  access: RouteAccess;
  /** Its input: the query of a GET, the JSON body otherwise. */
  params: Record<string, ParamSpec>;
  answer: RouteAnswer;
  /** The success status, 200 unless given. */
  status?: number;
  /** The same answer under another status too (/health's 503 when storage does not answer). */
  alsoStatus?: number;
  /** Refusals beyond those of its access and input. */
  errors?: readonly ErrorCode[];
}

const catalogRoute = <const R extends CatalogRouteSpec>(spec: R) => spec;
const described = <const S extends object>(schema: S, description: string) => ({ ...schema, description }) as const;

const FIELD = LIMITS.maxInfoFieldLength;
/** Free text other users' terminals show: no control or bidirectional formatting characters. */
const TEXT = { minLength: 1, maxLength: FIELD, pattern: `^[^${CONTROL_CHARS.source.slice(1, -1)}]*$`, patternProblem: 'must not contain control, formatting or invisible characters' } as const;
const info = (what: string) => str(what, TEXT);

export const ROUTES = {
  /** Where to sign in and where the tunnel listens, with the certificate fingerprint a runtime can pin. */
  auth_config: catalogRoute({
    method: 'GET',
    path: '/auth/config',
    summary: 'Sign-in and tunnel discovery for clients and runtimes',
    access: 'public',
    params: {},
    answer: answer(
      object({
        oauth: object({
          issuer: string,
          audience: string,
          client_id: described(string, 'the public client the CLI signs in as'),
          web_client_id: described(string, 'the public client the web dashboard signs in as (authorization code with PKCE)'),
        }),
        /** null when this process does not listen for tunnels. */
        tunnel: nullable(
          object(
            {
              port: integer,
              transports: described(array(oneOf('quic', 'tcp')), 'carriers listening on `port` (quic: udp, tcp: TLS over TCP), preferred first'),
              alpn: array(string),
              certificate_sha256: described(string, 'SHA-256 of the tunnel certificate, for runtimes that pin it'),
              quic: described(
                object({
                  peer_id: described(string, 'libp2p peer id of the Ed25519 key the QUIC (libp2p-tls) handshake proves'),
                  certificate: described(string, "the tunnel certificate chain (PEM), checked like the TCP carrier's"),
                  signature: described(string, 'base64 signature of "svc tunnel QUIC peer id: " + peer_id by that certificate\'s key'),
                }),
                'the QUIC server key, vouched for by the tunnel certificate; absent without QUIC',
              ),
            },
            ['quic'],
          ),
        ),
      }),
    ),
  }),
  /** A runtime asks to be registered (unauthenticated, rate-limited and capped per owner scope). */
  registration_request: catalogRoute({
    method: 'POST',
    path: '/auth/device',
    summary: 'A runtime asks to be registered',
    access: 'public',
    params: {
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
    answer: answer(object({ request_id: string, fingerprint: string })),
    status: 201,
    errors: ['RATE_LIMITED'],
  }),
  /**
   * The runtime polls its request, signed by the requesting key (docs/protocol.md): pending or
   * rejected → {status}; approved → {status, api_key, device_id} once, then 410; no valid proof → 401.
   */
  registration_status: catalogRoute({
    method: 'GET',
    path: '/auth/device/status',
    summary: "A runtime polls its registration request (signed by the requesting key)",
    access: 'public',
    params: { request_id: str('registration request id', { pattern: '^[A-Za-z0-9_-]{8,64}$', rule: 'a registration request id' }) },
    answer: answer({ oneOf: [object({ status: oneOf('pending', 'rejected') }), object({ status: oneOf('approved'), api_key: string, device_id: string })] }),
    errors: ['UNAUTHENTICATED', 'GONE'],
  }),
  /** Every pending request the caller may decide that matches all the filters (a flood), each decision audited. */
  registrations_reject: catalogRoute({
    method: 'POST',
    path: '/devices/registrations/reject',
    summary: 'Reject every pending registration request you may decide that matches the filters',
    access: 'users',
    params: {
      owner_scope: optStr('user:<email> or org:<org_id>', { minLength: 1, maxLength: FIELD + 6 }),
      source_address: optStr('the address the requests came from', { minLength: 1, maxLength: 64 }),
      device_id: optStr('device id', { minLength: 1, maxLength: 128 }),
    },
    answer: answer(object({ status: oneOf('rejected'), count: integer })),
  }),
  /** Liveness plus storage readiness. */
  health: catalogRoute({
    method: 'GET',
    path: '/health',
    summary: 'ok when storage answers; 503 with status degraded otherwise',
    access: 'public',
    params: {},
    answer: answer(object({ status: oneOf('ok', 'degraded'), storage: oneOf('up', 'down'), storage_kind: oneOf('embedded', 'mongo'), uptime_seconds: integer })),
    alsoStatus: 503,
  }),
  /** Server-Sent Events of what the caller may see (docs/dashboard.md, "Event stream"); resumed with Last-Event-ID, never a token in the URL. */
  events: catalogRoute({
    method: 'GET',
    path: '/events',
    summary: 'Server-Sent Events of what the caller may see',
    access: 'users',
    params: {},
    answer: answer(described(string, 'text/event-stream: `id`, `event` (the type) and `data` (JSON) per event'), 'text/event-stream'),
  }),
  /** Prometheus text format; never public. */
  metrics: catalogRoute({
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics of this replica',
    access: { server: 'server:read-metrics' },
    params: {},
    answer: answer(described(string, 'Prometheus exposition format'), 'text/plain'),
  }),
} as const;

export type RouteName = keyof typeof ROUTES;
/** What a route of ROUTES takes, typed from its params (dotted ones nested): `RouteInput` is an operation's. */
export type CatalogRouteInput<N extends RouteName> = NestedInput<ParamsInput<(typeof ROUTES)[N]['params']>>;
/** What a route of ROUTES answers, typed from its answer's schema. */
export type CatalogRouteResult<N extends RouteName> = InferredResult<(typeof ROUTES)[N]['answer']['schema']>;

export function findRoute(name: string): CatalogRouteSpec | undefined {
  return (ROUTES as Record<string, CatalogRouteSpec>)[name];
}

/** The refusals a route of ROUTES can answer, by status: bad input where it takes any, no valid credentials and not allowed unless public, then its own. */
export function catalogRouteErrors(route: CatalogRouteSpec): Map<number, ErrorCode[]> {
  const codes: ErrorCode[] = Object.keys(route.params).length > 0 ? ['INVALID_INPUT'] : [];
  if (route.access !== 'public') codes.push('UNAUTHENTICATED', 'FORBIDDEN');
  return errorsByStatus([...codes, ...(route.errors ?? [])]);
}

export type RegistrationRequestResult = CatalogRouteResult<'registration_request'>;
export type RegistrationStatusResult = CatalogRouteResult<'registration_status'>;
export type RegistrationBulkRejectResult = CatalogRouteResult<'registrations_reject'>;
