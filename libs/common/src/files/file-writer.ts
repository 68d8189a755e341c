import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { AtomicFileWriter, AtomicWriteCheck, AtomicWriteOptions, makeDirectories } from './atomic-write';
import { SpecialFileWriter } from './special-write';
import { DestinationOptions, resolveWriteDestination } from './write-destination';

/** A destination opened for one copy: `write` fills it and verifies the bytes, `discard` gives up. */
export interface FileWriter {
  readonly target: string;
  write(data: Readable, check: AtomicWriteCheck): Promise<{ size: number; sha256: string }>;
  discard(): Promise<void>;
}

/**
 * Opens the destination of a copy (cp, sync; on the device and on the CLI's machine alike) by the
 * rule of resolveWriteDestination: a regular file (or a new one) is replaced atomically through a
 * temp file next to it, symbolic links followed first so that the link survives; a device, FIFO or
 * socket is written in place. Everything that can be refused is, before data flows.
 */
export async function openFileWriter(target: string, options: AtomicWriteOptions & DestinationOptions = {}): Promise<FileWriter> {
  const destination = await resolveWriteDestination(target, options);
  if (destination.kind === 'special') return SpecialFileWriter.open(target, destination.path, destination.type);
  await makeDirectories(dirname(destination.path));
  return AtomicFileWriter.open(destination.path, options);
}
