import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, parseVariables } from '@svc/common';
import type { LogLevel } from '../logging/log-level';
import { DEFAULT_ADMIN_KEY, SERVER_VARIABLES } from './server-variables';
import { configuredServerSecret, loadOrCreateServerSecret, SERVER_SECRET_FILE_NAME } from './server-secret';

export type StorageConfig =
  | { kind: 'embedded'; file: string }
  | { kind: 'mongo'; uri: string; dbName: string; user?: string; password?: string };

/** Several replicas share one NATS (NATS_URL set): the directory, the events and the peer hop. */
export interface ReplicasConfig {
  natsUrl: string;
  peerPort: number;
  /** What the other replicas dial: PEER_ADDRESS (or this host's name) and PEER_PORT. */
  peerAddress: string;
  /** DRAIN_SECS in ms: the window over which SIGTERM closes this replica's tunnels. */
  drainMs: number;
}

export interface ServerConfig {
  staging: boolean;
  logLevel: LogLevel;
  storage: StorageConfig;
  oauth: { issuer: string; audience: string; clientId: string; webClientId: string };
  /** WEB_DIR: the built dashboard served at `/` (may be absent: the API works without it). */
  webDir: string;
  /** Set when the server must start the development identity provider itself. */
  devIdentityProvider: { port: number; keysFile: string } | null;
  publicAddress: string;
  unifiedPort: number;
  restPort: number;
  listenHost: string;
  /** LISTEN_HOST was unset and the default admin key is in use, so the server binds loopback only. */
  loopbackForDefaultKey: boolean;
  /** The QUIC carrier on UNIFIED_PORT/udp; null when TUNNEL_QUIC=false. */
  /** TUNNEL_QUIC: the QUIC carrier is on (quinn sizes its datagrams itself: 1200 bytes, path MTU discovery above). */
  quic: boolean;
  tls: { certFile: string; keyFile: string } | null;
  /** Limits on UNIFIED_PORT's connections (docs/security.md, "Connection limits"). */
  connections: { handshakeTimeoutMs: number; clientIdleTimeoutMs: number; caps: { perAddress: number; total: number } };
  /** Limits on REST_PORT's connections and request bodies (docs/security.md, "Connection limits"). */
  rest: { caps: { perAddress: number; total: number }; bodyTimeoutMs: number };
  adminKey: string;
  /**
   * Key material for what the server seals at rest (see server-secret.ts): SERVER_SECRET,
   * SERVER_SECRET_FILE or, in staging, DATA_DIR/server-secret. Never log it.
   */
  serverSecret: Buffer;
  adminEmails: string[];
  usersNeedApproval: boolean;
  userAutoAcceptDomains: string[];
  allowCrossOrgDeviceSharing: boolean;
  auditRetentionDays: number;
  reportRetentionDays: number;
  /** GET /events: the resumable window (EVENTS_WINDOW, EVENTS_WINDOW_SECS) and the streams per user. */
  events: { windowSize: number; windowSecs: number; maxStreamsPerUser: number };
  /** FILES_STALL_TIMEOUT_SECS, in milliseconds: the deadline of a file operation whose device moves no byte. */
  filesStallTimeoutMs: number;
  dataDir: string;
  registrationRateLimit: number;
  maxPendingPerScope: number;
  maxPendingPerSource: number;
  /** WEB_ORIGINS: the browser origins that may use the terminal bridge; empty: the server's own origin only. */
  webOrigins: string[];
  /** REPLICA_ID, or one generated at start: names this process in the tunnel directory. */
  replicaId: string;
  /** Null without NATS_URL: one server process, as without replicas. */
  replicas: ReplicasConfig | null;
}

export const SERVER_CONFIG = Symbol('SERVER_CONFIG');

const LOOPBACK = '127.0.0.1';
/** apps/web/dist, from apps/server/{src,dist}/config. */
const DEFAULT_WEB_DIR = resolve(__dirname, '../../../web/dist');
const ALL_IPV4 = '0.0.0.0';

