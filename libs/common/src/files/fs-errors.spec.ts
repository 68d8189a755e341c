import { DomainError, HTTP_STATUS_BY_CODE } from '../errors';
import { fileSystemError, isNotADirectory } from './fs-errors';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('fileSystemError', () => {
  it.each([
    ['ENOENT', 'NOT_FOUND', 404, 'No such file or directory: /x'],
    ['EACCES', 'FORBIDDEN', 403, 'Permission denied: /x'],
    ['EROFS', 'FORBIDDEN', 403, 'Read-only file system: /x'],
    ['ENOTDIR', 'INVALID_INPUT', 400, 'Not a directory: /x'],
    ['EISDIR', 'INVALID_INPUT', 400, 'Is a directory: /x'],
    ['ENOSPC', 'INSUFFICIENT_STORAGE', 507, 'No space left on device (writing /x)'],
    ['EDQUOT', 'INSUFFICIENT_STORAGE', 507, 'Disk quota exceeded (writing /x)'],
  ])('maps %s to %s (%d)', (code, domainCode, status, message) => {
    const error = fileSystemError(errno(code), '/x');
    expect(error).toMatchObject({ code: domainCode, message });
    expect(HTTP_STATUS_BY_CODE[error.code]).toBe(status);
  });

  it('keeps an unknown errno visible in an INTERNAL error', () => {
    expect(fileSystemError(errno('EWEIRD'), '/x')).toMatchObject({ code: 'INTERNAL', message: 'Cannot access /x: EWEIRD' });
  });

  it('recognises its ENOTDIR, also as it arrives from a device (errorFromAnswer), and nothing else', () => {
    expect(isNotADirectory(fileSystemError(errno('ENOTDIR'), '/x'))).toBe(true);
    expect(isNotADirectory(new DomainError('INVALID_INPUT', 'Not a directory: /etc/hostname'))).toBe(true);
    expect(isNotADirectory(fileSystemError(errno('EISDIR'), '/x'))).toBe(false);
    expect(isNotADirectory(new DomainError('NOT_FOUND', 'Not a directory: /x'))).toBe(false);
  });
});
