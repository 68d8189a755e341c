/** What both tunnel kinds (reverse HTTP/2, QUIC stream per operation) hand the tunnel loop. */

/** The two carriers on the tunnel port: QUIC on udp, TLS on tcp. */
export type TunnelCarrierName = 'quic' | 'tcp';

export interface OpenTunnel {
  readonly carrier: TunnelCarrierName;
  deviceId: string;
  /** Whether the server has operation streams open on it right now. */
  busy(): boolean;
  heartbeatSecs: number;
  /** QUIC only: the path's smoothed round-trip time as quinn measures it, in whole ms. */
  roundTripMs?(): number;
  /**
   * Settles with the reason once the tunnel is gone, whoever ended it, or as soon as the server
   * said it closes it (its operations in flight may still finish on it: operation-streams.ts).
   */
  closed: Promise<string>;
  /** Clean shutdown: in-flight operations stopped and reaped, streams closed, then the socket. */
  close(): Promise<void>;
}
