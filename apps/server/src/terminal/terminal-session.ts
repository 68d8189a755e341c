import { Logger } from '@nestjs/common';
import { encodeFrame, errorFrame, ErrorFrameBody, Frame, FrameDecoder, FrameType, parseFramePayload, settled, TunnelProtocolError } from '@svc/common';
import { WebSocket } from 'ws';
import { AllExceptionsFilter } from '../common/http-exception.filter';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { clientFramesProblem } from './client-frames';

/** Above this many bytes queued toward the browser the device stream is no longer read… */
export const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
/** …until the queue is down to this. WebSocket has no per-stream window: this is the bridge's. */
export const SOCKET_LOW_WATER_BYTES = 256 * 1024;
/** Browser messages held while the device stream opens (a first resize, early keystrokes). */
const PENDING_MAX_BYTES = 64 * 1024;
/** A browser that answers no ping within this long is gone (a proxy or a sleeping laptop). */
const PING_INTERVAL_MS = 30_000;

/** Close codes (docs/dashboard.md); a refusal after the upgrade is 4000 + its HTTP status. */
export const CLOSE_CODES = { exited: 1000, shutdown: 1001, textMessage: 1003, badFrames: 1008, deviceFailed: 1011, refusalBase: 4000 } as const;

/**
 * One browser terminal or exec session: a WebSocket spliced to one device stream of the shell or
 * exec operation. Device → browser: each frame as one binary message, unchanged; the device
 * stream is not read while the socket queues more than SOCKET_HIGH_WATER_BYTES. Browser → device:
 * each message whole client frames (checked), written unchanged; the socket is paused while the
 * device stream's flow control holds writes back. At the device's EXIT (or ERROR) the bridge ends
 * its side, reads on to the device's end (a clean close, no reset) and closes the socket.
 */
export class TerminalSession {
  private static readonly errors = new AllExceptionsFilter();
  private readonly logger = new Logger('TerminalBridge');
  private tunnel: TunnelStream | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private finished = false;
  private belowLowWater: (() => void) | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly requestId: string,
  ) {
    ws.on('message', (data: Buffer, isBinary: boolean) => this.fromBrowser(data, isBinary));
    ws.on('close', () => this.browserGone());
    ws.on('error', (err) => this.logger.debug(`terminal ${requestId}: ${err.message}`));
    this.keepAlive();
  }

  /** Opens the device stream (`open` authorizes and audits) and relays until either side is done. */
  async run(open: () => Promise<TunnelStream>): Promise<void> {
    let tunnel: TunnelStream;
    try {
      tunnel = await open();
    } catch (err) {
      const body = TerminalSession.errors.toBody(err);
      if (body.statusCode >= 500 && body.code === 'INTERNAL') this.logger.error(err instanceof Error ? err : String(err));
      this.fail(CLOSE_CODES.refusalBase + body.statusCode, { code: body.code, message: body.message });
      return;
    }
    if (this.ws.readyState !== WebSocket.OPEN) {
      tunnel.abort();
      return;
    }
    this.tunnel = tunnel;
    for (const message of this.pending.splice(0)) this.toDevice(message);
    await this.relayOutput(tunnel);
  }

  private async relayOutput(tunnel: TunnelStream): Promise<void> {
    const decoder = new FrameDecoder();
    settled(tunnel.body, { readable: true, writable: false }, (err) => err && decoder.destroy(err));
    tunnel.body.pipe(decoder);
    let last: ErrorFrameBody | 'exit' | undefined;
    try {
      for await (const frame of decoder as AsyncIterable<Frame>) {
        if (this.ws.readyState !== WebSocket.OPEN) return;
        if (frame.type === FrameType.EXIT) last = 'exit';
        else if (frame.type === FrameType.ERROR) last = parseFramePayload<ErrorFrameBody>(frame);
        // The device's last frame: end our side now, as the CLI does (a peer hop passes the device's end on only then).
        if (last !== undefined && !tunnel.body.writableEnded) tunnel.body.end();
        this.ws.send(encodeFrame(frame.type, frame.payload), () => this.sent());
        if (this.ws.bufferedAmount > SOCKET_HIGH_WATER_BYTES) await new Promise<void>((resolve) => (this.belowLowWater = resolve));
      }
    } catch (err) {
      tunnel.abort();
      if (err instanceof TunnelProtocolError) this.fail(CLOSE_CODES.deviceFailed, { code: 'INTERNAL', message: `The device broke the tunnel protocol: ${err.message}` });
      else this.fail(CLOSE_CODES.deviceFailed, { code: 'DEVICE_OFFLINE', message: 'The device went offline during the session' });
      return;
    }
    this.finished = true;
    if (last === undefined) {
      tunnel.abort();
      this.fail(CLOSE_CODES.deviceFailed, { code: 'DEVICE_OFFLINE', message: 'The device ended the session without an exit status' });
      return;
    }
    if (last === 'exit') this.ws.close(CLOSE_CODES.exited, 'exited');
    else this.ws.close(CLOSE_CODES.deviceFailed, closeReason(last.code));
  }

  private fromBrowser(data: Buffer, isBinary: boolean): void {
    if (this.finished) return;
    if (!isBinary) return this.fail(CLOSE_CODES.textMessage, { code: 'INVALID_INPUT', message: 'The terminal socket carries binary frames only' });
    const problem = clientFramesProblem(data);
    if (problem !== undefined) return this.fail(CLOSE_CODES.badFrames, { code: 'INVALID_INPUT', message: problem });
    if (this.tunnel) return this.toDevice(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes > PENDING_MAX_BYTES) return this.fail(CLOSE_CODES.badFrames, { code: 'INVALID_INPUT', message: 'Too much input before the device stream opened' });
    this.pending.push(data);
  }

  private toDevice(data: Buffer): void {
    const body = this.tunnel!.body;
    if (body.writableEnded || body.destroyed) return;
    if (!body.write(data)) {
      this.ws.pause();
      body.once('drain', () => this.ws.resume());
    }
  }

  /** A send reached the socket: wake the relay once the queue is low enough (or the socket gone). */
  private sent(): void {
    if (!this.belowLowWater) return;
    if (this.ws.readyState === WebSocket.OPEN && this.ws.bufferedAmount > SOCKET_LOW_WATER_BYTES) return;
    const wake = this.belowLowWater;
    this.belowLowWater = undefined;
    wake();
  }

  private browserGone(): void {
    this.belowLowWater?.();
    this.belowLowWater = undefined;
    // The browser left before the device ended: cancel, so the device hangs the shell up (or kills the command).
    if (!this.finished) this.tunnel?.abort();
    this.finished = true;
  }

  /** Tells the browser why in an ERROR frame (the format it reads anyway), then closes with `code`. */
  private fail(code: number, error: ErrorFrameBody): void {
    this.finished = true;
    this.tunnel?.abort();
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(errorFrame(error));
    this.ws.close(code, closeReason(error.code));
  }

  private keepAlive(): void {
    let answered = true;
    this.ws.on('pong', () => (answered = true));
    const timer = setInterval(() => {
      if (!answered) return this.ws.terminate();
      answered = false;
      this.ws.ping();
    }, PING_INTERVAL_MS);
    timer.unref();
    this.ws.once('close', () => clearInterval(timer));
  }
}

/** A close reason is at most 123 bytes; error codes are short ASCII. */
function closeReason(code: string): string {
  return code.slice(0, 123);
}
