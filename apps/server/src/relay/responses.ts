import { ApiProperty } from '@nestjs/swagger';

class OAuthConfig {
  @ApiProperty() issuer: string;
  @ApiProperty() audience: string;
  @ApiProperty({ description: 'the public client the CLI signs in as' }) client_id: string;
}

class TunnelConfig {
  @ApiProperty() port: number;
  @ApiProperty({ type: [String], enum: ['quic', 'tcp'], description: 'carriers listening on `port` (quic: udp, tcp: TLS over TCP), preferred first' }) transports: ('quic' | 'tcp')[];
  @ApiProperty({ type: [String] }) alpn: string[];
  @ApiProperty({ description: 'SHA-256 of the tunnel certificate, for runtimes that pin it' }) certificate_sha256: string;
}

/** GET /auth/config; `tunnel` is null when this process does not listen for tunnels. */
export class AuthConfigResult {
  @ApiProperty() oauth: OAuthConfig;
  @ApiProperty({ type: TunnelConfig, nullable: true }) tunnel: TunnelConfig | null;
}
