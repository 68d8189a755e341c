import type { ApiClient } from './client';
import { onlyFilePatterns } from './file-checksum';
import { sha256OfStream } from './sha256-stream';
import type { DirectoryEntry } from './types';

/** What a download gathers in the page before it becomes a Blob part (which the browser keeps outside the page's heap, on disk when large). */
const DOWNLOAD_PART_BYTES = 1024 * 1024;

const filesOf = (device: string) => `/devices/${encodeURIComponent(device)}/files`;

export function listDirectory(api: ApiClient, device: string, path: string): Promise<DirectoryEntry[]> {
  return api.get<DirectoryEntry[]>(filesOf(device), { path });
}

/** A downloaded file and the SHA-256 of its bytes, lowercase hex. */
export interface Downloaded {
  blob: Blob;
  sha256: string;
}

/**
 * The file's bytes as the device sends them (GET …/files/content), read as they arrive: each chunk
 * is hashed, then gathered into Blob parts of DOWNLOAD_PART_BYTES, so the page's JavaScript heap
 * holds at most one part whatever the file's size; the browser keeps the parts (on disk when
 * large) and the last Blob joins them without copying.
 */
export async function downloadFile(api: ApiClient, device: string, path: string): Promise<Downloaded> {
  const res = await api.raw('GET', `${filesOf(device)}/content?${new URLSearchParams({ path })}`);
  const parts: Blob[] = [];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // A body-less answer is an empty file.
  const sha256 = await sha256OfStream(res.body ?? new Blob().stream(), (chunk) => {
    pending.push(chunk);
    pendingBytes += chunk.byteLength;
    if (pendingBytes < DOWNLOAD_PART_BYTES) return;
    parts.push(new Blob(pending as BlobPart[]));
    pending = [];
    pendingBytes = 0;
  });
  parts.push(new Blob(pending as BlobPart[]));
  return { blob: new Blob(parts, { type: 'application/octet-stream' }), sha256 };
}

/**
 * Writes `file` into the directory `dir` under its own name (PUT …/files/content). The device
 * checks the SHA-256 sent along; a browser cannot send it as a trailer (as `svc cp` does), so it
 * goes in the `x-svc-sha256` header, computed first by reading the file from disk chunk by chunk.
 * The body is the File itself, which the browser streams from disk: neither pass holds the file.
 */
export async function uploadFile(api: ApiClient, device: string, dir: string, file: File): Promise<void> {
  const sha256 = await sha256OfStream(file.stream());
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
