import { readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type * as NodePty from '@lydell/node-pty';
import { NotFoundError } from '@svc/common';

export type Pty = NodePty.IPty;
type PtyLibrary = typeof NodePty;

/**
 * The PTY library is the runtime's one native, optional dependency: a device whose platform has
 * no prebuilt binary (or that installed without optional packages) still runs everything else,
 * and a shell there is refused as unsupported. Loaded on the first shell only.
 */
let loaded: { library: PtyLibrary } | { reason: string } | undefined;

export function loadPtyLibrary(): PtyLibrary {
  loaded ??= tryLoad();
  if ('library' in loaded) return loaded.library;
  // NOT_FOUND, as the stream router answers for an operation this runtime does not support.
  throw new NotFoundError(`Interactive shells are not supported on this device (${process.platform}-${process.arch}): ${loaded.reason}`);
}

function tryLoad(): { library: PtyLibrary } | { reason: string } {
  try {
    return { library: createRequire(__filename)('@lydell/node-pty') as PtyLibrary };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { reason: `the PTY library could not be loaded (${message})` };
  }
}

/**
 * node-pty's write() drops the master socket's answer, so a shell that stops reading would make
 * the runtime queue input without bound. The socket is the library's own field; without it
 * (another version) input simply goes unthrottled.
 */
export function ptyInput(pty: Pty): Writable | undefined {
  const socket = (pty as unknown as { _socket?: Writable })._socket;
  return socket && typeof socket.writableLength === 'number' ? socket : undefined;
}

/**
 * The terminal's foreground process group (what Ctrl-C on a local terminal signals): `tpgid` of
 * the shell's /proc stat on Linux. Elsewhere, or once the shell is gone, the shell's own group.
 */
export function foregroundGroup(pty: Pty): number {
  try {
    const stat = readFileSync(`/proc/${pty.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp session tty_nr tpgid …
    const tpgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]);
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : pty.pid;
  } catch {
    return pty.pid;
  }
}

interface PtySocket {
  destroy(error?: Error): unknown;
  read(): unknown;
}

/**
 * The terminal's last output, which node-pty loses. libuv reports the end of a stream as soon as
 * the other side has hung up and one read came back short, and a PTY's reads are always short
 * (≤ 4 KiB), so up to the kernel's terminal buffer (~64 KiB) of what a command wrote just before
 * it exited was dropped (12 of 30 quick commands here). And node-pty closes the terminal 200 ms
 * after the shell exits, so a PTY paused for a slow reader lost its socket's buffer too.
 * Before the terminal is closed, `onTail` is called, what the socket holds is read out (as
 * `data`, through the usual listener) and then the kernel's buffer (to `deliver`): the master
 * is non-blocking, so this stops at EAGAIN (nothing more for now) or EIO (the terminal is gone).
 */
export function readTailOnExit(pty: Pty, onTail: () => void, deliver: (chunk: Buffer) => void): void {
  const socket = (pty as unknown as { _socket?: PtySocket })._socket;
  const fd = (pty as unknown as { _fd?: number })._fd;
  if (!socket || typeof socket.destroy !== 'function' || typeof fd !== 'number') return;
  const destroy = socket.destroy.bind(socket);
  let read = false;
  socket.destroy = (error?: Error) => {
    if (!read) {
      read = true;
      onTail();
      while (socket.read() !== null);
      for (const chunk of readAvailable(fd)) deliver(chunk);
    }
    return destroy(error);
  };
}

function* readAvailable(fd: number): Generator<Buffer> {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let length: number;
    try {
      length = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      return; // EAGAIN: nothing more for now; EIO: the terminal is gone
    }
    if (length <= 0) return;
    yield Buffer.from(buffer.subarray(0, length));
  }
}
