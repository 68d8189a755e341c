import { readFileSync } from 'node:fs';
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
