import { checkSocketPath, CLIENT_VARIABLES, ConfigError, configDirectory, credentialsFilePath, deviceNameProblem, isScope, parseVariables } from '@svc/common';
import { defaultDockerSockets, LOG_LEVELS, LogLevel, parseDuration, parseHostPort, parseIntervalOrOff, parsePin, RUNTIME_VARIABLES, TRANSPORT_MODES, TransportMode } from './runtime-variables';
import type { QuicBindingSetting } from './runtime-variables';

type Env = Record<string, string | undefined>;

/** Flags of `svc runtime run`, as node:util parseArgs gives them. */
export interface RunFlags {
  server?: string;
  owner?: string;
  'device-id'?: string;
  name?: string;
  'poll-interval'?: string;
  'approval-timeout'?: string;
  tunnel?: string;
  ca?: string;
  pin?: string;
  'log-level'?: string;
  reregister?: boolean;
  transport?: string;
  'quic-probe-interval'?: string;
  'quic-near-rtt'?: string;
  'docker-socket'?: string;
  'image-update-interval'?: string;
}

export interface RuntimeConfig {
  serverUrl: URL;
  /** Requested owner scope; undefined means "ask on the terminal". */
  owner?: string;
  deviceId?: string;
  /** Display name to register with (--name); the server names the device after its host otherwise. */
  name?: string;
  pollIntervalMs: number;
  approvalTimeoutMs: number;
  /** Overrides the tunnel address discovered through GET /auth/config. */
  tunnel?: { host: string; port: number };
  caFile?: string;
  /** Pinned leaf certificate fingerprint (lower-case hex); when set it alone decides trust. */
  pin?: string;
  logLevel: LogLevel;
  reregister: boolean;
  transport: TransportMode;
  quicProbeIntervalMs: number;
  /** auto: a QUIC round trip below this (ms) means a near server, which gets TCP; 0 = never. */
  quicNearRttMs: number;
  quicBinding: QuicBindingSetting;
  /** Container engine sockets for the docker operation: the configured one, or the usual places in order. */
  dockerSockets: string[];
  /** How often labelled containers are checked for newer images; 0 = never. */
  imageUpdateIntervalMs: number;
  /** SVC_API_KEY: used before the credentials file, never written to it. */
  envApiKey?: string;
  configDir: string;
  credentialsPath: string;
}

/** Flags beat variables; every bad value is reported at once, naming the flag or variable. */
export function loadRuntimeConfig(flags: RunFlags, env: Env): RuntimeConfig {
  const problems: string[] = [];
  const client = collect(problems, () => parseVariables(CLIENT_VARIABLES, env));
  const vars = { ...client, ...collect(problems, () => parseVariables(RUNTIME_VARIABLES, env)) };
  const flag = <T>(name: keyof RunFlags, parse: (raw: string) => T): T | undefined => {
    const raw = flags[name];
    if (typeof raw !== 'string') return undefined;
    return collect(problems, () => parse(raw), `--${name}`);
  };

  const serverText = flags.server ?? vars.serverUrl;
  const serverUrl = serverText === undefined ? undefined : collect(problems, () => parseServerUrl(serverText), '--server');
  if (serverText === undefined) problems.push('the server address is required: --server <url> or SVC_SERVER_URL');
  const owner = flag('owner', (raw) => {
    if (!isScope(raw)) throw new Error('must be a scope: user:<email> or org:<org_id>');
    return raw;
  });
  const dockerSocketText = flags['docker-socket'] ?? vars.dockerSocket;
  const dockerSocket = dockerSocketText === undefined ? undefined : collect(problems, () => checkSocketPath(dockerSocketText, 'the container engine socket'), '--docker-socket');
  const config: Omit<RuntimeConfig, 'serverUrl'> = {
    owner: owner ?? vars.ownerReference,
    deviceId: flags['device-id'],
    name: flag('name', parseDeviceName),
    pollIntervalMs: flag('poll-interval', parseDuration) ?? vars.pollInterval ?? 10_000,
    approvalTimeoutMs: flag('approval-timeout', parseDuration) ?? vars.approvalTimeout ?? 3_600_000,
    tunnel: flag('tunnel', parseHostPort),
    caFile: flags.ca ?? vars.caFile,
    pin: flag('pin', parsePin) ?? vars.pin,
    logLevel: flag('log-level', parseLogLevel) ?? vars.logLevel ?? 'info',
    reregister: flags.reregister === true,
    transport: flag('transport', parseTransport) ?? vars.transport ?? 'auto',
    quicProbeIntervalMs: flag('quic-probe-interval', parseDuration) ?? vars.quicProbeInterval ?? 60_000,
    quicNearRttMs: flag('quic-near-rtt', parseIntervalOrOff) ?? vars.quicNearRtt ?? 2,
    quicBinding: vars.quicBinding ?? 'load',
    dockerSockets: dockerSocket ? [dockerSocket] : defaultDockerSockets(env),
    imageUpdateIntervalMs: flag('image-update-interval', parseIntervalOrOff) ?? vars.imageUpdateInterval ?? 300_000,
    envApiKey: vars.apiKey,
    configDir: configDirectory(env),
    credentialsPath: credentialsFilePath(env),
  };
  if (problems.length > 0 || serverUrl === undefined) throw new ConfigError(problems);
  return { ...config, serverUrl };
}

function parseServerUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must use https or http');
  return url;
}

function parseLogLevel(raw: string): LogLevel {
  const level = raw.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
  return level as LogLevel;
}

function parseDeviceName(raw: string): string {
  const problem = deviceNameProblem(raw);
  if (problem !== null) throw new Error(problem);
  return raw;
}

function parseTransport(raw: string): TransportMode {
  const mode = raw.trim().toLowerCase();
  if (!(TRANSPORT_MODES as readonly string[]).includes(mode)) throw new Error(`must be one of ${TRANSPORT_MODES.join(', ')}`);
  return mode as TransportMode;
}

function collect<T>(problems: string[], work: () => T, label?: string): T | undefined {
  try {
    return work();
  } catch (error) {
    if (error instanceof ConfigError) problems.push(...error.problems);
    else problems.push(label ? `${label}: ${(error as Error).message}` : (error as Error).message);
    return undefined;
  }
}
