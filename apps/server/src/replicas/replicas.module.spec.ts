import { Inject, Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { ConfigModule } from '../config/config.module';
import type { ServerConfig } from '../config/server-config';
import { SystemClock } from '../common/clock';
import { SHARED_TICKET_STORE } from '../common/ticket-store';
import { InProcessTunnelDirectory, SHARED_TUNNEL_DIRECTORY, TunnelDirectory } from '../relay/tunnel-directory';
import { PeerSessions } from '../relay/tunnel-ports';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { NatsServerHandle, startNatsServer } from '../../../../test/fixtures/nats-server';
// The whole server's files, loaded as main.ts loads them: none may load the NATS client on its own.
import { AppModule } from '../app.module';
import { NatsTicketStore } from './nats-ticket-store';
import { PeerListener } from './peer-listener';
import type { ReplicaBus } from './replica-bus';
import { ReplicaEvents } from './replica-events';
import { ReplicaListenerModule } from './replica-listener.module';
import { REPLICA_BUS, ReplicasModule } from './replicas.module';
import { TunnelsModule } from './tunnels.module';

/**
 * Whoever first requires the `nats` package leaves its stack here (the factory runs at that
 * require, possibly while this file's own imports load, so it writes to the global object).
 */
const natsLoad = globalThis as { natsLoadedBy?: string };
jest.mock('nats', () => {
  (globalThis as { natsLoadedBy?: string }).natsLoadedBy = new Error('nats loaded').stack;
  return jest.requireActual('nats');
});

/** Three features the way the server's are: each records what it was given (in `inject` order). */
const seenBy = (feature: string, inject: unknown[]) => ({ provide: `seen by ${feature}`, useFactory: (...seen: unknown[]) => seen, inject: inject as never[] });
@Module({ imports: [ReplicasModule], providers: [seenBy('A', [REPLICA_BUS, ReplicaEvents, SHARED_TICKET_STORE])] })
class FeatureA {}
@Module({ imports: [ReplicasModule, TunnelsModule], providers: [seenBy('B', [REPLICA_BUS, SHARED_TUNNEL_DIRECTORY, PeerSessions, TunnelRegistry, TunnelDirectory])] })
class FeatureB {}
@Module({ imports: [TunnelsModule], providers: [seenBy('C', [TunnelRegistry, TunnelDirectory])] })
class FeatureC {}

@Injectable()
class TakesEvents {
  constructor(@Inject(ReplicaEvents) readonly events: ReplicaEvents | null) {}
}

const SECRET = Buffer.from('replicas-module-spec-secret');
const single = { serverSecret: SECRET, replicaId: 'alone', replicas: null } as unknown as ServerConfig;
const replica = (natsUrl: string) =>
  ({ serverSecret: SECRET, replicaId: 'r1', listenHost: '127.0.0.1', replicas: { natsUrl, peerPort: 0, peerAddress: '127.0.0.1:1', drainMs: 0 } }) as unknown as ServerConfig;

const compile = (config: ServerConfig, ...imports: NonNullable<Parameters<typeof Test.createTestingModule>[0]['imports']>) =>
  Test.createTestingModule({ imports: [ConfigModule.forRoot(config, new SystemClock()), FeatureA, FeatureB, FeatureC, ...imports] }).compile();

describe('ReplicasModule (not global: each module that uses a replica port imports it)', () => {
  it('without NATS_URL: every port is null, the tunnels keep an in-process directory, and the NATS client is never loaded', async () => {
    expect(AppModule).toBeDefined(); // keeps the import above: an unused import is dropped
    const app = await compile(single);
    const [a, b, c] = ['A', 'B', 'C'].map((feature) => app.get<string, unknown[]>(`seen by ${feature}`));
    expect(a).toEqual([null, null, null]);
    expect(b.slice(0, 3)).toEqual([null, null, null]);
    expect(c[0]).toBeInstanceOf(TunnelRegistry);
    expect(c[1]).toBeInstanceOf(InProcessTunnelDirectory);
    expect(b.slice(3)).toEqual(c);
    await app.close();
    expect(natsLoad.natsLoadedBy).toBeUndefined();
  });

  it('leaves a module that does not import it without the ports', async () => {
    @Module({ providers: [TakesEvents] })
    class DoesNotImportIt {}
    await expect(compile(single, DoesNotImportIt)).rejects.toThrow(/resolve dependencies of the TakesEvents \(\?\)/);
  });

  describe('with NATS_URL (a real nats-server)', () => {
    let nats: NatsServerHandle;
    let app: TestingModule | undefined;
    beforeAll(async () => {
      nats = await startNatsServer();
    });
    afterAll(async () => {
      await app?.close();
      await nats?.stop();
    });

    it('starts one ReplicaBus for every importer, the tunnels and the peer listener, and closes it with the application', async () => {
      const { ReplicaBus: Bus } = require('./replica-bus') as typeof import('./replica-bus');
      const start = jest.spyOn(Bus, 'start');
      app = await compile(replica(nats.url), ReplicaListenerModule);
      await app.init();
      expect(start).toHaveBeenCalledTimes(1);
      const [[busA, events, tickets], [busB, directory, peers, registryB, directoryB], [registryC, directoryC]] = ['A', 'B', 'C'].map((feature) => app!.get<string, unknown[]>(`seen by ${feature}`));
      const bus = busA as ReplicaBus;
      expect(bus).toBeInstanceOf(Bus);
      expect(busB).toBe(bus);
      expect([events, directory, peers]).toEqual([bus.events, bus.directory, bus.peers]);
      expect(tickets).toBeInstanceOf(NatsTicketStore);
      expect(registryB).toBe(registryC);
      expect(directoryB).toBe(bus.directory);
      expect(directoryC).toBe(bus.directory);
      expect(app.get(PeerListener).port).toBeGreaterThan(0);
      await app.close();
      app = undefined;
      expect(bus.nc.isClosed()).toBe(true);
    });
  });
});
