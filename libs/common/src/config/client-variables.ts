import { isScope } from '../scopes';
import { v } from './variables';

/** Variables read by the CLI and the runtime (highest precedence over the credentials file). */
export const CLIENT_VARIABLES = {
  serverUrl: v.url('SVC_SERVER_URL', 'Server URL for a self-hosted server (`https://<host>`); plain `http://` only for a server on this machine.', '`http://localhost:8085` (the local development server) or the one `svc login --server` saved', ['https', 'http']),
  authDomain: v.url('SVC_AUTH_DOMAIN', 'Identity provider address override (the OAuth issuer).', 'discovered from the server', ['https', 'http']),
  authClientId: v.string('SVC_AUTH_CLIENT_ID', 'OAuth client id override.', 'svc-cli'),
  authAudience: v.string('SVC_AUTH_AUDIENCE', 'OAuth audience override (the API resource tokens are requested for).'),
  apiKey: v.string('SVC_API_KEY', 'Device API key used by the runtime; highest precedence over the credentials file.'),
  ownerReference: {
    ...v.string('OWNER_REFERENCE', 'Owner scope requested at registration (`user:<email>` or `org:<org_id>`).'),
    parse(raw: string | undefined) {
      if (raw === undefined) return undefined;
      if (!isScope(raw)) throw new Error('must be a scope: user:<email> or org:<org_id>');
      return raw;
    },
  },
};
