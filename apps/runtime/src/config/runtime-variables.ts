import { v, VariableSpec } from '@svc/common';

/** `--transport`: auto tries QUIC and falls back to TLS over TCP; quic or tcp use that carrier only. */
export const TRANSPORT_MODES = ['auto', 'quic', 'tcp'] as const;
export type TransportMode = (typeof TRANSPORT_MODES)[number];
/** SVC_QUIC_BINDING: `load` the native QUIC binding when needed, or `none` (act as a platform without one). */
export const QUIC_BINDING_SETTINGS = ['load', 'none'] as const;
export type QuicBindingSetting = (typeof QUIC_BINDING_SETTINGS)[number];

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `10`, `10s`, `500ms`, `60m`, `1h` → milliseconds; a bare number is seconds. */
export function parseDuration(raw: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) throw new Error('must be a duration such as 10s, 500ms, 60m or 1h');
  const factors: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const factor = factors[match[2] ?? 's'];
  const ms = Math.round(Number(match[1]) * factor);
  if (ms < 1) throw new Error('must be at least 1ms');
  return ms;
}

function duration(name: string, description: string, dflt: string): VariableSpec<number> {
  return { name, type: 'duration', defaultText: `\`${dflt}\``, description, parse: (raw) => parseDuration(raw ?? dflt) };
}

/** A duration, or `off` / `0` (any unit) → 0: switched off. */
export function parseIntervalOrOff(raw: string): number {
  const text = raw.trim().toLowerCase();
  if (text === 'off' || /^0+(\.0*)?(ms|s|m|h)?$/.test(text)) return 0;
  return parseDuration(text);
}

/** `sha256:<hex>` or bare hex, colons allowed (as `openssl x509 -fingerprint` prints it) → lower-case hex. */
export function parsePin(raw: string): string {
  const hex = raw.trim().replace(/^sha256:/i, '').replace(/:/g, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error('must be a SHA-256 certificate fingerprint: sha256:<64 hex digits>');
  return hex;
}

/** `host:port` (IPv6 as `[::1]:8084`). */
export function parseHostPort(raw: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw.trim());
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) throw new Error('must be host:port');
  return { host: match[1] ?? match[2], port };
}

/** Where container engines put their socket, tried in order when `--docker-socket` is not given. */
export function defaultDockerSockets(env: Record<string, string | undefined>): string[] {
  const rootless = env.XDG_RUNTIME_DIR ? [`${env.XDG_RUNTIME_DIR}/podman/podman.sock`] : [];
  return ['/var/run/docker.sock', ...rootless, '/run/podman/podman.sock'];
}

/**
 * Variables only the runtime reads (the shared client ones, SVC_SERVER_URL, SVC_API_KEY and
 * OWNER_REFERENCE, live in CLIENT_VARIABLES). Command-line flags override them.
 */
export const RUNTIME_VARIABLES = {
  caFile: v.string('SVC_CA_FILE', 'PEM file of the CA that signed the server certificate (flag `--ca`).'),
  pin: {
    ...v.string('SVC_SERVER_FINGERPRINT', 'Pinned SHA-256 fingerprint of the server leaf certificate, `sha256:<hex>` (flag `--pin`).'),
    parse: (raw: string | undefined) => (raw === undefined ? undefined : parsePin(raw)),
  },
  pollInterval: duration('SVC_REGISTRATION_POLL_INTERVAL', 'How often a registering runtime asks whether it was approved (flag `--poll-interval`).', '10s'),
  approvalTimeout: duration('SVC_APPROVAL_TIMEOUT', 'How long a registering runtime waits for approval (flag `--approval-timeout`).', '60m'),
  logLevel: v.oneOf('RUST_LOG', 'Log level of the runtime (flag `--log-level`).', LOG_LEVELS, 'info'),
  transport: v.oneOf('SVC_TUNNEL_TRANSPORT', 'Tunnel carrier: `auto` (QUIC, falling back to TLS over TCP when UDP is blocked, moving back when QUIC works again; TLS over TCP to a near server, see `SVC_QUIC_NEAR_RTT`), `quic` or `tcp` (flag `--transport`).', TRANSPORT_MODES, 'auto'),
  quicProbeInterval: duration('SVC_QUIC_PROBE_INTERVAL', 'In `auto` mode, how often a runtime that fell back to TCP tries QUIC again (flag `--quic-probe-interval`).', '60s'),
  quicNearRtt: {
    ...duration(
      'SVC_QUIC_NEAR_RTT',
      'In `auto` mode, a server whose QUIC round trip is below this is near (same host, LAN) and gets TLS over TCP, which moves bulk data faster there; `0` or `off`: QUIC whatever the distance (flag `--quic-near-rtt`).',
      '2ms',
    ),
    type: 'duration or `off`',
    parse: (raw: string | undefined) => parseIntervalOrOff(raw ?? '2ms'),
  },
  quicBinding: v.oneOf(
    'SVC_QUIC_BINDING',
    '`none`: do not load the native QUIC binding, as on a platform that has none (32-bit ARM): `auto` then uses TLS over TCP and says why in `svc runtime status` and `svc devices status`; `quic` fails.',
    QUIC_BINDING_SETTINGS,
    'load',
  ),
  dockerSocket: v.string('SVC_DOCKER_SOCKET', 'Container engine socket that docker_exec reaches (flag `--docker-socket`); default: the first of /var/run/docker.sock, $XDG_RUNTIME_DIR/podman/podman.sock, /run/podman/podman.sock that exists.'),
  imageUpdateInterval: {
    ...duration(
      'SVC_IMAGE_UPDATE_INTERVAL',
      'How often the runtime checks containers labelled `io.svc.update=true` or `com.centurylinklabs.watchtower.enable=true` for a newer image and recreates them on it; `0` or `off` turns the checks off (flag `--image-update-interval`).',
      '5m',
    ),
    type: 'duration or `off`',
    parse: (raw: string | undefined) => parseIntervalOrOff(raw ?? '5m'),
  },
};
