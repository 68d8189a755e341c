import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_VARIABLES } from '@svc/common';
import { renderConfigurationDoc } from './config-doc';
import { SERVER_VARIABLES } from './server-variables';

// Copied from the specification's tables: the repository must not depend on where the spec lives.
const SPEC_SERVER_VARIABLES = [
  'DB_URI',
  'DB_NAME',
  'DB_INITDB_ROOT_USERNAME',
  'DB_INITDB_ROOT_PASSWORD',
  'OAUTH_ISSUER',
  'OAUTH_AUDIENCE',
  'PUBLIC_ADDRESS',
  'UNIFIED_PORT',
  'REST_PORT',
  'ADMIN_KEY',
  'ADMIN_EMAILS',
  'USERS_NEED_APPROVAL',
  'USER_AUTO_ACCEPT_DOMAINS',
  'ALLOW_CROSS_ORG_DEVICE_SHARING',
  'AUDIT_RETENTION_DAYS',
  'REPORT_RETENTION_DAYS',
  'STAGING',
  'RUST_LOG',
  'CERTIFICATE_PATH',
];
const SPEC_CLIENT_VARIABLES = ['SVC_SERVER_URL', 'SVC_AUTH_DOMAIN', 'SVC_AUTH_CLIENT_ID', 'SVC_AUTH_AUDIENCE', 'SVC_API_KEY', 'OWNER_REFERENCE'];

const DOC_FILE = join(__dirname, '..', '..', '..', '..', 'docs', 'configuration.md');
const serverNames = Object.values(SERVER_VARIABLES).map((s) => s.name);
const clientNames = Object.values(CLIENT_VARIABLES).map((s) => s.name);

describe('docs/configuration.md', () => {
  const doc = renderConfigurationDoc();

  it('is up to date with the variable tables', () => {
    let onDisk = '';
    try {
      onDisk = readFileSync(DOC_FILE, 'utf8');
    } catch {
      // A missing file gets the same hint as a stale one.
    }
    if (onDisk !== doc) throw new Error(`${DOC_FILE} is out of date: run \`npm run build && npm run docs:config\` and commit the result`);
  });

  it('lists every spec variable', () => {
    expect(SPEC_SERVER_VARIABLES).toHaveLength(19);
    expect(SPEC_CLIENT_VARIABLES).toHaveLength(6);
  });

  it.each(SPEC_SERVER_VARIABLES)('server variable %s is parsed and documented', (name) => {
    expect(serverNames).toContain(name);
    expect(doc).toContain(`| \`${name}\` |`);
  });

  it.each(SPEC_CLIENT_VARIABLES)('client variable %s is parsed and documented', (name) => {
    expect(clientNames).toContain(name);
    expect(doc).toContain(`| \`${name}\` |`);
  });

  it('documents every variable exactly once, including those beyond the spec', () => {
    for (const name of [...serverNames, ...clientNames]) {
      expect(doc.split(`| \`${name}\` |`)).toHaveLength(2);
    }
  });

  it.each([
    ['the STAGING=0 refusals', /shorter than 24 characters[\s\S]*cert\.pem[\s\S]*OAUTH_ISSUER[\s\S]*OAUTH_AUDIENCE[\s\S]*DB_URI/],
    ['the five log levels', /`RUST_LOG` accepts exactly the five levels `error`, `warn`, `info`, `debug`, `trace`/],
    ['the TLS files', /`CERTIFICATE_PATH\/cert\.pem`[\s\S]*`CERTIFICATE_PATH\/key\.pem`/],
    ['the embedded store', /`DATA_DIR\/svc\.sqlite`/],
    ['the development provider keys', /`DATA_DIR\/dev-idp\/jwks\.json`/],
    ['the credentials file', /`~\/\.config\/svc\/credentials\.json`[^\n]*0600/],
    ['the credentials keys', /`credentials\.OAuth2Token`[\s\S]*`device_credentials\.api_key`/],
  ])('mentions %s', (_what, pattern) => {
    expect(doc).toMatch(pattern);
  });

  it.each([...serverNames, ...clientNames])('the row of %s has exactly four cells', (name) => {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`))!;
    // An unescaped pipe inside a description would silently add a column.
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(6);
  });
});
