import { createServer, Server, Socket } from 'node:net';
import type { ClientHttp2Stream } from 'node:http2';
import { Duplex, Readable, Writable } from 'node:stream';
import { ForwardLocal, ForwardTarget, http2End, socketEnd, splice, SpliceOutcome } from '@svc/common';
import type { DeviceStreams } from './device-streams';

/** What a forwarded connection reaches: a target on the device's side, or its container engine. */
export type ForwardRemote = ForwardTarget | { kind: 'docker' };

/** A ForwardMapping (from parseForwardSpec), or a local listener for the device's engine. */
export interface LocalMapping {
  local: ForwardLocal;
  remote: ForwardRemote;
}

/** Opens the device stream one forwarded connection rides on. */
export function openRemote(streams: DeviceStreams, device: string, remote: ForwardRemote): Promise<ClientHttp2Stream> {
  return remote.kind === 'docker' ? streams.openDocker(device) : streams.openForward(device, remote);
}

export interface LocalForwarderOptions {
  /** Address a TCP listener binds; loopback unless told otherwise (a forward is personal). */
  bindHost?: string;
  /** A connection that could not be forwarded (device offline, target refused, …); it was closed. */
  onConnectionError?: (error: Error) => void;
}

/**
 * Listens where a forward mapping says (a local TCP port or unix socket) and forwards every
 * accepted connection over its own device stream, so any number run at once over the one
 * connection of DeviceStreams. Half-close and resets pass through (see `splice`).
 */
export class LocalForwarder {
  private server: Server | undefined;
  private readonly connections = new Set<Socket>();

  constructor(
    private readonly streams: DeviceStreams,
    private readonly device: string,
    readonly mapping: LocalMapping,
    private readonly options: LocalForwarderOptions = {},
  ) {}

  /** Starts listening; resolves with the bound port (TCP; useful with port 0) or the socket path. */
  listen(): Promise<number | string> {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => void this.forward(socket));
    this.server = server;
    const { local } = this.mapping;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      const listening = () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : local.kind === 'unix' ? local.path : String(address));
      };
      if (local.kind === 'tcp') server.listen(local.port, this.options.bindHost ?? '127.0.0.1', listening);
      else server.listen(local.path, listening);
    });
  }

  /** Connections being forwarded right now. */
  get active(): number {
    return this.connections.size;
  }

  /** Stops listening and cuts the connections still open. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.connections) socketEnd(socket).abort();
    await closed;
  }

  private async forward(socket: Socket): Promise<void> {
    this.connections.add(socket);
    socket.on('error', () => undefined); // reported through the splice outcome
    // Paused on accept: nothing is read until the device stream is there to take it.
    try {
      const stream = await openRemote(this.streams, this.device, this.mapping.remote);
      await splice(socketEnd(socket), http2End(stream));
    } catch (error) {
      socketEnd(socket).abort();
      this.options.onConnectionError?.(error as Error);
    } finally {
      this.connections.delete(socket);
    }
  }
}

/**
 * The stdio form: one connection over `input`/`output` (stdin/stdout), for
 * `ssh -o ProxyCommand='svc forward --stdio <device> 22'`. Resolves when both directions are done;
 * a refusal (device offline, target refused, …) rejects before a byte is read from `input`.
 */
export async function forwardStdio(streams: DeviceStreams, device: string, remote: ForwardRemote, input: Readable, output: Writable): Promise<SpliceOutcome> {
  const stream = await openRemote(streams, device, remote);
  const local = Duplex.from({ readable: input, writable: output });
  return splice(
    {
      stream: local,
      abort: () => {
        input.destroy();
        output.destroy();
      },
    },
    http2End(stream),
  );
}
