import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { downloadFile, joinPath, listDirectory, parentOf, uploadFile } from '../api/files';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLoad } from '../components/use-load';

/** A directory of the device: browse, download (`device:read-files`), upload into it (`device:write-files`). */
export function FilesPanel({ api, device, canWrite }: { api: ApiClient; device: string; canWrite: boolean }) {
  const [path, setPath] = useState('/');
  const [draft, setDraft] = useState(path);
  const listing = useLoad(() => listDirectory(api, device, path), `${device}:${path}`);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');

  const go = (next: string) => {
    setPath(next);
    setDraft(next);
    setActionError(null);
    setNotice('');
  };

  async function download(name: string) {
    setActionError(null);
    try {
      const blob = await downloadFile(api, device, joinPath(path, name));
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setNotice(`Downloaded ${name} (${blob.size} bytes).`);
    } catch (error) {
      setActionError(error);
    }
  }

  async function upload(event: Event) {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    setActionError(null);
    try {
      await uploadFile(api, device, path, file);
      setNotice(`Uploaded ${file.name} (${file.size} bytes).`);
      listing.reload();
    } catch (error) {
      setActionError(error);
    } finally {
      input.value = '';
    }
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
        <p>
          <label class="upload">
            Upload into {path}: <input type="file" aria-label="Upload a file" onChange={upload} />
          </label>
        </p>
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
