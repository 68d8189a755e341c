import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  checkPathText,
  DeviceLostError,
  DeviceOfflineError,
  FILE_HTTP_HEADERS,
  FILE_TUNNEL_HEADERS,
  FsDeleteResult,
  InvalidInputError,
  isSha256,
  SubRouteInput,
  parseIntegerHeader,
  parseModeHeader,
  TUNNEL_OPS,
  TunnelOp,
} from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { AuditAction } from '../audit/audit-actions';
import type { UserPrincipal } from '../auth/principal';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { currentRequestId } from '../logging/request-context';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';

type DownloadQuery = SubRouteInput<'device_cp.download'>;
type UploadQuery = SubRouteInput<'device_cp.upload'>;
import { readJsonAnswer, relayDownload, relayUpload } from './file-relay';
import { relayListing } from './listing-relay';
import { relayManifest } from './manifest-relay';
import { StallDeadline } from './stall-deadline';
import { SyncAudit, SyncCounts } from './sync-audit';

export interface UploadOutcome {
  path: string;
  size: number;
  sha256: string;
}

/**
 * The device file routes (docs/protocol.md, "Files"), called once OperationGuard authorized the
 * route's capability (viewers 403, strangers 404) and checked its input: audit → the device's tunnel (DEVICE_OFFLINE without one) → one `fs/*` stream,
 * relayed with its own flow control and under a deadline (FILES_STALL_TIMEOUT_SECS: a device
 * that moves no byte for that long fails the call with TIMEOUT). Device answers are streamed
 * through, never buffered whole. A call carrying a sync id is counted into that sync's single
 * `device.files_synced` entry (SyncAudit) instead of an entry of its own.
 */
/** The longest audit details this service writes. */
const AUDIT_DETAILS_MAX = 500;

@Injectable()
export class FilesService {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
    private readonly syncs: SyncAudit,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  /** The device's JSON array of entries, relayed as it comes (listing-relay.ts). */
  async list(principal: UserPrincipal, deviceId: string, path: string, res: Response): Promise<void> {
    const args = { path: checkPathText(path) };
    await this.record(principal, deviceId, 'device.file_read', `ls ${path}`);
    const deadline = this.deadline(deviceId);
    try {
      await relayListing(await this.open(principal, deviceId, TUNNEL_OPS.fsLs, args, deadline), res, deadline);
    } finally {
      deadline.stop();
    }
  }

  async download(principal: UserPrincipal, deviceId: string, query: DownloadQuery, req: Request, res: Response): Promise<void> {
    const args = { path: checkPathText(query.path), ...within(query) };
    if (query.sync === undefined) await this.record(principal, deviceId, 'device.file_read', `read ${query.path}`);
    const deadline = this.deadline(deviceId);
    const tunnel = await this.open(principal, deviceId, TUNNEL_OPS.fsRead, args, deadline).catch((err) => {
      deadline.stop();
      throw err;
    });
    res.status(200).setHeader('Content-Type', 'application/octet-stream');
    for (const field of ['size', 'mode', 'mtime'] as const) {
      const value = tunnel.headers[FILE_TUNNEL_HEADERS[field]];
      if (typeof value === 'string') res.setHeader(FILE_HTTP_HEADERS[field], value);
    }
    await relayDownload(tunnel, req, res, deadline).finally(() => deadline.stop());
    if (query.sync !== undefined && res.writableEnded) this.syncs.count(principal, deviceId, query.sync, query.within ?? query.path, { read: 1, readBytes: Number(tunnel.headers[FILE_TUNNEL_HEADERS.size] ?? 0) });
  }

  /**
   * Metadata travels in headers (`x-svc-size` required, `x-svc-mode`, `x-svc-mtime`, and
   * `x-svc-sha256` or, announced with `Trailer: x-svc-sha256`, the same as a trailer).
   */
  async upload(principal: UserPrincipal, deviceId: string, query: UploadQuery, req: Request): Promise<UploadOutcome> {
    const args = uploadArgs(query, req);
    const checksumInTrailer = args.sha256 === undefined;
    if (query.sync === undefined) await this.record(principal, deviceId, 'device.file_written', describeWrite(query, args.size));
    const deadline = this.deadline(deviceId);
    let outcome: UploadOutcome;
    try {
      const tunnel = await this.open(principal, deviceId, TUNNEL_OPS.fsWrite, args, deadline, checksumInTrailer);
      // Offline now is no longer "offline": the device went away under the upload (as a download says).
      outcome = await relayUpload(tunnel, req, checksumInTrailer, deadline).catch((err: unknown) => {
        throw err instanceof DeviceOfflineError ? new DeviceLostError(deviceId, `the upload of ${query.path}`) : err;
      });
    } finally {
      deadline.stop();
    }
    if (query.sync !== undefined) this.syncs.count(principal, deviceId, query.sync, query.within ?? query.path, { written: 1, writtenBytes: outcome.size });
    return outcome;
  }

  /** The tree for sync as NDJSON; audited as one read of the tree (it reveals names and sizes). `listSkipped`: see FILE_HTTP_HEADERS. */
  async manifest(principal: UserPrincipal, deviceId: string, input: SubRouteInput<'device_sync.manifest'>, res: Response, listSkipped = false): Promise<void> {
    const args = { path: checkPathText(input.path), exclude: input.exclude ?? [], hash: input.hash === true };
    await this.record(principal, deviceId, 'device.file_read', `list tree ${input.path}`);
    const deadline = this.deadline(deviceId);
    try {
      await relayManifest(await this.open(principal, deviceId, TUNNEL_OPS.fsManifest, args, deadline), res, deadline, { listSkipped });
    } finally {
      deadline.stop();
    }
  }

