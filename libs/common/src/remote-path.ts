import { InvalidInputError } from './errors';

/**
 * `device_ls`, `device_cp` and `device_sync` take paths that are either local or `<device>:<path>`.
 * The rule (docs/protocol.md, "Files"):
 * - `<device>:<path>` when the text before the first `:` is a non-empty device reference without
 *   `/` or `\` (so `./a:b`, `/x:y` and `dir/a:b` are local). `<path>` may be empty: the runtime's
 *   home directory.
 * - A device id that itself contains `:` is written in brackets: `[id:with:colons]:/path`.
 * - A Windows drive is local: `C:\x` everywhere (no device path starts with a backslash), and on
 *   Windows also `C:/x`, `C:x` and `C:` (write `[c]:/path` there for a device named `c`).
 */
export type FileLocation = { kind: 'device'; device: string; path: string } | { kind: 'local'; path: string };

const DRIVE_BACKSLASH = /^[A-Za-z]:\\/;
const DRIVE_ANY = /^[A-Za-z]:/;
const BRACKETED = /^\[([^\]]+)\]:(.*)$/s;

export function parseFileLocation(spec: string, platform: string = process.platform): FileLocation {
  if (spec.length === 0) throw new InvalidInputError('A path must not be empty');
  if (spec.includes('\0')) throw new InvalidInputError('A path must not contain NUL characters');
  const bracketed = BRACKETED.exec(spec);
  if (bracketed) return { kind: 'device', device: bracketed[1], path: bracketed[2] };
  if (DRIVE_BACKSLASH.test(spec) || (platform === 'win32' && DRIVE_ANY.test(spec))) return { kind: 'local', path: spec };
  const colon = spec.indexOf(':');
  if (colon <= 0) return { kind: 'local', path: spec };
  const device = spec.slice(0, colon);
  if (/[/\\]/.test(device)) return { kind: 'local', path: spec };
  return { kind: 'device', device, path: spec.slice(colon + 1) };
}

/** A `<device>:<path>` that must name a device (`device_ls`). */
export function parseDevicePath(spec: string): { device: string; path: string } {
  const location = parseFileLocation(spec, 'linux');
  if (location.kind !== 'device') throw new InvalidInputError(`Expected <device>:<path>, got a local path: ${spec}`);
  return location;
}