/** Parses and validates the whole environment once; throws ConfigError naming every bad variable. */
export function loadServerConfig(env: Record<string, string | undefined>): ServerConfig {
  const raw = parseVariables(SERVER_VARIABLES, env);
  const staging = raw.staging === 1;
  const problems: string[] = [];

  const certFile = join(raw.certificatePath!, 'cert.pem');
  const keyFile = join(raw.certificatePath!, 'key.pem');
  const tls = existsSync(certFile) && existsSync(keyFile) ? { certFile, keyFile } : null;
  const dataDir = resolve(raw.dataDir!);

  if (!staging) {
    if (raw.adminKey === DEFAULT_ADMIN_KEY) problems.push('ADMIN_KEY: the default admin key is refused in production (STAGING=0); set a secret of at least 24 characters');
    else if (raw.adminKey!.length < 24) problems.push('ADMIN_KEY: must be at least 24 characters in production (STAGING=0)');
    if (!tls) problems.push(`CERTIFICATE_PATH: production (STAGING=0) needs TLS certificates; ${certFile} and ${keyFile} must exist`);
    if (!raw.oauthIssuer) problems.push('OAUTH_ISSUER: required in production (STAGING=0)');
    if (!raw.oauthAudience) problems.push('OAUTH_AUDIENCE: required in production (STAGING=0)');
    if (!raw.dbUri) problems.push('DB_URI: required in production (STAGING=0); the embedded store is for staging only');
  }
  const configuredSecret = configuredServerSecret({ value: raw.serverSecret, file: raw.serverSecretFile }, !staging, raw.adminKey!, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const serverSecret = configuredSecret ?? loadOrCreateServerSecret(join(dataDir, SERVER_SECRET_FILE_NAME));

  const loopbackForDefaultKey = raw.listenHost === undefined && raw.adminKey === DEFAULT_ADMIN_KEY;
  const devIdentityProvider = raw.oauthIssuer ? null : { port: raw.devIdpPort, keysFile: join(dataDir, 'dev-idp', 'jwks.json') };
  const issuer = raw.oauthIssuer ?? `http://localhost:${raw.devIdpPort}/`;
  const audience = raw.oauthAudience ?? issuer.replace(/\/$/, '');

  return {
    staging,
    logLevel: raw.logLevel,
    storage: raw.dbUri
      ? { kind: 'mongo', uri: raw.dbUri, dbName: raw.dbName!, user: raw.dbUser, password: raw.dbPassword }
      : { kind: 'embedded', file: join(dataDir, 'svc.sqlite') },
    oauth: { issuer, audience, clientId: raw.oauthClientId, webClientId: raw.oauthWebClientId },
    webDir: resolve(raw.webDir ?? DEFAULT_WEB_DIR),
    devIdentityProvider,
    publicAddress: raw.publicAddress!,
    unifiedPort: raw.unifiedPort,
    restPort: raw.restPort,
    listenHost: raw.listenHost ?? (loopbackForDefaultKey ? LOOPBACK : ALL_IPV4),
    loopbackForDefaultKey,
    quic: raw.tunnelQuic,
    tls,
    connections: {
      handshakeTimeoutMs: raw.handshakeTimeoutMs,
      clientIdleTimeoutMs: raw.clientIdleTimeoutMs,
      caps: { perAddress: raw.maxConnectionsPerAddress, total: raw.maxConnections },
    },
    rest: { caps: { perAddress: raw.restMaxConnectionsPerAddress, total: raw.restMaxConnections }, bodyTimeoutMs: raw.restBodyTimeoutMs },
    adminKey: raw.adminKey!,
    serverSecret: Buffer.from(serverSecret, 'utf8'),
    adminEmails: raw.adminEmails,
    usersNeedApproval: raw.usersNeedApproval,
    userAutoAcceptDomains: raw.userAutoAcceptDomains,
    allowCrossOrgDeviceSharing: raw.allowCrossOrgDeviceSharing,
    auditRetentionDays: raw.auditRetentionDays,
    reportRetentionDays: raw.reportRetentionDays,
    events: { windowSize: raw.eventsWindow, windowSecs: raw.eventsWindowSecs, maxStreamsPerUser: raw.eventsMaxStreamsPerUser },
    filesStallTimeoutMs: raw.filesStallTimeoutSecs * 1000,
    dataDir,
    registrationRateLimit: raw.registrationRateLimit,
    maxPendingPerScope: raw.maxPendingPerScope,
    maxPendingPerSource: raw.maxPendingPerSource,
    webOrigins: raw.webOrigins,
    replicaId: raw.replicaId ?? randomUUID(),
    replicas: raw.natsUrl ? { natsUrl: raw.natsUrl, peerPort: raw.peerPort, peerAddress: hostAndPort(raw.peerAddress ?? hostname(), raw.peerPort), drainMs: raw.drainSecs * 1000 } : null,
  };
}

function hostAndPort(host: string, port: number): string {
  return isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}
