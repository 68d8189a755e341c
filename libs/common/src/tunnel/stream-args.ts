import { TunnelProtocolError } from './tunnel-protocol.error';

/** The `svc-args` header: base64url of the UTF-8 JSON arguments of an operation. */
export function encodeStreamArgs(args: object): string {
  return Buffer.from(JSON.stringify(args), 'utf8').toString('base64url');
}

export function decodeStreamArgs(header: string | string[] | undefined): Record<string, unknown> {
  if (typeof header !== 'string') throw new TunnelProtocolError('Missing svc-args header');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    throw new TunnelProtocolError('svc-args is not base64url JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TunnelProtocolError('svc-args is not a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Arguments of `/v1/exec`. */
export interface ExecStreamArgs {
  command: string[];
  timeout_secs: number;
  /** When true the request body carries STDIN frames ending with STDIN_EOF. */
  stdin: boolean;
  env?: Record<string, string>;
  cwd?: string;
}

/** Body of a refused stream (`:status` 4xx/5xx). `code` is an ErrorCode of libs/common. */
export interface StreamRefusal {
  code: string;
  message: string;
}
