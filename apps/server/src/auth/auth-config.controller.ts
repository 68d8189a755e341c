import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from './decorators';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { RelayService } from '../relay/relay.service';
import { AuthConfigResult } from './auth-config.responses';

/**
 * Discovery for clients and runtimes: where to sign in and where the tunnel listens, with the
 * certificate fingerprint a runtime can pin. Public: it holds nothing secret.
 */
@ApiTags('auth')
@Public()
@Controller('auth')
export class AuthConfigController {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly relay: RelayService,
  ) {}

  @Get('config')
  @ApiOkResponse({ type: AuthConfigResult })
  authConfig(): AuthConfigResult {
    const tunnel = this.relay.endpoint();
    return {
      oauth: { issuer: this.config.oauth.issuer, audience: this.config.oauth.audience, client_id: this.config.oauth.clientId, web_client_id: this.config.oauth.webClientId },
      tunnel: tunnel ? { port: tunnel.port, transports: tunnel.transports, alpn: tunnel.alpn, certificate_sha256: tunnel.certificateSha256, quic: tunnel.quic } : null,
    };
  }
}
