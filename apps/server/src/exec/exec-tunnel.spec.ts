import { connect, constants, createServer, ServerHttp2Stream } from 'node:http2';
import { Duplex } from 'node:stream';
import { DeviceOfflineError, DomainError, encodeDataFrames, errorFrame, FrameType } from '@svc/common';
import { H2TunnelSession } from '../relay/tcp/h2-tunnel-session';
import { driveExec } from './exec-tunnel';

const RST_STREAM = 0x3;

/**
 * Two ends of one byte stream, device and server. What the device writes can be held and then
 * delivered to the server in one read, as a QUIC packet or a TLS record batch may deliver it.
 */
function wire() {
  let held: Buffer[] | null = null;
  let server!: Duplex;
  const device = new Duplex({
    read: () => undefined,
    write: (chunk: Buffer, _encoding, callback) => {
      if (held) held.push(chunk);
      else server.push(chunk);
      callback();
    },
  });
  server = new Duplex({
    read: () => undefined,
    write: (chunk: Buffer, _encoding, callback) => {
      device.push(chunk);
      callback();
    },
  });
  const holding = () => (held = []);
  /** Delivers what was held in one chunk once it holds a complete RST_STREAM frame. */
  const releaseAfterReset = async () => {
    while (!hasFrame(Buffer.concat(held!), RST_STREAM)) await new Promise((resolve) => setTimeout(resolve, 5));
    const all = Buffer.concat(held!);
    held = null;
    server.push(all);
  };
  return { device, server, holding, releaseAfterReset };
}

function hasFrame(bytes: Buffer, type: number): boolean {
  for (let offset = 0; offset + 9 <= bytes.length; offset += 9 + bytes.readUIntBE(offset, 3)) {
    if (bytes[offset + 3] === type && offset + 9 + bytes.readUIntBE(offset, 3) <= bytes.length) return true;
  }
  return false;
}

describe('driveExec over reverse HTTP/2', () => {
  it("reads a device's ERROR frame that arrives together with its RST_STREAM(NO_ERROR), as that error and not as an offline device", async () => {
    const { device, server, holding, releaseAfterReset } = wire();
    const deviceServer = createServer();
    // As the runtime's StreamRouter does when a handler fails after answering: the request body is
    // never read, so Node's HTTP/2 server ends the stream with RST_STREAM(NO_ERROR) after the answer.
    deviceServer.on('stream', (stream: ServerHttp2Stream) => {
      stream.respond({ ':status': 200 });
      stream.write(encodeDataFrames(FrameType.STDOUT, Buffer.from('partial\n'))[0]);
      stream.end(errorFrame({ code: 'INTERNAL', message: 'The runtime failed to run the operation' }));
    });
    deviceServer.emit('connection', device);
    const session = connect('http://device', { createConnection: () => server });
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    const tunnel = new H2TunnelSession('dev-1', { version: 'test', boot_id: 'b' }, '127.0.0.1', session, 60);
    try {
      holding();
      const released = releaseAfterReset();
      const stream = await tunnel.openStream({ op: 'exec', args: { command: ['true'] }, requestId: 'r1', actor: 'a@b.test' });
      await released;
      const output: string[] = [];
      const result = driveExec(stream, undefined, (_stream, data) => void output.push(data.toString()));
      await expect(result).rejects.toThrow(DomainError);
      await expect(result).rejects.toMatchObject({ code: 'INTERNAL', message: 'The runtime failed to run the operation' });
      expect(output).toEqual(['partial\n']);
    } finally {
      session.destroy();
      device.destroy();
    }
  });

  it('reads a stream the device cut after some output as an offline device', async () => {
    const { device, server } = wire();
    const deviceServer = createServer();
    deviceServer.on('stream', (stream: ServerHttp2Stream) => {
      stream.on('error', () => undefined); // its own reset
      stream.respond({ ':status': 200 });
      stream.write(encodeDataFrames(FrameType.STDOUT, Buffer.from('partial\n'))[0], () => setImmediate(() => stream.close(constants.NGHTTP2_INTERNAL_ERROR)));
    });
    deviceServer.emit('connection', device);
    const session = connect('http://device', { createConnection: () => server });
    const tunnel = new H2TunnelSession('dev-1', { version: 'test', boot_id: 'b' }, '127.0.0.1', session, 60);
    try {
      const stream = await tunnel.openStream({ op: 'exec', args: { command: ['true'] }, requestId: 'r1', actor: 'a@b.test' });
      await expect(driveExec(stream, undefined, () => undefined)).rejects.toThrow(DeviceOfflineError);
    } finally {
      session.destroy();
      device.destroy();
    }
  });
});
