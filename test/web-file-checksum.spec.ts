/**
 * The dashboard's download check (apps/web/src/api/file-checksum.ts): equal bytes pass, other
 * bytes are refused with CHECKSUM_MISMATCH; and its exclude patterns, compiled by the device's own
 * matcher (libs/common), leave exactly the one file of a directory, whatever its name.
 */
import { createHash } from 'node:crypto';
import { compileExcludes } from '@svc/common';

// apps/web is an ES module workspace: a CommonJS suite loads it with import().
type Web = typeof import('../apps/web/src/api/file-checksum.js', { with: { 'resolution-mode': 'import' } });
const WEB_CHECKSUM: string = '../apps/web/src/api/file-checksum';
let web: Web;
beforeAll(async () => {
  web = (await import(WEB_CHECKSUM)) as Web;
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('dashboard download checksum', () => {
  it('passes the bytes\' SHA-256 when it is the device\'s, in either case', () => {
    expect(web.verifySha256('a.txt', sha256('hello'), sha256('hello'))).toBe(sha256('hello'));
    expect(web.verifySha256('a.txt', sha256('hello'), sha256('hello').toUpperCase())).toBe(sha256('hello'));
  });

  it('refuses another SHA-256 with CHECKSUM_MISMATCH, naming both checksums', () => {
    const refusal = () => web.verifySha256('a.txt', sha256('hellO'), sha256('hello'));
    expect(refusal).toThrow(web.ChecksumMismatchError);
    expect(refusal).toThrow(
      expect.objectContaining({
        code: 'CHECKSUM_MISMATCH',
        message: `a.txt was not saved: its bytes hash to sha256 ${sha256('hellO')}, but the device reports sha256 ${sha256('hello')}`,
      }),
    );
  });

  it.each(['a.txt', 'odd name (1) [x].bin', '.hidden', 'a|b+c@d!e{1,2}*?.log', 'ü é~$^#%&=;\'"', 'x'.repeat(255)])('leaves only %j of its directory', (name) => {
    const excluded = compileExcludes(web.onlyFilePatterns(name));
    expect(excluded(name, false)).toBe(false);
    expect(excluded(name, true)).toBe(true);
    for (const other of [`${name}x`, `x${name}`, 'other', 'a.txt', name.slice(1)].filter((n) => n !== name && n !== '')) expect(excluded(other, false)).toBe(true);
  });
});
