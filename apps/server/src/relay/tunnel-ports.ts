import type { TLSSocket } from 'node:tls';
import type { TunnelSession } from './tunnel-carrier';

/**
 * What the tunnel needs from the rest of the server, as ports: the tunnel folder imports no
 * feature, and the composition root (app.module) plugs in the modules that provide these. A
 * replica's peer session plugs in the same way.
 */

/** Which device a runtime's API key belongs to (null: no device has it). */
export abstract class TunnelCredentials {
  abstract deviceIdForKey(apiKey: string): Promise<string | null>;
}

/** Announces devices whose key stopped being valid, so their live tunnel is closed at once. */
export abstract class RevocationFeed {
  abstract onRevoked(listener: (deviceId: string) => void | Promise<void>): void;
}

/** Takes the client connections that arrive on the tunnel port with `alpn` (not runtimes). */
export abstract class ClientStreamAcceptor {
  abstract readonly alpn: string;
  abstract accept(socket: TLSSocket): void;
}

/** Told when a device's tunnel comes up on this process and when it goes away. */
export interface TunnelPresenceListener {
  /**
   * `replacing`: the tunnel takes the place of one this process still held (auto's carrier
   * switch, a reconnect before the old one was seen gone), so the device was never offline here.
   */
  connected(deviceId: string, replacing: boolean): void;
  disconnected(deviceId: string): void;
}

/**
 * Sessions toward devices whose tunnel another replica holds (the peer hop): a port of the tunnel
 * state (TunnelStateModule.withPorts), null unless replicas share a directory; asked after this
 * process's own tunnels, before DEVICE_OFFLINE.
 */
export abstract class PeerSessions {
  abstract sessionFor(deviceId: string): TunnelSession | undefined;
}
