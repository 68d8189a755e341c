/** The catalog's file operations: compositions the client runs over their file routes (docs/protocol.md, "Files"). */
import { answer, bool, defineOperation, optStr, str, strList, subRoute } from './contract';
import { device, FILE_BYTES, ON_DEVICE_FILES, PATH, remotePath, syncId, TRANSFER } from './route-params';
import { directoryEntrySchema, fileEntrySchema, manifestEntrySchema, SKIPPED_FILE_TYPES } from './result-schemas';
import { array, boolean, integer, object, oneOf, status, string } from './schema-builders';
import { FILE_LIMITS } from '../file-limits';

export const FILE_OPERATIONS = [
  defineOperation({
    name: 'device_ls',
    summary: 'List a remote directory',
    batch: false,
    readOnly: true,
    capability: 'device:read-files',
    params: { path: str('<device>:<path>') },
    result: array(directoryEntrySchema),
    /** device_ls's entry plus what a listing usually shows. */
    routes: { list: subRoute('GET', '/devices/{device}/files', 'device:read-files', { device, path: PATH }, { answer: answer(array(fileEntrySchema)), errors: ON_DEVICE_FILES }) },
  }),
  defineOperation({
    name: 'device_cp',
    summary: 'Copy a file to or from a device',
    batch: false,
    readOnly: false,
    capability: { fromDevice: 'device:read-files', toDevice: 'device:write-files' },
    params: { source: str('local path or <device>:<path>'), dest: str('local path or <device>:<path>') },
    result: status('copied'),
    routes: {
      /** The file's bytes; size, mode and mtime in x-svc-* headers, the SHA-256 in the x-svc-sha256 trailer (docs/protocol.md, "Files"). */
      download: subRoute('GET', '/devices/{device}/files/content', 'device:read-files', TRANSFER, {
        answer: answer({ type: 'string', format: 'binary' }, 'application/octet-stream'),
        errors: ON_DEVICE_FILES,
      }),
      /** The file's bytes as the body, its metadata and checksum in headers or a trailer. */
      upload: subRoute('PUT', '/devices/{device}/files/content', 'device:write-files', { ...TRANSFER, name: optStr('when the path is an existing directory, write into it under this name', { maxLength: 255 }) }, {
        rawBody: FILE_BYTES,
        answer: answer(object({ path: string, size: integer, sha256: string })),
        errors: [...ON_DEVICE_FILES, 'INSUFFICIENT_STORAGE'],
      }),
    },
  }),
  defineOperation({
    name: 'device_sync',
    summary: 'Synchronise a directory to or from a device',
    batch: false,
    readOnly: false,
    capability: { fromDevice: 'device:read-files', toDevice: 'device:write-files' },
    params: {
      source: str('local path or <device>:<path>'),
      dest: str('local path or <device>:<path>'),
      delete: bool('remove files not in source', false),
      dry_run: bool('report without changing', false),
      exclude: strList('patterns to skip', false),
    },
    /** skipped (beyond the spec), only when there are any: the source's symbolic links and special files, left alone. */
    result: object(
      { status: oneOf('synced'), dry_run: boolean, copy: array(string), delete: array(string), unchanged: integer, skipped: array(object({ path: string, type: oneOf(...SKIPPED_FILE_TYPES) })) },
      ['skipped'],
    ),
    routes: {
      /**
       * The tree as NDJSON, filtered on the device; file bytes travel over device_cp's routes. A final `{error, code}` line when the listing broke off after the 200.
       * With the header `x-svc-list-skipped: 1` (FILE_HTTP_HEADERS.listSkipped) also the links and special files sync leaves alone, marked `skipped`.
       */
      manifest: subRoute('POST', '/devices/{device}/files/manifest', 'device:read-files', {
        device,
        path: PATH,
        exclude: strList('gitignore-like patterns to skip (docs/protocol.md, "Files")', false, { maxItems: FILE_LIMITS.maxExcludePatterns, maxLength: FILE_LIMITS.maxPatternLength }),
        hash: bool('hash every file (sha256); otherwise size and mtime decide', false),
      }, { answer: answer({ oneOf: [manifestEntrySchema, object({ error: string, code: string })] }, 'application/x-ndjson'), errors: ON_DEVICE_FILES }),
      delete: subRoute('POST', '/devices/{device}/files/delete', 'device:write-files', {
        device,
        root: remotePath('the sync root on the device; nothing outside it is deleted'),
        paths: strList(`paths relative to the root ('/'-separated, no '..'), at most ${FILE_LIMITS.maxDeletePaths}`, true, { minItems: 1, maxItems: FILE_LIMITS.maxDeletePaths, maxLength: FILE_LIMITS.maxPathBytes }),
        sync: syncId,
      }, { answer: answer(object({ deleted: integer })), errors: ON_DEVICE_FILES }),
      /** Writes the sync's audit entry now; answers what the server counted. */
      sync_end: subRoute('POST', '/devices/{device}/files/sync-end', 'device:read-files', { device, sync: syncId }, { answer: answer(object({ written: integer, writtenBytes: integer, read: integer, readBytes: integer, deleted: integer })) }),
    },
  }),
] as const;
