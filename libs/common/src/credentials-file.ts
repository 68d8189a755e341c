import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { FileLockTimeoutError, withFileLock } from './file-lock';

/**
 * The credentials file shared by the CLI (`credentials.OAuth2Token`) and the runtime
 * (`device_credentials`): `~/.config/svc/credentials.json`, pretty JSON, mode 0600. Each program
 * changes only its own section and keeps every other key as it found it.
 */
export interface OAuth2TokenRecord {
  access_token: string;
  refresh_token?: string;
  /** Unix seconds. */
  expires_at: number;
}

export interface DeviceCredentials {
  api_key?: string;
  device_id?: string;
  /** The runtime's Ed25519 identity key: PKCS#8 DER, base64url. */
  identity_key?: string;
  /** A registration request still awaiting approval, so a restarted runtime resumes it. */
  request_id?: string;
  [key: string]: unknown;
}

export interface CredentialsDocument {
  credentials?: { OAuth2Token?: OAuth2TokenRecord; [key: string]: unknown };
  device_credentials?: DeviceCredentials;
  [key: string]: unknown;
}

/** The file exists but cannot be used; the message names the file and what to do. */
export class CredentialsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsFileError';
  }
}

type Env = Record<string, string | undefined>;

/** `SVC_CONFIG_DIR`, else `$HOME/.config/svc`. */
export function configDirectory(env: Env): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  return join(env.HOME || homedir(), '.config', 'svc');
}

export function credentialsFilePath(env: Env): string {
  return join(configDirectory(env), 'credentials.json');
}

/** A missing file reads as empty; anything unparseable is a CredentialsFileError, never a crash. */
export function readCredentials(path: string): CredentialsDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CredentialsFileError(`Cannot read credentials file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CredentialsFileError(`Credentials file ${path} is not valid JSON (${(error as Error).message}); fix it or remove it`);
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new CredentialsFileError(`Credentials file ${path} ${problem}; fix it or remove it`);
  return parsed as CredentialsDocument;
}

function shapeProblem(doc: unknown): string | undefined {
  if (!isObject(doc)) return 'does not hold a JSON object';
  for (const section of ['credentials', 'device_credentials']) {
    if (doc[section] !== undefined && !isObject(doc[section])) return `has a "${section}" that is not an object`;
  }
  const device = doc.device_credentials as Record<string, unknown> | undefined;
  for (const key of ['api_key', 'device_id', 'identity_key', 'request_id']) {
    if (device?.[key] !== undefined && typeof device[key] !== 'string') return `has a "device_credentials.${key}" that is not a string`;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Replaces the file atomically: a temp file in the same directory, created 0600 (never readable
 * by others, whatever the umask), written and fsynced, then renamed over the old one. A reader,
 * or a crash at any point, sees the old file or the new one, never a mix.
 */
export function writeCredentials(path: string, doc: CredentialsDocument): void {
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600);
      const bytes = Buffer.from(text, 'utf8');
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temp file was never created or is already renamed.
    }
    throw new CredentialsFileError(`Cannot write credentials file ${path}: ${(error as Error).message}`);
  }
  syncDirectory(dir);
}

/** Makes the rename itself durable; some file systems refuse to fsync a directory, which is fine. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort only.
  }
}

/**
 * Read, change one section, write back: every key the change does not touch is preserved. The
 * whole cycle holds `credentials.json.lock`, so the CLI and the runtime, each changing its own
 * section at the same moment, never lose each other's change (e.g. the runtime's one-time key).
 */
export function updateCredentials(path: string, change: (doc: CredentialsDocument) => void): CredentialsDocument {
  return lockedCredentials(path, () => {
    const doc = readCredentials(path);
    change(doc);
    writeCredentials(path, doc);
    return doc;
  });
}

/** `svc runtime logout`: forgets the device's key and identity; the CLI's tokens stay. */
export function clearDeviceCredentials(path: string): boolean {
  return lockedCredentials(path, () => {
    const doc = readCredentials(path);
    if (doc.device_credentials === undefined) return false;
    delete doc.device_credentials;
    writeCredentials(path, doc);
    return true;
  });
}

function lockedCredentials<T>(path: string, work: () => T): T {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return withFileLock(path, work);
  } catch (error) {
    // The lock's own failures (busy past the timeout, an unwritable directory) in the file's words; the change's errors as they are.
    if (error instanceof FileLockTimeoutError || (error as NodeJS.ErrnoException).code !== undefined) {
      throw new CredentialsFileError(`Cannot update credentials file ${path}: ${(error as Error).message}`);
    }
    throw error;
  }
}
