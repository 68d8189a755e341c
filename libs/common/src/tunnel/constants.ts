/**
 * Constants of the svc tunnel protocol v1 (docs/protocol.md, "Tunnel"). Shared by the server's
 * relay and the device runtime; node builtins only.
 */

/** ALPN of the tunnel carriers (TLS over TCP now, QUIC later). The version lives in the name. */
export const TUNNEL_ALPN = 'svc-tunnel/1';
/** `v` of the hello frames. */
export const TUNNEL_PROTOCOL_VERSION = 1;

export const TUNNEL_LIMITS = {
  /** Largest hello frame body (JSON bytes, without the 4-byte length prefix). */
  helloMaxBytes: 4 * 1024,
  /** The runtime must send its hello within this time after the TLS handshake. */
  helloTimeoutMs: 10_000,
  /** Largest payload of one multiplexed frame. */
  frameMaxPayload: 1024 * 1024,
  /** Default interval of the server's HTTP/2 PING. */
  heartbeatSecs: 10,
  /** A runtime that receives no ping for this many intervals treats the tunnel as dead. */
  runtimeDeadAfterBeats: 3,
  /** A server whose ping stays unanswered for this many intervals treats the tunnel as dead. */
  serverDeadAfterBeats: 2,
  /**
   * A tunnel replaced by a newer one of the same device drains: its streams in flight may run this
   * long to finish with their answers, then the connection is cut (a longer shell is cut then).
   */
  replacedTunnelDrainMs: 10_000,
} as const;

/** HTTP/2 settings both ends apply to the reverse HTTP/2 session. */
export const TUNNEL_HTTP2 = {
  initialWindowSize: 8 * 1024 * 1024,
  /** Applied with `session.setLocalWindowSize()` once the session is up. */
  sessionWindowSize: 16 * 1024 * 1024,
  maxConcurrentStreams: 1000,
  /** Largest DATA frame a side accepts: bulk transfers cost per frame, 16 KiB (the default) is ~4x slower. */
  maxFrameSize: 256 * 1024,
  /**
   * Node's cap on what one session holds (MB; nghttp2's default is 10), for every end of these
   * sessions alike: the runtime's, the server's and the CLI's. Streams held back by slow readers
   * each keep up to a relay buffer queued; past the cap a session refuses new streams with
   * ENHANCE_YOUR_CALM, so a runtime on the default refused operations while 24 forwards were held.
   * Node 22+ counts what a paused stream received up to its window (initialWindowSize, 8 MiB) in
   * the session's memory too: 24 held-back forwards took a session past 128 MB there (the CLI's
   * connection died with ENHANCE_YOUR_CALM; forward.e2e, Node 24), and pass at 256. A cap on a
   * flood, not an allocation: what a session really holds is bounded by its streams' windows.
   */
  maxSessionMemoryMb: 256,
} as const;

/** Request headers of a tunnel stream (lower-case, as HTTP/2 requires). */
export const TUNNEL_HEADERS = {
  /** base64url of the UTF-8 JSON arguments of the operation. */
  args: 'svc-args',
  requestId: 'svc-request-id',
  /** The user's e-mail, for the device's own log only. */
  actor: 'svc-actor',
  /** QUIC per-operation streams only: the stream's number in its session, which a control-stream `cancel` names. */
  stream: 'svc-stream',
} as const;

/** Operations a tunnel stream can carry; the stream's `:path` is `/v1/<op>`. */
export const TUNNEL_OPS = {
  exec: 'exec',
  shell: 'shell',
  fsLs: 'fs/ls',
  fsRead: 'fs/read',
  fsWrite: 'fs/write',
  fsSyncPlan: 'fs/sync-plan',
  fsManifest: 'fs/manifest',
  fsDelete: 'fs/delete',
  forwardTcp: 'forward/tcp',
  forwardUnix: 'forward/unix',
  docker: 'docker',
  /** The deployment channel: desired state in (NDJSON), status reports out (NDJSON); one per tunnel session. */
  deployments: 'deployments',
  /** One job's log: args {job, follow, tail}; the answer body is the log's text. */
  deploymentLogs: 'deployments/logs',
} as const;

export type TunnelOp = (typeof TUNNEL_OPS)[keyof typeof TUNNEL_OPS];

/** Operations whose bodies are frames (below): a failure after `:status 200` is an ERROR frame; the others are reset. */
export const FRAMED_TUNNEL_OPS: ReadonlySet<TunnelOp> = new Set([TUNNEL_OPS.exec, TUNNEL_OPS.shell]);

const OP_SET: ReadonlySet<string> = new Set(Object.values(TUNNEL_OPS));
const PATH_PREFIX = '/v1/';

export function tunnelPath(op: TunnelOp): string {
  return PATH_PREFIX + op;
}

/** The operation named by a stream's `:path`, or undefined for an unknown path or version. */
export function tunnelOpFromPath(path: string | undefined): TunnelOp | undefined {
  if (!path?.startsWith(PATH_PREFIX)) return undefined;
  const op = path.slice(PATH_PREFIX.length);
  return OP_SET.has(op) ? (op as TunnelOp) : undefined;
}

/** Frame types of the multiplexed operations (exec, shell). */
export const FrameType = {
  STDOUT: 1,
  STDERR: 2,
  STDIN: 3,
  /** Empty payload: the sender will send no more stdin. */
  STDIN_EOF: 4,
  /** JSON {exit_code, signal, timed_out}; the last frame of a finished process. */
  EXIT: 5,
  /** JSON {code, message}: the operation failed mid-stream. */
  ERROR: 6,
  /** JSON {cols, rows}. */
  RESIZE: 7,
  /** JSON {signal}. */
  SIGNAL: 8,
} as const;

export type FrameType = (typeof FrameType)[keyof typeof FrameType];

const FRAME_TYPES: ReadonlySet<number> = new Set(Object.values(FrameType));

export function isFrameType(value: number): value is FrameType {
  return FRAME_TYPES.has(value);
}

/**
 * Sent by `svc mcp` on every REST request and client stream, so the audit log marks what an AI
 * agent did ("via MCP"). A label the client gives, not a credential: it adds to the record and
 * never grants anything.
 */
export const CLIENT_KIND_HEADER = 'x-svc-client';
export const CLIENT_KIND_MCP = 'mcp';
