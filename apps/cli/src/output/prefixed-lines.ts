import type { Writable } from 'node:stream';
import { escapeTerminal } from './terminal-text';
import { write } from './json-stream';

/**
 * Output of several devices at once, as pdsh prints it: every line prefixed `<device>: ` and
 * written whole, so lines of different devices never mix. A device's unfinished last line waits
 * for its end (`flush`). The device name is escaped; the output itself is raw, as asked for.
 */
export class PrefixedLines {
  private readonly partial = new Map<string, string>();

  constructor(private readonly out: Writable) {}

  async add(device: string, text: string): Promise<void> {
    const pending = (this.partial.get(device) ?? '') + text;
    const cut = pending.lastIndexOf('\n');
    if (cut < 0) {
      this.partial.set(device, pending);
      return;
    }
    this.partial.set(device, pending.slice(cut + 1));
    const prefix = `${escapeTerminal(device)}: `;
    const lines = pending.slice(0, cut).split('\n');
    await write(this.out, lines.map((line) => `${prefix}${line}\n`).join(''));
  }

  /** The device's last line, when it did not end with a newline. */
  async flush(device: string): Promise<void> {
    const rest = this.partial.get(device);
    this.partial.delete(device);
    if (rest) await write(this.out, `${escapeTerminal(device)}: ${rest}\n`);
  }

  /** A line of svc's own about the device (its error, its exit code). */
  note(device: string, text: string): Promise<void> {
    return write(this.out, `${escapeTerminal(device)}: ${text}\n`);
  }
}
