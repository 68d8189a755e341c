import { Global, Module } from '@nestjs/common';
import { InProcessTunnelDirectory, TunnelDirectory } from './tunnel-directory';
import { TunnelRegistry } from './tunnel-registry.service';
import { TunnelPresence } from './tunnel-presence';
import { LastSeenRecorder } from './last-seen.recorder';

/**
 * Who is connected: global and free of feature imports, so that DevicesModule can answer presence
 * from it while RelayModule (which needs DevicesModule) does the connecting.
 */
@Global()
@Module({
  providers: [TunnelRegistry, LastSeenRecorder, TunnelPresence, { provide: TunnelDirectory, useClass: InProcessTunnelDirectory }],
  exports: [TunnelRegistry, TunnelPresence, TunnelDirectory],
})
export class TunnelStateModule {}
