import { Controller, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { CatalogRouteResult } from '@svc/common';
import { CatalogRoute } from '../authorization/operation.decorator';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { RelayService } from '../relay/relay.service';

/**
 * Discovery for clients and runtimes (ROUTES auth_config): where to sign in and where the tunnel
 * listens, with the certificate fingerprint a runtime can pin. Public: it holds nothing secret.
 */
@ApiTags('auth')
@Controller()
export class AuthConfigController {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly relay: RelayService,
  ) {}

  @CatalogRoute('auth_config')
  authConfig(): CatalogRouteResult<'auth_config'> {
    const tunnel = this.relay.endpoint();
    return {
      oauth: { issuer: this.config.oauth.issuer, audience: this.config.oauth.audience, client_id: this.config.oauth.clientId, web_client_id: this.config.oauth.webClientId },
      tunnel: tunnel ? { port: tunnel.port, transports: tunnel.transports, alpn: tunnel.alpn, certificate_sha256: tunnel.certificateSha256, quic: tunnel.quic } : null,
    };
  }
}
