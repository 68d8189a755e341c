/**
 * The real `svc` binary keeps Node's compile cache (Node 22.1+) in the user's own cache directory,
 * created 0700, and a cache it cannot write never fails a command. On Node 20 (no compile cache)
 * it creates nothing.
 * Not on useFleet: no server; it tests the CLI's compile cache on this machine.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, cliHome, svc } from './fixtures/svc-cli';

const nodeHasCompileCache = typeof (require('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe('svc start-up: compile cache (real binary)', () => {
  let home: CliHome;

  beforeEach(() => {
    home = cliHome({ url: 'http://127.0.0.1:1' });
  });
  afterEach(() => home.remove());

  it(`svc --version ${nodeHasCompileCache ? 'fills ~/.cache/svc/node-compile-cache, 0700' : 'creates no cache directory on this Node'}`, async () => {
    const result = await svc(home, ['--version']);
    expect(result.code).toBe(0);
    const cache = join(home.dir, '.cache/svc/node-compile-cache');
    if (!nodeHasCompileCache) {
      expect(existsSync(cache)).toBe(false);
      return;
    }
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(join(home.dir, '.cache/svc')).mode & 0o777).toBe(0o700);
    expect(readdirSync(cache).length).toBeGreaterThan(0);
  });

  it('XDG_CACHE_HOME wins, and a cache directory that cannot be created does not fail the command', async () => {
    writeFileSync(join(home.dir, 'not-a-directory'), '');
    const blocked = await svc(home, ['--version'], { env: { XDG_CACHE_HOME: join(home.dir, 'not-a-directory') } });
    expect(blocked).toMatchObject({ code: 0, stderr: '' });
    const xdg = await svc(home, ['--version'], { env: { XDG_CACHE_HOME: join(home.dir, 'xdg') } });
    expect(xdg.code).toBe(0);
    expect(existsSync(join(home.dir, 'xdg/svc/node-compile-cache'))).toBe(nodeHasCompileCache);
  });
});
