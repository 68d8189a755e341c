import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '@svc/common';

/**
 * The server secret keys what the server keeps sealed at rest (approved API keys waiting for their
 * runtime). It is not ADMIN_KEY: that one is shown to operators, sent in headers, and its staging
 * default is public. None of these functions puts the secret into a message.
 */
export const MIN_SERVER_SECRET_LENGTH = 32;
export const SERVER_SECRET_FILE_NAME = 'server-secret';

export interface SecretSource {
  value?: string;
  file?: string;
}

/**
 * The configured secret (SERVER_SECRET or the content of SERVER_SECRET_FILE, surrounding
 * whitespace removed), or null when neither is set. Adds a problem for an unusable source and,
 * in production, for a missing or weak secret.
 */
export function configuredServerSecret(source: SecretSource, production: boolean, adminKey: string, problems: string[]): string | null {
  if (source.value !== undefined && source.file !== undefined) {
    problems.push('SERVER_SECRET_FILE: set either SERVER_SECRET or SERVER_SECRET_FILE, not both');
    return null;
  }
  const name = source.file !== undefined ? 'SERVER_SECRET_FILE' : 'SERVER_SECRET';
  let secret: string | null = source.value ?? null;
  if (source.file !== undefined) {
    try {
      secret = readFileSync(source.file, 'utf8').trim();
    } catch (error) {
      problems.push(`SERVER_SECRET_FILE: cannot read ${source.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return null;
    }
    if (secret === '') {
      problems.push(`SERVER_SECRET_FILE: ${source.file} is empty`);
      return null;
    }
  }
  if (!production) return secret;
  if (secret === null) {
    problems.push(`SERVER_SECRET: required in production (STAGING=0); set SERVER_SECRET or SERVER_SECRET_FILE to at least ${MIN_SERVER_SECRET_LENGTH} random characters`);
  } else if (secret.length < MIN_SERVER_SECRET_LENGTH) {
    problems.push(`${name}: the server secret must be at least ${MIN_SERVER_SECRET_LENGTH} characters in production (STAGING=0)`);
  } else if (secret === adminKey) {
    problems.push(`${name}: the server secret must differ from ADMIN_KEY in production (STAGING=0)`);
  }
  return secret;
}

/**
 * Staging without a configured secret: reads `file`, or creates it with 32 random bytes (mode
 * 0600). The new file appears complete or not at all (written aside, then hard-linked into
 * place), and a server that loses a race to create it uses the winner's secret.
 */
export function loadOrCreateServerSecret(file: string): string {
  const existing = readSecretFile(file);
  if (existing !== undefined) return existing;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return secret;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return readSecretFile(file)!;
    // Some file systems have no hard links; a rename is still atomic.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw unusable(file, code);
    renameSync(temporary, file);
    return secret;
  } finally {
    unlinkIfPresent(temporary);
  }
}

function readSecretFile(file: string): string | undefined {
  let content: string;
  try {
    content = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw unusable(file, code);
  }
  if (content === '') throw new ConfigError([`DATA_DIR: ${file} is empty; delete it to generate a new server secret (approved keys not yet collected must then be approved again)`]);
  // A secret: tighten permissions even if someone loosened them.
  chmodSync(file, 0o600);
  return content;
}

function unusable(file: string, code: string | undefined): ConfigError {
  return new ConfigError([`DATA_DIR: cannot use the server secret file ${file} (${code ?? 'error'})`]);
}

function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already renamed into place.
  }
}
