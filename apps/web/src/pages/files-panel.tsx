import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { verifySha256 } from '../api/file-checksum';
import { deviceSha256, downloadFile, joinPath, listDirectory, parentOf, uploadFile } from '../api/files';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLoad } from '../components/use-load';

/**
 * A directory of the device: browse, download (`device:read-files`) checked against the device's
 * SHA-256 before it is saved, upload into it (`device:write-files`) by choosing or dropping files.
 */
export function FilesPanel({ api, device, canWrite }: { api: ApiClient; device: string; canWrite: boolean }) {
  const [path, setPath] = useState('/');
  const [draft, setDraft] = useState(path);
  const listing = useLoad(() => listDirectory(api, device, path), `${device}:${path}`);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [dragging, setDragging] = useState(false);

  const go = (next: string) => {
    setPath(next);
    setDraft(next);
    setActionError(null);
    setNotice('');
  };

  async function download(name: string) {
    setActionError(null);
    setNotice('');
    try {
      const [{ blob, sha256: actual }, expected] = await Promise.all([downloadFile(api, device, joinPath(path, name)), deviceSha256(api, device, path, name)]);
      const sha256 = verifySha256(name, actual, expected);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setNotice(`Downloaded ${name} (${blob.size} bytes), verified (sha256 ${sha256}).`);
    } catch (error) {
      setActionError(error);
    }
  }

  /** Uploads the files one after another into the directory shown. */
  async function upload(files: readonly File[]) {
    setActionError(null);
    for (const file of files) {
      setNotice(`Uploading ${file.name} (${file.size} bytes)…`);
      try {
        await uploadFile(api, device, path, file);
        setNotice(`Uploaded ${file.name} (${file.size} bytes).`);
      } catch (error) {
        setNotice('');
        setActionError(error);
        break;
      }
    }
    listing.reload();
  }

  async function chosen(event: Event) {
    const input = event.currentTarget as HTMLInputElement;
    const files = Array.from(input.files ?? []);
    input.value = '';
    if (files.length > 0) await upload(files);
  }

  const dragOver = (event: DragEvent) => {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };

  function dropped(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (files.length > 0) void upload(files);
  }

  return (
    <div class="card" aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      <form
        class="run"
        onSubmit={(e) => {
          e.preventDefault();
          go(draft || '/');
        }}
      >
        <label for="files-path">Directory</label>
        <input id="files-path" value={draft} spellcheck={false} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit">Open</button>
        <button type="button" class="secondary" disabled={path === '/'} onClick={() => go(parentOf(path))}>
          Up
        </button>
      </form>
      {canWrite && (
        <div
          class={dragging ? 'drop-zone dragging' : 'drop-zone'}
          data-drop-zone
          onDragEnter={dragOver}
          onDragOver={dragOver}
          onDragLeave={() => setDragging(false)}
          onDrop={dropped}
        >
          <label class="upload">
            Drop files here or choose them to upload into {path}: <input type="file" multiple aria-label="Upload a file" onChange={chosen} />
          </label>
        </div>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {actionError ? <ErrorBox error={actionError} /> : null}
      {listing.error ? <ErrorBox error={listing.error} onRetry={listing.reload} /> : null}
      {!listing.data && listing.loading && <Loading what="the directory" />}
      {listing.data && listing.data.length === 0 && <Empty title="This directory is empty." />}
      {listing.data && listing.data.length > 0 && (
        <ul class="entries" aria-label={`Contents of ${path}`}>
          {listing.data.map((entry) => (
            <li key={entry.name}>
              {entry.is_dir ? (
                <button type="button" class="link" onClick={() => go(joinPath(path, entry.name))}>
                  {entry.name}/
                </button>
              ) : (
                <>
                  <span class="file-name">{entry.name}</span>
                  <button type="button" class="secondary small" aria-label={`Download ${entry.name}`} onClick={() => download(entry.name)}>
                    Download
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
