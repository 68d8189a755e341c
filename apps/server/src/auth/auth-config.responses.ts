import { ApiProperty } from '@nestjs/swagger';

class OAuthConfig {
  @ApiProperty() issuer: string;
  @ApiProperty() audience: string;
  @ApiProperty({ description: 'the public client the CLI signs in as' }) client_id: string;
  @ApiProperty({ description: 'the public client the web dashboard signs in as (authorization code with PKCE)' }) web_client_id: string;
}

class QuicIdentityConfig {
  @ApiProperty({ description: 'libp2p peer id of the Ed25519 key the QUIC (libp2p-tls) handshake proves' }) peer_id: string;
  @ApiProperty({ description: 'the tunnel certificate chain (PEM), checked like the TCP carrier\'s' }) certificate: string;
  @ApiProperty({ description: 'base64 signature of "svc tunnel QUIC peer id: " + peer_id by that certificate\'s key' }) signature: string;
}

class TunnelConfig {
  @ApiProperty() port: number;
  @ApiProperty({ type: [String], enum: ['quic', 'tcp'], description: 'carriers listening on `port` (quic: udp, tcp: TLS over TCP), preferred first' }) transports: ('quic' | 'tcp')[];
  @ApiProperty({ type: [String] }) alpn: string[];
  @ApiProperty({ description: 'SHA-256 of the tunnel certificate, for runtimes that pin it' }) certificate_sha256: string;
  @ApiProperty({ type: () => QuicIdentityConfig, required: false, description: 'the QUIC server key, vouched for by the tunnel certificate; absent without QUIC' }) quic?: QuicIdentityConfig;
}

/** GET /auth/config; `tunnel` is null when this process does not listen for tunnels. */
export class AuthConfigResult {
  @ApiProperty() oauth: OAuthConfig;
  @ApiProperty({ type: TunnelConfig, nullable: true }) tunnel: TunnelConfig | null;
}
