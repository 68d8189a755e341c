import { TUNNEL_OPS } from '@svc/common';
import type { StreamHandlers } from '../tunnel/stream-router';
import { handleFsDelete } from './fs-delete-handler';
import { handleFsLs } from './fs-ls-handler';
import { handleFsManifest } from './fs-manifest-handler';
import { handleFsRead } from './fs-read-handler';
import { handleFsWrite } from './fs-write-handler';

/** The file operations (docs/protocol.md, "Files"), as the stream router takes them. */
export const FS_HANDLERS: StreamHandlers = {
  [TUNNEL_OPS.fsLs]: handleFsLs,
  [TUNNEL_OPS.fsRead]: handleFsRead,
  [TUNNEL_OPS.fsWrite]: handleFsWrite,
  [TUNNEL_OPS.fsManifest]: handleFsManifest,
  [TUNNEL_OPS.fsDelete]: handleFsDelete,
};
