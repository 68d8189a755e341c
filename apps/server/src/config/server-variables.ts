import { isEmail, v, VariableSpec } from '@svc/common';
import { LOG_LEVELS } from '../logging/log-level';

/** The client the development identity provider registers for the CLI. */
export const DEFAULT_OAUTH_CLIENT_ID = 'svc-cli';

/** The client the development identity provider registers for the web dashboard. */
export const DEFAULT_OAUTH_WEB_CLIENT_ID = 'svc-web';

export const DEFAULT_ADMIN_KEY = 'svc-default-admin-key-change-me';

const DOMAIN = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/** `scheme://host[:port]` exactly as a browser's `Origin` header spells it (no path, no default port). */
function isWebOrigin(item: string): boolean {
  try {
    const url = new URL(item);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === item.toLowerCase();
  } catch {
    return false;
  }
}

/** The same variable, parsed to undefined when unset, so the config can choose a default from other values. */
function optional<T>(spec: VariableSpec<T>, defaultText: string): VariableSpec<T | undefined> {
  return { ...spec, defaultText, parse: (raw) => (raw === undefined ? undefined : spec.parse(raw)) };
}

/** Every variable the server reads. Nothing else in the server touches process.env. */
export const SERVER_VARIABLES = {
  dbUri: v.url(
    'DB_URI',
    'MongoDB connection string (`mongodb://` or `mongodb+srv://`). Unset in staging: the embedded SQLite store under `DATA_DIR`. Required when `STAGING=0`; the compose file sets `mongodb://mongo:27017`.',
    'unset (embedded store)',
    ['mongodb', 'mongodb+srv'],
  ),
  dbName: v.matching('DB_NAME', 'Logical database name.', 'svc-server', /^[A-Za-z0-9_-]{1,63}$/, '1-63 letters, digits, "_" or "-" (a valid MongoDB database name)'),
  dbUser: v.string('DB_INITDB_ROOT_USERNAME', 'Database root user, for secured MongoDB setups.'),
  dbPassword: v.string('DB_INITDB_ROOT_PASSWORD', 'Database root password, for secured MongoDB setups. Never logged.'),
  oauthIssuer: v.url(
    'OAUTH_ISSUER',
    'Issuer URL used to validate access tokens (`iss` must equal it; keys come from its JWKS). Unset in staging: the built-in development identity provider is started and used. Required when `STAGING=0`.',
    '`http://localhost:<DEV_IDP_PORT>/` (development provider)',
    ['https', 'http'],
  ),
  oauthAudience: v.string(
    'OAUTH_AUDIENCE',
    'Expected audience: the token\'s `aud` claim must contain it. Required when `STAGING=0`.',
    undefined,
  ),
  oauthClientId: v.matching(
    'OAUTH_CLIENT_ID',
    'The public OAuth client the CLI signs in as, advertised by `GET /auth/config`: register it at your identity provider (device-code and refresh-token grants, no secret). The development identity provider registers it itself.',
    DEFAULT_OAUTH_CLIENT_ID,
    /^[\x21-\x7e]{1,200}$/,
    '1-200 printable ASCII characters, no spaces',
  ),
  oauthWebClientId: v.matching(
    'OAUTH_WEB_CLIENT_ID',
    'The public OAuth client the web dashboard signs in as (authorization code with PKCE, refresh tokens, no secret), advertised by `GET /auth/config`: register it at your identity provider with the dashboard\'s address (`https://<host>:<REST_PORT>/`) as redirect URI. The development identity provider registers it itself, for `localhost`, `127.0.0.1` and `PUBLIC_ADDRESS` on `REST_PORT`.',
    DEFAULT_OAUTH_WEB_CLIENT_ID,
    /^[\x21-\x7e]{1,200}$/,
    '1-200 printable ASCII characters, no spaces',
  ),
  webDir: optional(
    v.string('WEB_DIR', 'Directory of the built web dashboard (`npm run build` writes `apps/web/dist`), served at `/` on `REST_PORT`. When it holds no `index.html`, `/` says the dashboard is not built and the API works as before.'),
    '`apps/web/dist` beside the server',
  ),
  publicAddress: v.host('PUBLIC_ADDRESS', 'Public host name of the server; used to check the SNI of incoming tunnel connections for device-id prefixes.', 'localhost'),
  unifiedPort: v.port('UNIFIED_PORT', 'Port for runtime connections and tunnel traffic (TCP and UDP); map it to 443.', 8084),
  restPort: v.port('REST_PORT', 'Port for the REST API; typically mapped to 8080.', 8085),
  listenHost: optional(
    v.host('LISTEN_HOST', 'Address the server binds to (`REST_PORT` and `UNIFIED_PORT`). Unset: `0.0.0.0` (all IPv4 addresses), except while `ADMIN_KEY` is the well-known default: then `127.0.0.1` only, so nobody else can use that key; set `LISTEN_HOST` to serve other hosts anyway.', '0.0.0.0'),
    '`0.0.0.0`; `127.0.0.1` with the default `ADMIN_KEY`',
  ),
  tunnelQuic: v.boolean('TUNNEL_QUIC', 'false: no QUIC carrier on `UNIFIED_PORT`/udp; runtimes in `auto` mode then use TLS over TCP.', true),
  handshakeTimeoutMs: v.integer(
    'TUNNEL_HANDSHAKE_TIMEOUT_MS',
    'A TCP connection to `UNIFIED_PORT` must finish its TLS handshake (a QUIC connection: open its stream) within this many milliseconds, and a runtime must then send its hello within as long again; otherwise it is closed.',
    10_000,
    100,
    300_000,
  ),
  clientIdleTimeoutMs: v.integer(
    'TUNNEL_CLIENT_IDLE_TIMEOUT_MS',
    'A client (CLI, MCP) connection to `UNIFIED_PORT` with no open stream for this many milliseconds is closed; the client reconnects on its next command.',
    60_000,
    100,
    3_600_000,
  ),
  maxConnectionsPerAddress: v.integer(
    'TUNNEL_MAX_CONNECTIONS_PER_ADDRESS',
    'Connections to `UNIFIED_PORT` one source address may hold at once on each carrier (runtimes, clients and handshakes in progress); further ones are refused. Raise it when many devices share one public address (NAT).',
    256,
    1,
    1_000_000,
  ),
  maxConnections: v.integer('TUNNEL_MAX_CONNECTIONS', 'Connections to `UNIFIED_PORT` held at once from all addresses, on each carrier; further ones are refused.', 10_000, 1, 1_000_000),
  restMaxConnectionsPerAddress: v.integer(
    'REST_MAX_CONNECTIONS_PER_ADDRESS',
    'Connections to `REST_PORT` one source address may hold at once (browsers, CLIs, terminal WebSockets, connections still sending their request); further ones are closed at once. Behind a reverse proxy every client has the proxy\'s address: raise it there.',
    256,
    1,
    1_000_000,
  ),
  restMaxConnections: v.integer(
    'REST_MAX_CONNECTIONS',
    'Connections to `REST_PORT` held at once from all addresses; further ones are closed at once. With `TUNNEL_MAX_CONNECTIONS` it should stay below the process\'s file descriptor limit (`ulimit -n`), so that a flood of one port cannot starve the other.',
    4_096,
    1,
    1_000_000,
  ),
  restBodyTimeoutMs: v.integer(
    'REST_BODY_TIMEOUT_MS',
    'A JSON request body on `REST_PORT` must arrive whole within this many milliseconds of its headers; otherwise the request is answered 408 and its connection closed. A body the server will not read (an answer given before it, such as a refused upload) must end within as long, or its connection is closed. Streamed file uploads and the deploy route\'s large body, read once authenticated, have no overall deadline.',
    30_000,
    100,
    600_000,
  ),
  adminKey: v.string('ADMIN_KEY', 'Static admin key for privileged actions, sent in the `X-Admin-Key` header. The default is refused when `STAGING=0`.', DEFAULT_ADMIN_KEY),
  serverSecret: {
    ...v.string(
      'SERVER_SECRET',
      'Secret from which the server derives the keys that seal approved API keys until their runtime collects them. Never logged. Required when `STAGING=0` (or `SERVER_SECRET_FILE`): at least 32 characters, different from `ADMIN_KEY`. Changing it voids approved keys not yet collected.',
    ),
    defaultText: 'staging: generated into `DATA_DIR/server-secret`',
  },
  serverSecretFile: v.string(
    'SERVER_SECRET_FILE',
    'File holding the server secret (e.g. a Docker or Kubernetes secret), instead of `SERVER_SECRET`; surrounding whitespace is ignored.',
  ),
  adminEmails: v.list('ADMIN_EMAILS', 'E-mail addresses that receive admin privileges.', isEmail, 'an e-mail address'),
  usersNeedApproval: v.boolean('USERS_NEED_APPROVAL', 'true: new accounts start inactive until an admin approves them.', false),
  userAutoAcceptDomains: v.list('USER_AUTO_ACCEPT_DOMAINS', 'E-mail domains whose users skip approval (no spaces).', (d) => DOMAIN.test(d), 'a domain name'),
  allowCrossOrgDeviceSharing: v.boolean('ALLOW_CROSS_ORG_DEVICE_SHARING', 'true: an organization\'s devices may be shared with scopes outside that organization.', false),
  auditRetentionDays: v.integer('AUDIT_RETENTION_DAYS', 'Days audit entries are kept before automatic deletion.', 30, 1, 36500),
  reportRetentionDays: v.integer('REPORT_RETENTION_DAYS', 'Days deployment reports are kept before automatic deletion.', 7, 1, 36500),
  filesStallTimeoutSecs: v.integer('FILES_STALL_TIMEOUT_SECS', 'Seconds a file operation (ls, cp, sync) may wait on a device that moves no byte; then it fails with TIMEOUT and the device\'s stream is cancelled.', 120, 1, 86400),
  eventsWindow: v.integer('EVENTS_WINDOW', 'Events each server replica keeps for `GET /events` to resume from (`Last-Event-ID`); a client further behind gets a `reset` event.', 1000, 1, 100000),
  eventsWindowSecs: v.integer('EVENTS_WINDOW_SECS', 'Seconds an event stays resumable (with `EVENTS_WINDOW`, whichever is reached first).', 600, 1, 86400),
  eventsMaxStreamsPerUser: v.integer('EVENTS_MAX_STREAMS_PER_USER', 'Event streams (`GET /events`) one user may hold open at once; one more is refused with 429.', 8, 1, 1000),
  staging: {
    ...v.integer('STAGING', '1: staging (embedded defaults, development identity provider, relaxed checks); 0: production (refuses the default admin key, missing TLS certificates, missing DB_URI/OAUTH_ISSUER/OAUTH_AUDIENCE).', 1, 0, 1),
    type: 'number (0 or 1)',
  },
  logLevel: v.oneOf('RUST_LOG', 'Log level.', LOG_LEVELS, 'info'),
  certificatePath: v.string('CERTIFICATE_PATH', 'Directory holding `cert.pem` (certificate chain) and `key.pem` (private key) for TLS.', '/data/svc/certs/'),
  dataDir: v.string('DATA_DIR', 'Directory for the embedded store and the development identity provider\'s keys.', './data'),
  devIdpPort: v.port('DEV_IDP_PORT', 'Port of the development identity provider (staging only, when OAUTH_ISSUER is unset).', 8086),
  registrationRateLimit: v.integer('REGISTRATION_RATE_LIMIT', 'Device registration requests accepted per source address per minute.', 30, 1, 100000),
  maxPendingPerScope: v.integer('MAX_PENDING_REGISTRATIONS', 'Pending registration requests kept per requested owner scope.', 100, 1, 100000),
  maxPendingPerSource: v.integer('MAX_PENDING_REGISTRATIONS_PER_SOURCE', 'Pending registration requests kept per requested owner scope from one source address, so one address cannot use up an owner\'s MAX_PENDING_REGISTRATIONS.', 10, 1, 100000),
  natsUrl: v.url(
    'NATS_URL',
    'NATS server (with JetStream, `nats-server -js`) that several server replicas share: the directory of which replica holds each device\'s tunnel, and the events between replicas. Unset: one server process, with everything in that process.',
    'unset (one server process)',
    ['nats', 'tls'],
  ),
  peerPort: v.port('PEER_PORT', 'Port of the internal peer listener, on which the other replicas (only they) reach the devices this replica holds; used when `NATS_URL` is set. Never expose it publicly.', 8087),
  peerAddress: optional(
    v.host('PEER_ADDRESS', 'Host name or address the other replicas dial to reach this replica\'s peer listener (on `PEER_PORT`); used when `NATS_URL` is set.', 'localhost'),
    'this machine\'s host name',
  ),
  webOrigins: v.list(
    'WEB_ORIGINS',
    'Origins (`https://svc.example.com`) whose pages may get terminal tickets (`POST /api/tickets`) and open the terminal WebSocket (`/api/ws`). Empty: only the server\'s own origin as the browser addressed it (the `Origin` header\'s host equals the `Host` header). Set it in production, behind a proxy that rewrites `Host`, or for a development server on another port.',
    isWebOrigin,
    'an origin such as https://svc.example.com (scheme, host and port only)',
  ),
  drainSecs: v.integer('DRAIN_SECS', 'With `NATS_URL`: on SIGTERM the replica closes its tunnels spread over this many seconds (0: all at once), so their runtimes move to the other replicas without a stampede.', 5, 0, 300),
  replicaId: optional(
    v.matching('REPLICA_ID', 'Names this server replica in the tunnel directory and in logs; unique among the replicas sharing a `NATS_URL`.', 'generated', /^[A-Za-z0-9_-]{1,64}$/, '1-64 letters, digits, "_" or "-"'),
    'generated at each start',
  ),
};
