import { hasControlChars } from './control-chars';

/** A device's display name: what `svc devices list` shows and what a `device` parameter may name. */
export const DEVICE_NAME_MAX_LENGTH = 64;

/** Why `name` cannot be a device name, or null when it can. One rule for the server, the runtime's --name and the CLI. */
export function deviceNameProblem(name: string): string | null {
  if (name.trim().length === 0) return 'a device name must not be empty';
  if (name.trim() !== name) return 'a device name must not start or end with white space';
  if ([...name].length > DEVICE_NAME_MAX_LENGTH) return `a device name has at most ${DEVICE_NAME_MAX_LENGTH} characters`;
  if (hasControlChars(name)) return 'a device name must not contain control, formatting or invisible characters';
  return null;
}
