import { ConflictError, DomainError, ForbiddenError, InsufficientStorageError, InvalidInputError, NotFoundError } from '../errors';

type Describe = (path: string) => DomainError;

const NOT_A_DIRECTORY = 'Not a directory: ';

/** What a person should read for each file-system failure, on the device and on the client alike. */
const BY_ERRNO: Record<string, Describe> = {
  ENOENT: (path) => new NotFoundError(`No such file or directory: ${path}`),
  EACCES: (path) => new ForbiddenError(`Permission denied: ${path}`),
  EPERM: (path) => new ForbiddenError(`Permission denied: ${path}`),
  EROFS: (path) => new ForbiddenError(`Read-only file system: ${path}`),
  ENOTDIR: (path) => new InvalidInputError(`${NOT_A_DIRECTORY}${path}`),
  EISDIR: (path) => new InvalidInputError(`Is a directory: ${path}`),
  ENAMETOOLONG: (path) => new InvalidInputError(`File name too long: ${path}`),
  ELOOP: (path) => new InvalidInputError(`Too many levels of symbolic links: ${path}`),
  ENXIO: (path) => new InvalidInputError(`No such device or address: ${path} (a FIFO needs a reader, a socket cannot be opened)`),
  EEXIST: (path) => new ConflictError(`File exists: ${path}`),
  ENOTEMPTY: (path) => new ConflictError(`Directory not empty: ${path}`),
  EBUSY: (path) => new ConflictError(`Device or resource busy: ${path}`),
  ETXTBSY: (path) => new ConflictError(`Text file busy: ${path}`),
  ENOSPC: (path) => new InsufficientStorageError(`No space left on device (writing ${path})`),
  EDQUOT: (path) => new InsufficientStorageError(`Disk quota exceeded (writing ${path})`),
  EFBIG: (path) => new InsufficientStorageError(`File too large for the file system: ${path}`),
};

/**
 * Turns a Node file-system error into the domain error a caller sees: ENOENT is NOT_FOUND "No
 * such file or directory: <path>", EACCES/EPERM FORBIDDEN, ENOTDIR/EISDIR INVALID_INPUT, ENOSPC
 * INSUFFICIENT_STORAGE, and so on. Domain errors pass through; other errors keep their errno in
 * an INTERNAL error so the cause is still visible.
 */
export function fileSystemError(err: unknown, path: string): DomainError {
  if (err instanceof DomainError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && code in BY_ERRNO) return BY_ERRNO[code](path);
  return new DomainError('INTERNAL', `Cannot access ${path}: ${code ?? (err instanceof Error ? err.message : String(err))}`);
}

/** Whether `error` is ENOTDIR as fileSystemError words it, here or as it arrives from a device. */
export function isNotADirectory(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'INVALID_INPUT' && error.message.startsWith(NOT_A_DIRECTORY);
}
