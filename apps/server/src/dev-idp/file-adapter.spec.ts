import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileOidcStore } from './file-adapter';

describe('FileOidcStore', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-oidc-store-'));
    file = join(dir, 'dev-idp', 'grants.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps what it stored across instances (a restarted provider), in a private file', async () => {
    await new FileOidcStore(file).adapter('RefreshToken').upsert('rt1', { grantId: 'g1', accountId: 'a@b.test' }, 3600);
    expect(await new FileOidcStore(file).adapter('RefreshToken').find('rt1')).toEqual({ grantId: 'g1', accountId: 'a@b.test' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps models apart, finds by user code and uid, consumes, destroys and revokes by grant', async () => {
    const store = new FileOidcStore(file);
    await store.adapter('DeviceCode').upsert('d1', { userCode: 'ABCD', grantId: 'g1' }, 600);
    await store.adapter('Session').upsert('s1', { uid: 'u1' }, 600);
    await store.adapter('Grant').upsert('g1', { grantId: 'g1' }, 600);
    expect(await store.adapter('Grant').find('d1')).toBeUndefined();
    expect(await store.adapter('DeviceCode').findByUserCode('ABCD')).toMatchObject({ grantId: 'g1' });
    expect(await store.adapter('Session').findByUid('u1')).toEqual({ uid: 'u1' });
    await store.adapter('DeviceCode').consume('d1');
    expect(await store.adapter('DeviceCode').find('d1')).toMatchObject({ consumed: expect.any(Number) });
    await store.adapter('Session').destroy('s1');
    expect(await store.adapter('Session').find('s1')).toBeUndefined();
    await store.adapter('Grant').revokeByGrantId('g1');
    expect(await new FileOidcStore(file).adapter('DeviceCode').find('d1')).toBeUndefined();
    expect(await new FileOidcStore(file).adapter('Grant').find('g1')).toBeUndefined();
  });

  it('forgets what expired', async () => {
    const store = new FileOidcStore(file);
    await store.adapter('AccessToken').upsert('at1', { x: 1 }, -1);
    expect(await store.adapter('AccessToken').find('at1')).toBeUndefined();
  });
});