  async delete(principal: UserPrincipal, deviceId: string, input: SubRouteInput<'device_sync.delete'>): Promise<FsDeleteResult> {
    const args = { root: checkPathText(input.root, 'root'), paths: input.paths };
    // Deletions are recorded as they are asked, path by path: the sync's summary only counts them, and only later.
    await this.record(principal, deviceId, 'device.files_deleted', describeDeletion(input.root, input.paths));
    const deadline = this.deadline(deviceId);
    let answer: FsDeleteResult;
    try {
      answer = (await readJsonAnswer(await this.open(principal, deviceId, TUNNEL_OPS.fsDelete, args, deadline), deadline)) as FsDeleteResult;
    } finally {
      deadline.stop();
    }
    const deleted = Number.isSafeInteger(answer?.deleted) ? answer.deleted : 0;
    this.syncs.count(principal, deviceId, input.sync, input.root, { deleted });
    return { deleted };
  }

  /** Writes the sync's audit entry now; answers what the server counted for it. */
  endSync(principal: UserPrincipal, deviceId: string, sync: string): Promise<SyncCounts> {
    return this.syncs.end(principal, deviceId, sync);
  }

  private record(principal: UserPrincipal, deviceId: string, action: AuditAction, details: string): Promise<void> {
    return this.audit.record(principal, action, { deviceId, details: details.slice(0, AUDIT_DETAILS_MAX) });
  }

  private deadline(deviceId: string): StallDeadline {
    return new StallDeadline(deviceId, this.config.filesStallTimeoutMs);
  }

  /**
   * Opens the device's stream under `deadline`. Only fs/write sends a request body; the others end
   * theirs at once, so that the stream closes cleanly when the device's answer ends (a device
   * whose request is left open resets the stream after answering, and a reset arriving while
   * the answer is still being relayed would cut it short).
   */
  private async open(principal: UserPrincipal, deviceId: string, op: TunnelOp, args: object, deadline: StallDeadline, trailers = false): Promise<TunnelStream> {
    const tunnel = await deadline.accept(this.registry.require(deviceId).openStream({ op, args, requestId: currentRequestId(), actor: principal.email, trailers }));
    if (op !== TUNNEL_OPS.fsWrite) tunnel.body.end();
    return tunnel;
  }
}

/** The file an upload writes: with a name, the device writes into `path` under it when `path` is a directory. */
function describeWrite(query: UploadQuery, size: number): string {
  if (query.name === undefined) return `write ${query.path} (${size} bytes)`;
  return `write ${query.path.replace(/\/+$/, '')}/${query.name} (${size} bytes; ${query.path} itself if it is not a directory)`;
}

/** The paths a sync deletes, as many as fit an audit entry (AUDIT_DETAILS_MAX), then how many more. */
function describeDeletion(root: string, paths: readonly string[]): string {
  const head = `delete in ${root}: `;
  let listed = '';
  for (const [i, path] of paths.entries()) {
    const next = listed ? `${listed}, ${path}` : path;
    const rest = paths.length - i - 1;
    if (head.length + next.length + (rest > 0 ? ` and ${rest} more`.length : 0) > AUDIT_DETAILS_MAX) {
      return `${head}${[listed, `${paths.length - i} more`].filter(Boolean).join(' and ')}`;
    }
    listed = next;
  }
  return head + listed;
}

function within(query: DownloadQuery): { within?: string } {
  return query.within === undefined ? {} : { within: checkPathText(query.within, 'within') };
}

function uploadArgs(query: UploadQuery, req: Request) {
  const size = parseIntegerHeader(req.headers[FILE_HTTP_HEADERS.size], FILE_HTTP_HEADERS.size);
  if (size === undefined) throw new InvalidInputError(`${FILE_HTTP_HEADERS.size} (the file's size in bytes) is required`);
  const sha256 = req.headers[FILE_HTTP_HEADERS.sha256];
  if (sha256 !== undefined && !isSha256(sha256)) throw new InvalidInputError(`${FILE_HTTP_HEADERS.sha256} must be 64 lower-case hex digits`);
  const announced = String(req.headers.trailer ?? '').toLowerCase().split(',').map((name) => name.trim());
  if (sha256 === undefined && !announced.includes(FILE_HTTP_HEADERS.sha256)) {
    throw new InvalidInputError(`Send the checksum as the ${FILE_HTTP_HEADERS.sha256} header, or announce it as a trailer (Trailer: ${FILE_HTTP_HEADERS.sha256})`);
  }
  return {
    path: checkPathText(query.path),
    ...within(query),
    ...(query.name === undefined ? {} : { name: query.name }),
    size,
    mode: parseModeHeader(req.headers[FILE_HTTP_HEADERS.mode], FILE_HTTP_HEADERS.mode),
    mtime: parseIntegerHeader(req.headers[FILE_HTTP_HEADERS.mtime], FILE_HTTP_HEADERS.mtime),
    sha256: sha256 as string | undefined,
  };
}
