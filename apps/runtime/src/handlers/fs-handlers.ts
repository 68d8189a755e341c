import { TempFileJournal, TUNNEL_OPS } from '@svc/common';
import type { StreamHandlers } from '../tunnel/stream-router';
import { handleFsDelete } from './fs-delete-handler';
import { handleFsLs } from './fs-ls-handler';
import { handleFsManifest } from './fs-manifest-handler';
import { handleFsRead } from './fs-read-handler';
import { fsWriteHandler } from './fs-write-handler';

/** The file operations (docs/protocol.md, "Files"), as the stream router takes them; uploads note their temp files in `tempFiles`. */
export function fsHandlers(tempFiles: TempFileJournal): StreamHandlers {
  return {
    [TUNNEL_OPS.fsLs]: handleFsLs,
    [TUNNEL_OPS.fsRead]: handleFsRead,
    [TUNNEL_OPS.fsWrite]: fsWriteHandler(tempFiles),
    [TUNNEL_OPS.fsManifest]: handleFsManifest,
    [TUNNEL_OPS.fsDelete]: handleFsDelete,
  };
}
