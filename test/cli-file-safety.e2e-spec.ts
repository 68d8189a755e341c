/**
 * What `svc cp`, `svc sync` and `svc ls` do at the edges an operator meets: the modes a copy
 * writes (no setuid, setgid or sticky bit crosses), the real binary, server and runtime.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { CliHome, svc, SvcResult } from './fixtures/svc-cli';

const ALICE = 'alice@file-safety.test';
const DEVICE = 'safe-1';

describe('cp, sync and ls at the edges (real binary, real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-file-safety-'));
  const device = join(dir, 'device');
  const local = join(dir, 'local');
  mkdirSync(device);
  mkdirSync(local);
  const fleet = useFleet({ users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice', runtime: true } } });
  let alice: CliHome;

  beforeAll(() => {
    alice = fleet.user('alice').home;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const ok = (result: SvcResult) => expect(result).toMatchObject({ code: 0, stderr: '' });
  const modeOf = (path: string) => statSync(path).mode & 0o7777;
  /** A file with exactly `mode` (chmod: the umask does not strip the special bits). */
  const fileWithMode = (path: string, mode: number) => {
    writeFileSync(path, `#!/bin/sh\necho ${mode.toString(8)}\n`);
    chmodSync(path, mode);
    expect(modeOf(path)).toBe(mode);
  };

  describe('modes', () => {
    it('drops setuid, setgid and sticky from a download by cp, and keeps the permissions', async () => {
      fileWithMode(join(device, 'suid.sh'), 0o4755);
      fileWithMode(join(device, 'sgid-sticky.sh'), 0o3750);
      ok(await svc(alice, ['cp', `${DEVICE}:${join(device, 'suid.sh')}`, join(local, 'suid.sh')]));
      ok(await svc(alice, ['cp', `${DEVICE}:${join(device, 'sgid-sticky.sh')}`, local]));
      expect(modeOf(join(local, 'suid.sh'))).toBe(0o755);
      expect(modeOf(join(local, 'sgid-sticky.sh'))).toBe(0o750);
    });

    it('drops them from the files a sync downloads, replaced ones included', async () => {
      const source = join(device, 'tree');
      mkdirSync(join(source, 'bin'), { recursive: true });
      fileWithMode(join(source, 'bin', 'tool'), 0o6711);
      const dest = join(local, 'tree');
      ok(await svc(alice, ['sync', `${DEVICE}:${source}`, dest]));
      expect(modeOf(join(dest, 'bin', 'tool'))).toBe(0o711);
      // Changed on the device: copied again over the local file, still without the bits.
      writeFileSync(join(source, 'bin', 'tool'), 'changed, and longer\n');
      chmodSync(join(source, 'bin', 'tool'), 0o4700);
      ok(await svc(alice, ['sync', `${DEVICE}:${source}`, dest]));
      expect(modeOf(join(dest, 'bin', 'tool'))).toBe(0o700);
    });

    it('drops them from an upload too: one rule on both sides', async () => {
      fileWithMode(join(local, 'up-suid.sh'), 0o4755);
      ok(await svc(alice, ['cp', join(local, 'up-suid.sh'), `${DEVICE}:${join(device, 'up-suid.sh')}`]));
      expect(modeOf(join(device, 'up-suid.sh'))).toBe(0o755);
    });
  });
});
