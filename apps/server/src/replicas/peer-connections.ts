import { ClientHttp2Session, connect as h2connect } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { peerClientTls } from './peer-key';

/** A peer that does not complete the TLS-PSK handshake within this long is unreachable for this stream. */
export const PEER_CONNECT_TIMEOUT_MS = 5_000;
/**
 * Each open connection is pinged this often; one whose ping goes unanswered for PEER_DEAD_AFTER_MS
 * (a partition, a stopped process) is destroyed, failing its streams, instead of leaving them hanging.
 */
export const PEER_PING_MS = 2_000;
export const PEER_DEAD_AFTER_MS = 5_000;

/**
 * One HTTP/2 connection per other replica's peer address, opened on first use and reused by every
 * stream toward that replica; a connection that closes or fails is replaced on next use.
 */
export class PeerConnections {
  private readonly sessions = new Map<string, Promise<ClientHttp2Session>>();
  private closed = false;

  constructor(private readonly key: Buffer) {}

  session(address: string): Promise<ClientHttp2Session> {
    if (this.closed) return Promise.reject(new Error('this replica is shutting down'));
    let session = this.sessions.get(address);
    if (!session) {
      const opened = this.open(address);
      const forget = () => {
        if (this.sessions.get(address) === opened) this.sessions.delete(address);
      };
      opened.then((s) => s.once('close', forget), forget);
      this.sessions.set(address, opened);
      session = opened;
    }
    return session;
  }

  /** Drops the connection to a peer that stopped answering; the next stream dials again. */
  drop(address: string): void {
    const session = this.sessions.get(address);
    this.sessions.delete(address);
    void session?.then((s) => s.destroy(), () => undefined);
  }

  /**
   * This replica is stopping: every stream it relays through another replica is cut now (its
   * caller told, as when its own tunnel closes), and no new one opens. A graceful close would wait
   * for them, and a follow or a shell through the hop never ends on its own.
   */
  close(): void {
    this.closed = true;
    // With an error, so each stream fails (a plain destroy can look like a clean end to a relay).
    for (const session of this.sessions.values()) void session.then((s) => s.destroy(new Error('this replica is shutting down')), () => undefined);
    this.sessions.clear();
  }

  private open(address: string): Promise<ClientHttp2Session> {
    const { host, port } = splitAddress(address);
    return new Promise<ClientHttp2Session>((resolve, reject) => {
      const session = h2connect(`http://${address}`, { createConnection: () => tlsConnect(peerClientTls(this.key, host, port)) });
      const timer = setTimeout(() => fail(new Error(`peer ${address}: no connection within ${PEER_CONNECT_TIMEOUT_MS} ms`)), PEER_CONNECT_TIMEOUT_MS);
      const fail = (err: Error) => {
        clearTimeout(timer);
        session.destroy();
        reject(err);
      };
      session.once('connect', () => {
        clearTimeout(timer);
        session.off('error', fail);
        session.on('error', () => undefined);
        keepAlive(session);
        resolve(session);
      });
      session.once('error', fail);
    });
  }
}

function splitAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (!match) throw new Error(`peer address "${address}" is not host:port`);
  return { host: match[1], port: Number(match[2]) };
}

function keepAlive(session: ClientHttp2Session): void {
  let answeredAt = Date.now();
  const beat = setInterval(() => {
    if (Date.now() - answeredAt > PEER_DEAD_AFTER_MS) {
      session.destroy(new Error(`peer silent for ${PEER_DEAD_AFTER_MS} ms`));
      return;
    }
    try {
      session.ping((err) => {
        if (!err) answeredAt = Date.now();
      });
    } catch {
      // Too many pings in flight (the peer answers none): the deadline above decides.
    }
  }, PEER_PING_MS);
  beat.unref();
  session.once('close', () => clearInterval(beat));
}
