import { bridgeProtocols } from '@svc/common/bridge-protocol';
import { UnauthenticatedError } from '@svc/common/errors';
import type { ApiClient } from '../api/client';
import { decodeFrame, encodeFrame, ErrorBody, ExitBody, frameJson, FrameType } from './frames';

export interface ShellEvents {
  output(bytes: Uint8Array): void;
  exit(body: ExitBody): void;
  /** The device or the bridge refused or failed the session (an ERROR frame). */
  error(body: ErrorBody): void;
  /** The socket closed; `exited` says whether an EXIT frame came first. */
  closed(code: number, reason: string, exited: boolean): void;
}

interface IssuedTicket {
  ticket: string;
  expires_at: string;
  url: string;
}

/**
 * One terminal session through the bridge: a fresh ticket (POST /api/tickets, operation
 * device_shell, the terminal's size), then the WebSocket it names, offering the access token as a
 * subprotocol (never in the URL) so the server knows the ticket is presented by the user it was
 * issued to. A reconnect is a new ShellSocket: a ticket is spent by its first use.
 */
export class ShellSocket {
  private constructor(private readonly ws: WebSocket) {}

  static async open(api: ApiClient, device: string, size: { cols: number; rows: number }, events: ShellEvents): Promise<ShellSocket> {
    const { url } = await api.post<IssuedTicket>('/api/tickets', { device, operation: 'device_shell', cols: size.cols, rows: size.rows });
    const token = api.accessToken();
    if (!token) throw new UnauthenticatedError('Signed out: sign in again to open a terminal');
    const ws = new WebSocket(url, bridgeProtocols(token));
    ws.binaryType = 'arraybuffer';
    let exited = false;
    ws.onmessage = (message: MessageEvent<ArrayBuffer | string>) => {
      if (typeof message.data === 'string') return;
      const frame = decodeFrame(message.data);
      if (frame.type === FrameType.STDOUT || frame.type === FrameType.STDERR) events.output(frame.payload);
      else if (frame.type === FrameType.EXIT) {
        exited = true;
        events.exit(frameJson<ExitBody>(frame));
      } else if (frame.type === FrameType.ERROR) events.error(frameJson<ErrorBody>(frame));
    };
    ws.onclose = (event) => events.closed(event.code, event.reason, exited);
    return new ShellSocket(ws);
  }

  /** Keystrokes as the terminal produced them (Ctrl-C is the byte 0x03, as a terminal sends it). */
  type(data: string): void {
    this.send(encodeFrame(FrameType.STDIN, data));
  }

  resize(cols: number, rows: number): void {
    this.send(encodeFrame(FrameType.RESIZE, { cols, rows }));
  }

  /** SIGINT to the terminal's foreground process group, whatever the terminal's mode. */
  interrupt(): void {
    this.send(encodeFrame(FrameType.SIGNAL, { signal: 'SIGINT' }));
  }

  close(): void {
    this.ws.onclose = null;
    this.ws.onmessage = null;
    this.ws.close();
  }

  /** The bridge holds what arrives before the device stream opened; before the socket opens, wait for it. */
  private send(frame: Uint8Array): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
    else if (this.ws.readyState === WebSocket.CONNECTING) this.ws.addEventListener('open', () => this.ws.send(frame), { once: true });
  }
}
