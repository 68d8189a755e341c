import type { ApiClient } from './client';
import { onlyFilePatterns, sha256Hex } from './file-checksum';
import type { DirectoryEntry } from './types';

const filesOf = (device: string) => `/devices/${encodeURIComponent(device)}/files`;

export function listDirectory(api: ApiClient, device: string, path: string): Promise<DirectoryEntry[]> {
  return api.get<DirectoryEntry[]>(filesOf(device), { path });
}

/** The file's bytes, as the device sent them (GET …/files/content). */
export async function downloadFile(api: ApiClient, device: string, path: string): Promise<Blob> {
  const res = await api.raw('GET', `${filesOf(device)}/content?${new URLSearchParams({ path })}`);
  return res.blob();
}

/**
 * Writes `file` into the directory `dir` under its own name (PUT …/files/content). The device
 * checks the SHA-256 sent along; a browser cannot send it as a trailer, so it is computed first,
 * which reads the whole file into memory once.
 */
export async function uploadFile(api: ApiClient, device: string, dir: string, file: File): Promise<void> {
  const sha256 = await sha256Hex(file);
  const query = new URLSearchParams({ path: dir, name: file.name });
  await api.raw('PUT', `${filesOf(device)}/content?${query}`, { body: file, headers: { 'x-svc-size': String(file.size), 'x-svc-sha256': sha256 } });
}

/**
 * The device's SHA-256 of `dir`/`name`. The download route sends it only as an HTTP trailer, which
 * `fetch` cannot read, so it comes from the files manifest route (`device_sync.manifest`,
 * `hash: true`) on the directory, narrowed by exclude patterns to that one file: no subdirectory
 * is walked and no other file is hashed.
 */
export async function deviceSha256(api: ApiClient, device: string, dir: string, name: string): Promise<string> {
  let found: string | undefined;
  let failure: string | undefined;
  await api.stream(`${filesOf(device)}/manifest`, { path: dir, hash: true, exclude: onlyFilePatterns(name) }, (line) => {
    if (line.path === name && line.is_dir === false && typeof line.sha256 === 'string') found = line.sha256;
    else if (line.code) failure = String(line.message ?? line.error ?? line.code);
  });
  if (found) return found;
  throw new Error(`The device gave no checksum for ${name}${failure ? `: ${failure}` : ''}; the file was not saved`);
}

/** `dir` + `name`, with one slash between. */
export function joinPath(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

/** The parent directory (`/` stays `/`). */
export function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const cut = trimmed.lastIndexOf('/');
  return cut <= 0 ? '/' : trimmed.slice(0, cut);
}
