import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDirectory, credentialsFilePath } from '@svc/common/credentials-file';
import { InvalidInputError } from '@svc/common/errors';
import { ServerTrust } from '@svc/common/tls-trust';

type Env = Record<string, string | undefined>;

/** Where the CLI talks to and with what: resolved once per command from flags, environment and files. */
export interface CliSettings {
  serverUrl: URL;
  /** Where serverUrl came from, for messages: the flag, SVC_SERVER_URL, config.json or the default. */
  serverUrlSource: string;
  configDir: string;
  credentialsPath: string;
  /** Identity-provider overrides; whatever is unset comes from the server's GET /auth/config. */
  auth: { domain?: string; clientId?: string; audience?: string };
  /** How to trust the server's stream endpoint (UNIFIED_PORT) and an https REST URL with a private CA. */
  trust: ServerTrust;
}

/** The server a fresh checkout's `npm start` serves (docs/configuration.md). */
export const DEFAULT_SERVER_URL = 'http://localhost:8085';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || url.hostname.endsWith('.localhost');
}

/**
 * Parses a server URL. Tokens travel only over HTTPS: plain http is accepted for a loopback host
 * (the development server on this machine) and refused for anything else.
 */
export function parseServerUrl(text: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new InvalidInputError(`${source}: "${text}" is not a URL (expected https://<host>[:port])`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError(`${source}: ${url.protocol} is not supported; use https://`);
  if (url.protocol === 'http:' && !isLoopback(url)) {
    throw new InvalidInputError(`${source}: ${url.origin} is plain HTTP; tokens travel only over HTTPS (http:// is allowed for localhost only)`);
  }
  if (url.username || url.password) throw new InvalidInputError(`${source}: put no credentials in the server URL`);
  url.pathname = '/';
  url.search = '';
  url.hash = '';
  return url;
}

/** config.json in the config directory: what `svc login --server` remembered. */
export interface CliConfigFile {
  server_url?: string;
}

export function cliConfigPath(env: Env): string {
  return join(configDirectory(env), 'config.json');
}

export function readCliConfig(env: Env): CliConfigFile {
  try {
    const parsed: unknown = JSON.parse(readFileSync(cliConfigPath(env), 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as CliConfigFile) : {};
  } catch {
    return {};
  }
}

/**
 * Precedence, highest first: the `--server` flag, SVC_SERVER_URL, the server `svc login --server`
 * saved in config.json, then the local development server.
 */
export function loadCliSettings(env: Env, flags: { server?: string } = {}): CliSettings {
  const saved = readCliConfig(env).server_url;
  const [text, source] =
    flags.server !== undefined
      ? [flags.server, '--server']
      : env.SVC_SERVER_URL
        ? [env.SVC_SERVER_URL, 'SVC_SERVER_URL']
        : saved
          ? [saved, cliConfigPath(env)]
          : [DEFAULT_SERVER_URL, 'the default server'];
  const trust: ServerTrust = {};
  if (env.SVC_CA_FILE) {
    try {
      trust.ca = readFileSync(env.SVC_CA_FILE);
    } catch (error) {
      throw new InvalidInputError(`SVC_CA_FILE: cannot read ${env.SVC_CA_FILE}: ${(error as Error).message}`);
    }
  }
  if (env.SVC_SERVER_FINGERPRINT) trust.pin = normalisePin(env.SVC_SERVER_FINGERPRINT);
  return {
    serverUrl: parseServerUrl(text, source),
    serverUrlSource: source,
    configDir: configDirectory(env),
    credentialsPath: credentialsFilePath(env),
    auth: { domain: env.SVC_AUTH_DOMAIN || undefined, clientId: env.SVC_AUTH_CLIENT_ID || undefined, audience: env.SVC_AUTH_AUDIENCE || undefined },
    trust,
  };
}

/** `sha256:AB:CD…`, `AB:CD…` or plain hex: lower-case hex, or an error naming the variable. */
function normalisePin(text: string): string {
  const hex = text.replace(/^sha256:/i, '').replace(/:/g, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new InvalidInputError('SVC_SERVER_FINGERPRINT: expected the SHA-256 of the server certificate (64 hex digits)');
  return hex;
}
