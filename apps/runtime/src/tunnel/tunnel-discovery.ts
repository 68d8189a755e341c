import { ROUTES } from '@svc/common';
import { ServerApi } from '../http/server-api';
import type { AnnouncedQuicIdentity } from './quic-trust';
import type { TunnelCarrierName, TunnelTarget } from './tunnel-connection';

/** Host of the server URL without IPv6 brackets, as a socket wants it. */
export function serverHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The tunnel listens on the server's host, on the port (and carriers) `GET /auth/config` announces. */
export async function discoverTunnel(api: ServerApi): Promise<TunnelTarget> {
  const answer = await api.get(ROUTES.auth_config.path);
  const tunnel = (answer.body as { tunnel?: { port?: unknown; transports?: unknown; certificate_sha256?: unknown; quic?: unknown } } | undefined)?.tunnel;
  if (answer.status !== 200) throw new Error(`GET /auth/config answered HTTP ${answer.status}; give the tunnel address with --tunnel host:port`);
  if (typeof tunnel?.port !== 'number') throw new Error('the server announces no tunnel endpoint (GET /auth/config); give one with --tunnel host:port');
  // A server from before QUIC announces no transports: it has TLS over TCP only.
  const announced = Array.isArray(tunnel.transports) ? tunnel.transports : ['tcp'];
  const transports = announced.filter((name): name is TunnelCarrierName => name === 'quic' || name === 'tcp');
  const announced256 = typeof tunnel.certificate_sha256 === 'string' && /^[0-9a-f]{64}$/.test(tunnel.certificate_sha256) ? tunnel.certificate_sha256 : undefined;
  const quic = announcedQuic(tunnel.quic);
  return { host: serverHost(api.baseUrl), port: tunnel.port, transports, certificateSha256: announced256, ...(quic && { quic }) };
}

function announcedQuic(value: unknown): AnnouncedQuicIdentity | undefined {
  const quic = value as Partial<Record<keyof AnnouncedQuicIdentity, unknown>> | undefined;
  if (typeof quic?.peer_id !== 'string' || typeof quic.certificate !== 'string' || typeof quic.signature !== 'string') return undefined;
  return { peer_id: quic.peer_id, certificate: quic.certificate, signature: quic.signature };
}

/**
 * An address given with --tunnel (a relay, a port forward) still needs the server's QUIC key,
 * which only GET /auth/config announces; without it (server unreachable now) QUIC is not tried.
 */
export async function withAnnouncedQuic(target: TunnelTarget, api: ServerApi): Promise<TunnelTarget> {
  const quic = await discoverTunnel(api).then((announced) => announced.quic, () => undefined);
  return quic ? { ...target, quic } : target;
}
