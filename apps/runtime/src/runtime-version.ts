import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The version of apps/runtime/package.json (one level above both src/ and dist/). */
export function runtimeVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** Tells the server's log one process of this runtime from the next. */
export const BOOT_ID = randomUUID();
