import { Logger } from '@nestjs/common';
import { DeviceRevocations } from '../registrations/device-revocations';
import { SystemClock } from '../common/clock';
import type { RevocationsRepository } from '../registrations/revocations.repository';
import type { ServerConfig } from '../config/server-config';
import { RelayService } from './relay.service';
import type { TunnelRegistry } from './tunnel-registry.service';
import type { TunnelSession } from './tunnel-carrier';

const HELLO = { v: 1, api_key: 'svc_key-of-d1', runtime: { version: '1', boot_id: 'b' } };

describe('RelayService admission', () => {
  let relay: RelayService;
  let revocations: DeviceRevocations;
  let registered: TunnelSession[];
  let revoked: string[];

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    registered = [];
    revoked = [];
    revocations = new DeviceRevocations({ insert: async () => undefined } as unknown as RevocationsRepository, new SystemClock());
    const registry = { register: (s: TunnelSession) => registered.push(s), revoke: (id: string) => revoked.push(id) } as unknown as TunnelRegistry;
    const credentials = { deviceIdForKey: async (apiKey: string) => (apiKey === HELLO.api_key ? 'd1' : null) };
    relay = new RelayService({} as ServerConfig, { listen: false }, registry, credentials, revocations);
  });

  const session = () => {
    const s = { deviceId: 'd1', closedWith: null as string | null, close: (reason: string) => (s.closedWith = reason) };
    return s as unknown as TunnelSession & { closedWith: string | null };
  };

  it('admits a known key and registers its session', async () => {
    const admission = await relay.authenticate(HELLO);
    expect(admission).toMatchObject({ deviceId: 'd1' });
    const s = session();
    relay.accepted(s, admission!);
    expect(registered).toEqual([s]);
    expect(s.closedWith).toBeNull();
  });

  it('refuses an unknown key', async () => {
    expect(await relay.authenticate({ ...HELLO, api_key: 'svc_other' })).toBeNull();
  });

  it('voids an admission when the device is revoked while its key is being checked', async () => {
    const admission = await relay.authenticate(HELLO);
    await revocations.revoked({ id: 'd1', apiKeyHash: 'h1' }, 'removed');
    const s = session();
    relay.accepted(s, admission!);
    expect(registered).toEqual([]);
    expect(s.closedWith).toMatch(/revoked/);
    expect(revoked).toEqual(['d1']);
  });

  it('admits a key checked after the revocation (a re-keyed device with its new key)', async () => {
    await revocations.revoked({ id: 'd1', apiKeyHash: 'h1' }, 'removed');
    const admission = await relay.authenticate(HELLO);
    relay.accepted(session(), admission!);
    expect(registered).toHaveLength(1);
  });

  it('does not let a revocation of another device void the admission', async () => {
    const admission = await relay.authenticate(HELLO);
    await revocations.revoked({ id: 'd2', apiKeyHash: 'h2' }, 'removed');
    relay.accepted(session(), admission!);
    expect(registered).toHaveLength(1);
  });
});
