import { CLIENT_VARIABLES, VariableSpec } from '@svc/common';
import { LOG_LEVELS } from '../logging/log-level';
import { SERVER_VARIABLES } from './server-variables';

/**
 * docs/configuration.md is generated from the variable tables, so the documentation cannot drift
 * from what the server actually parses; config-doc.spec.ts fails when the file is stale.
 */

const GROUPS = [
  'Database',
  'Identity provider',
  'Network and TLS',
  'Administration and users',
  'Retention and limits',
  'Mode, logging and data',
  'Replicas',
] as const;
type Group = (typeof GROUPS)[number];

// A Record over every key: adding a server variable without placing it here fails type-checking.
const GROUP_OF: Record<keyof typeof SERVER_VARIABLES, Group> = {
  dbUri: 'Database',
  dbName: 'Database',
  dbUser: 'Database',
  dbPassword: 'Database',
  oauthIssuer: 'Identity provider',
  oauthAudience: 'Identity provider',
  oauthClientId: 'Identity provider',
  oauthWebClientId: 'Identity provider',
  devIdpPort: 'Identity provider',
  publicAddress: 'Network and TLS',
  unifiedPort: 'Network and TLS',
  restPort: 'Network and TLS',
  listenHost: 'Network and TLS',
  tunnelQuic: 'Network and TLS',
  certificatePath: 'Network and TLS',
  handshakeTimeoutMs: 'Network and TLS',
  clientIdleTimeoutMs: 'Network and TLS',
  maxConnectionsPerAddress: 'Network and TLS',
  maxConnections: 'Network and TLS',
  restMaxConnectionsPerAddress: 'Network and TLS',
  restMaxConnections: 'Network and TLS',
  restBodyTimeoutMs: 'Network and TLS',
  webOrigins: 'Network and TLS',
  adminKey: 'Administration and users',
  serverSecret: 'Administration and users',
  serverSecretFile: 'Administration and users',
  adminEmails: 'Administration and users',
  usersNeedApproval: 'Administration and users',
  userAutoAcceptDomains: 'Administration and users',
  allowCrossOrgDeviceSharing: 'Administration and users',
  auditRetentionDays: 'Retention and limits',
  reportRetentionDays: 'Retention and limits',
  filesStallTimeoutSecs: 'Retention and limits',
  eventsWindow: 'Retention and limits',
  eventsWindowSecs: 'Retention and limits',
  eventsMaxStreamsPerUser: 'Retention and limits',
  registrationRateLimit: 'Retention and limits',
  maxPendingPerScope: 'Retention and limits',
  maxPendingPerSource: 'Retention and limits',
  staging: 'Mode, logging and data',
  logLevel: 'Mode, logging and data',
  dataDir: 'Mode, logging and data',
  webDir: 'Mode, logging and data',
  natsUrl: 'Replicas',
  peerPort: 'Replicas',
  peerAddress: 'Replicas',
  drainSecs: 'Replicas',
  replicaId: 'Replicas',
};

export function renderConfigurationDoc(): string {
  const levels = LOG_LEVELS.map((l) => `\`${l}\``).join(', ');
  const sections = [
    '# Configuration',
    '<!-- Generated from apps/server/src/config/server-variables.ts and libs/common/src/config/client-variables.ts; run `npm run docs:config` after changing them. -->',
    [
      'The server reads its configuration from environment variables, parsed once at start-up into one typed configuration; nothing else reads the environment.',
      'A bad value stops start-up with a message naming the variable; every bad variable is reported in the same message.',
      'An empty value counts as unset. Secret values (`ADMIN_KEY`, `SERVER_SECRET` and the content of `SERVER_SECRET_FILE`, `DB_INITDB_ROOT_PASSWORD`) are never repeated in error messages.',
    ].join(' '),
    [
      'With `STAGING=0` (production) the server also refuses to start when:',
      '',
      '- `ADMIN_KEY` is the built-in default (also when unset) or shorter than 24 characters;',
      '- `CERTIFICATE_PATH` does not hold both `cert.pem` and `key.pem`;',
      '- `OAUTH_ISSUER` is unset;',
      '- `OAUTH_AUDIENCE` is unset;',
      '- `DB_URI` is unset;',
      '- neither `SERVER_SECRET` nor `SERVER_SECRET_FILE` is set, or the secret is shorter than 32 characters or equal to `ADMIN_KEY`.',
    ].join('\n'),
    `\`RUST_LOG\` accepts exactly the five levels ${levels} (case-insensitive); module filters such as \`info,svc=debug\` are refused.`,
    '## Server variables',
    ...GROUPS.map((group) => renderGroup(group)),
    renderFiles(),
    '## Client variables',
    'Read by `svc` and `svc runtime`. They take precedence over the credentials file, which takes precedence over interactive prompts.',
    renderTable(Object.values(CLIENT_VARIABLES)),
    renderCredentialsFile(),
  ];
  return sections.join('\n\n') + '\n';
}

function renderGroup(group: Group): string {
  const keys = (Object.keys(SERVER_VARIABLES) as (keyof typeof SERVER_VARIABLES)[]).filter((k) => GROUP_OF[k] === group);
  const specs: VariableSpec<unknown>[] = keys.map((k) => SERVER_VARIABLES[k]);
  return `### ${group}\n\n${renderTable(specs)}`;
}

function renderTable(specs: readonly VariableSpec<unknown>[]): string {
  const rows = specs.map((s) => `| \`${s.name}\` | ${cell(s.type)} | ${cell(s.defaultText)} | ${cell(s.description)} |`);
  return ['| Name | Type | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function renderFiles(): string {
  return [
    '## Files the server reads',
    '',
    '| Path | When | Content |',
    '|---|---|---|',
    '| `CERTIFICATE_PATH/cert.pem` | when present (required with `STAGING=0`) | TLS certificate chain, PEM |',
    '| `CERTIFICATE_PATH/key.pem` | when present (required with `STAGING=0`) | TLS private key, PEM |',
    '| `DATA_DIR/svc.sqlite` | `DB_URI` unset (staging only) | embedded store; created with mode 0600 |',
    '| the file `SERVER_SECRET_FILE` names | when set | the server secret (surrounding whitespace ignored) |',
    '| `DATA_DIR/server-secret` | neither `SERVER_SECRET` nor `SERVER_SECRET_FILE` set (staging only) | the server secret: 32 random bytes, base64url; created on first start with mode 0600 and reused after restarts |',
    '| `DATA_DIR/dev-idp/jwks.json` | `OAUTH_ISSUER` unset (staging only) | private signing keys of the development identity provider; created on first start with mode 0600 |',
    '',
    'Without `cert.pem` and `key.pem` a staging server serves plain HTTP and logs a warning.',
  ].join('\n');
}

function renderCredentialsFile(): string {
  return [
    '## Client credentials file',
    '',
    '`svc login` and `svc runtime` keep credentials in `~/.config/svc/credentials.json`: pretty-printed JSON, mode 0600.',
    '',
    '| Key | Content |',
    '|---|---|',
    '| `credentials.OAuth2Token` | the user\'s token record: `access_token`, optional `refresh_token`, `expires_at` (Unix timestamp) |',
    '| `device_credentials.api_key` | the device API key issued at approval |',
    '',
    '`svc logout` and `svc runtime logout` remove the respective entries; `SVC_API_KEY` overrides the stored device key.',
  ].join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}
