import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, parseVariables, v } from '@svc/common';
import { loadServerConfig, ServerConfig } from './server-config';
import { LOG_LEVELS } from '../logging/log-level';
import { DEFAULT_ADMIN_KEY, SERVER_VARIABLES } from './server-variables';

type Env = Record<string, string | undefined>;

interface Row {
  name: string;
  /** Where the parsed value lands in the typed config. */
  read: (c: ServerConfig) => unknown;
  unset: unknown;
  good: [string, unknown][];
  /** Empty for free-form text, where every value is acceptable. */
  bad: string[];
  /** Other variables the value needs to show up (e.g. DB_NAME only matters with DB_URI). */
  env?: Env;
}

const MONGO: Env = { DB_URI: 'mongodb://mongo:27017' };
const mongo = (c: ServerConfig) => (c.storage.kind === 'mongo' ? c.storage : undefined);
const DATA = resolve('./data');
const PORT_BAD = ['abc', '70000', '-1', '65536', '80.5'];
const INT_BAD = ['0', 'x', '1.5', '-3'];
const BOOL_GOOD: [string, unknown][] = [['true', true], ['1', true], ['YES', true], ['on', true], ['false', false], ['0', false], ['Off', false]];

/**
 * Without SERVER_SECRET or SERVER_SECRET_FILE a staging start writes DATA_DIR/server-secret, so
 * the tests hand one in unless they are about it, and keep such files in a scratch directory.
 */
const TEST_SECRET = 'a-server-secret-for-the-config-spec';
function load(env: Env): ServerConfig {
  const aboutTheSecret = 'SERVER_SECRET' in env || 'SERVER_SECRET_FILE' in env;
  return loadServerConfig(aboutTheSecret ? env : { SERVER_SECRET: TEST_SECRET, ...env });
}
const SCRATCH = mkdtempSync(join(tmpdir(), 'svc-config-secret-'));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));
const KEPT_DIR = join(SCRATCH, 'kept');
const SECRET_FILE = join(SCRATCH, 'secret.txt');
mkdirSync(KEPT_DIR);
writeFileSync(join(KEPT_DIR, 'server-secret'), 'kept-from-an-earlier-start\n', { mode: 0o600 });
writeFileSync(SECRET_FILE, '  from-a-file\n');
const secretOf = (c: ServerConfig) => c.serverSecret.toString('utf8');

const REPLICAS: Env = { NATS_URL: 'nats://nats:4222' };

const ROWS: Row[] = [
  {
    name: 'DB_URI',
    read: (c) => c.storage,
    unset: { kind: 'embedded', file: join(DATA, 'svc.sqlite') },
    good: [
      ['mongodb://mongo:27017', { kind: 'mongo', uri: 'mongodb://mongo:27017', dbName: 'svc-server', user: undefined, password: undefined }],
      ['mongodb+srv://db.example.com/x', { kind: 'mongo', uri: 'mongodb+srv://db.example.com/x', dbName: 'svc-server', user: undefined, password: undefined }],
    ],
    bad: ['not a url', 'ftp://x', 'postgres://x'],
  },
  { name: 'DB_NAME', env: MONGO, read: (c) => mongo(c)?.dbName, unset: 'svc-server', good: [['fleet', 'fleet']], bad: ['my.db', 'a/b', 'x'.repeat(64)] },
  { name: 'DB_INITDB_ROOT_USERNAME', env: MONGO, read: (c) => mongo(c)?.user, unset: undefined, good: [['root', 'root']], bad: [] },
  { name: 'DB_INITDB_ROOT_PASSWORD', env: MONGO, read: (c) => mongo(c)?.password, unset: undefined, good: [['p@ss word', 'p@ss word']], bad: [] },
  {
    name: 'OAUTH_ISSUER',
    read: (c) => c.oauth.issuer,
    unset: 'http://localhost:8086/',
    good: [['https://auth.example.com/', 'https://auth.example.com/'], ['http://idp.internal:8080/realms/x', 'http://idp.internal:8080/realms/x']],
    bad: ['not a url', 'ftp://x'],
  },
  { name: 'OAUTH_AUDIENCE', read: (c) => c.oauth.audience, unset: 'http://localhost:8086', good: [['https://api.example.com', 'https://api.example.com']], bad: [] },
  { name: 'PUBLIC_ADDRESS', read: (c) => c.publicAddress, unset: 'localhost', good: [['svc.example.com', 'svc.example.com'], ['10.0.0.5', '10.0.0.5']], bad: ['https://svc.example.com', 'svc.example.com:443', 'a b'] },
  { name: 'UNIFIED_PORT', read: (c) => c.unifiedPort, unset: 8084, good: [['443', 443], ['0', 0], ['65535', 65535]], bad: PORT_BAD },
  { name: 'REST_PORT', read: (c) => c.restPort, unset: 8085, good: [['8080', 8080]], bad: PORT_BAD },
  { name: 'LISTEN_HOST', env: { ADMIN_KEY: 'a-key-of-our-own' }, read: (c) => c.listenHost, unset: '0.0.0.0', good: [['127.0.0.1', '127.0.0.1'], ['::1', '::1'], ['localhost', 'localhost']], bad: ['0.0.0.0:8085', 'http://x', '///'] },
  { name: 'TUNNEL_HANDSHAKE_TIMEOUT_MS', read: (c) => c.connections.handshakeTimeoutMs, unset: 10000, good: [['100', 100], ['300000', 300000]], bad: ['99', '300001', 'soon'] },
  { name: 'TUNNEL_CLIENT_IDLE_TIMEOUT_MS', read: (c) => c.connections.clientIdleTimeoutMs, unset: 60000, good: [['1500', 1500]], bad: ['0', '3600001'] },
  { name: 'TUNNEL_MAX_CONNECTIONS_PER_ADDRESS', read: (c) => c.connections.caps.perAddress, unset: 256, good: [['1', 1], ['5000', 5000]], bad: ['0', '-1'] },
  { name: 'TUNNEL_MAX_CONNECTIONS', read: (c) => c.connections.caps.total, unset: 10000, good: [['20000', 20000]], bad: ['0', 'many'] },
  { name: 'REST_MAX_CONNECTIONS_PER_ADDRESS', read: (c) => c.rest.caps.perAddress, unset: 256, good: [['1', 1], ['5000', 5000]], bad: ['0', '-1'] },
  { name: 'REST_MAX_CONNECTIONS', read: (c) => c.rest.caps.total, unset: 4096, good: [['20000', 20000]], bad: ['0', 'many'] },
  { name: 'REST_BODY_TIMEOUT_MS', read: (c) => c.rest.bodyTimeoutMs, unset: 30000, good: [['100', 100], ['600000', 600000]], bad: ['99', '600001', 'soon'] },
  { name: 'TUNNEL_QUIC', read: (c) => c.quic, unset: true, good: [['false', false], ['1', true]], bad: ['maybe'] },
  // Staging accepts any admin key; the production rules are tested below.
  { name: 'ADMIN_KEY', read: (c) => c.adminKey, unset: DEFAULT_ADMIN_KEY, good: [['short', 'short']], bad: [] },
  { name: 'SERVER_SECRET', env: { DATA_DIR: KEPT_DIR }, read: secretOf, unset: 'kept-from-an-earlier-start', good: [['any value in staging', 'any value in staging']], bad: [] },
  { name: 'SERVER_SECRET_FILE', env: { DATA_DIR: KEPT_DIR }, read: secretOf, unset: 'kept-from-an-earlier-start', good: [[SECRET_FILE, 'from-a-file']], bad: [] },
  {
    name: 'ADMIN_EMAILS',
    read: (c) => c.adminEmails,
    unset: [],
    good: [['a@example.com, B@Example.org', ['a@example.com', 'b@example.org']]],
    // U+212A KELVIN SIGN lower-cases to an ASCII k: it must be refused, not folded into kate@.
    bad: ['not-an-email', 'a@example.com,,b@example.com', '\u212Aate@example.com'],
  },
  { name: 'USERS_NEED_APPROVAL', read: (c) => c.usersNeedApproval, unset: false, good: BOOL_GOOD, bad: ['maybe', '2'] },
  {
    name: 'USER_AUTO_ACCEPT_DOMAINS',
    read: (c) => c.userAutoAcceptDomains,
    unset: [],
    good: [['example.com,Corp.Example.org', ['example.com', 'corp.example.org']]],
    bad: ['a b', 'example.com;other.org', 'localhost'],
  },
  {
    name: 'WEB_ORIGINS',
    read: (c) => c.webOrigins,
    unset: [],
    good: [['https://svc.example.com, HTTP://127.0.0.1:8085', ['https://svc.example.com', 'http://127.0.0.1:8085']]],
    bad: ['svc.example.com', 'https://svc.example.com/', 'https://svc.example.com:443', 'ftp://svc.example.com', 'https://a.example,,https://b.example'],
  },
  { name: 'ALLOW_CROSS_ORG_DEVICE_SHARING', read: (c) => c.allowCrossOrgDeviceSharing, unset: false, good: BOOL_GOOD, bad: ['maybe'] },
  { name: 'AUDIT_RETENTION_DAYS', read: (c) => c.auditRetentionDays, unset: 30, good: [['1', 1], ['365', 365]], bad: [...INT_BAD, '36501'] },
  { name: 'REPORT_RETENTION_DAYS', read: (c) => c.reportRetentionDays, unset: 7, good: [['14', 14]], bad: INT_BAD },
  { name: 'FILES_STALL_TIMEOUT_SECS', read: (c) => c.filesStallTimeoutMs, unset: 120_000, good: [['1', 1000], ['600', 600_000]], bad: [...INT_BAD, '0', '86401'] },
  { name: 'EVENTS_WINDOW', read: (c) => c.events.windowSize, unset: 1000, good: [['1', 1], ['100000', 100_000]], bad: [...INT_BAD, '0', '100001'] },
  { name: 'EVENTS_WINDOW_SECS', read: (c) => c.events.windowSecs, unset: 600, good: [['60', 60]], bad: [...INT_BAD, '0', '86401'] },
  { name: 'EVENTS_MAX_STREAMS_PER_USER', read: (c) => c.events.maxStreamsPerUser, unset: 8, good: [['1', 1]], bad: [...INT_BAD, '0', '1001'] },
  { name: 'STAGING', read: (c) => c.staging, unset: true, good: [['1', true]], bad: ['2', 'x', 'true'] },
  {
    name: 'RUST_LOG',
    read: (c) => c.logLevel,
    unset: 'info',
    good: LOG_LEVELS.flatMap((l): [string, unknown][] => [[l, l], [l.toUpperCase(), l], [` ${l[0].toUpperCase()}${l.slice(1)} `, l]]),
    bad: ['verbose', 'off', 'info,svc=debug'],
  },
  { name: 'CERTIFICATE_PATH', read: (c) => c.tls, unset: null, good: [['/nonexistent/certs', null]], bad: [] },
  { name: 'DATA_DIR', read: (c) => c.dataDir, unset: DATA, good: [['/srv/svc', '/srv/svc'], ['state', resolve('state')]], bad: [] },
  { name: 'OAUTH_CLIENT_ID', read: (c) => c.oauth.clientId, unset: 'svc-cli', good: [['acme-cli', 'acme-cli']], bad: ['two words', 'tab\there'] },
  { name: 'OAUTH_WEB_CLIENT_ID', read: (c) => c.oauth.webClientId, unset: 'svc-web', good: [['acme-dashboard', 'acme-dashboard']], bad: ['two words', 'tab\there'] },
  { name: 'WEB_DIR', read: (c) => c.webDir, unset: resolve(__dirname, '../../../web/dist'), good: [['/srv/web', '/srv/web'], ['web', resolve('web')]], bad: [] },
  { name: 'DEV_IDP_PORT', read: (c) => c.devIdentityProvider?.port, unset: 8086, good: [['9000', 9000]], bad: PORT_BAD },
  { name: 'REGISTRATION_RATE_LIMIT', read: (c) => c.registrationRateLimit, unset: 30, good: [['100000', 100000]], bad: [...INT_BAD, '100001'] },
  { name: 'MAX_PENDING_REGISTRATIONS', read: (c) => c.maxPendingPerScope, unset: 100, good: [['5', 5]], bad: INT_BAD },
  { name: 'MAX_PENDING_REGISTRATIONS_PER_SOURCE', read: (c) => c.maxPendingPerSource, unset: 10, good: [['3', 3]], bad: INT_BAD },
  { name: 'NATS_URL', read: (c) => c.replicas?.natsUrl ?? null, unset: null, good: [['nats://nats:4222', 'nats://nats:4222'], ['tls://u:p@nats.example.com:4222', 'tls://u:p@nats.example.com:4222']], bad: ['localhost:4222', 'http://nats:4222', 'not a url'] },
  { name: 'PEER_PORT', env: REPLICAS, read: (c) => c.replicas?.peerPort, unset: 8087, good: [['9000', 9000]], bad: PORT_BAD },
  { name: 'DRAIN_SECS', env: REPLICAS, read: (c) => c.replicas?.drainMs, unset: 5000, good: [['0', 0], ['30', 30000]], bad: ['x', '1.5', '-3', '301'] },
  {
    name: 'PEER_ADDRESS',
    env: REPLICAS,
    read: (c) => c.replicas?.peerAddress,
    unset: `${hostname()}:8087`,
    good: [['replica-a.internal', 'replica-a.internal:8087'], ['10.0.0.7', '10.0.0.7:8087'], ['fd00::7', '[fd00::7]:8087']],
    bad: ['replica-a:8087', 'http://x'],
  },
  // Unset: a fresh UUID at each start.
  { name: 'REPLICA_ID', read: (c) => (/^[0-9a-f-]{36}$/.test(c.replicaId) ? 'a generated uuid' : c.replicaId), unset: 'a generated uuid', good: [['replica-a', 'replica-a']], bad: ['two words', 'x'.repeat(65)] },
];

function secretFile(dir: string, content: string, name = `secret-${Math.random().toString(36).slice(2)}`): string {
  const file = join(dir, name);
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

function configError(env: Env): ConfigError {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadServerConfig', () => {
  it('has a row for every server variable', () => {
    expect(ROWS.map((r) => r.name).sort()).toEqual(Object.values(SERVER_VARIABLES).map((s) => s.name).sort());
  });

  describe.each(ROWS)('$name', (row) => {
    it.each([['unset', undefined], ['empty', '']])('%s → default', (_what, raw) => {
      expect(row.read(load({ ...row.env, [row.name]: raw }))).toEqual(row.unset);
    });

    it.each(row.good)('%j is accepted', (raw, parsed) => {
      expect(row.read(load({ ...row.env, [row.name]: raw }))).toEqual(parsed);
    });

    if (row.bad.length > 0) {
      it.each(row.bad)('%j is refused, naming the variable', (raw) => {
        const err = configError({ ...row.env, [row.name]: raw });
        expect(err.problems).toHaveLength(1);
        expect(err.problems[0]).toMatch(new RegExp(`^${row.name}: `));
        expect(err.message).toContain(`(got "${raw}")`);
      });
    }
  });

  it('binds loopback only while the default admin key is in use and LISTEN_HOST is unset', () => {
    expect(load({})).toMatchObject({ listenHost: '127.0.0.1', loopbackForDefaultKey: true });
    expect(load({ ADMIN_KEY: DEFAULT_ADMIN_KEY, LISTEN_HOST: '0.0.0.0' })).toMatchObject({ listenHost: '0.0.0.0', loopbackForDefaultKey: false });
    expect(load({ ADMIN_KEY: 'a-key-of-our-own' })).toMatchObject({ listenHost: '0.0.0.0', loopbackForDefaultKey: false });
  });

  it('reports every bad variable in one error', () => {
    const err = configError({ UNIFIED_PORT: 'abc', RUST_LOG: 'verbose', STAGING: '2', ADMIN_EMAILS: 'x', DB_URI: 'postgres://x' });
    expect(err.problems.map((p) => p.split(':')[0]).sort()).toEqual(['ADMIN_EMAILS', 'DB_URI', 'RUST_LOG', 'STAGING', 'UNIFIED_PORT']);
    for (const name of ['ADMIN_EMAILS', 'DB_URI', 'RUST_LOG', 'STAGING', 'UNIFIED_PORT']) expect(err.message).toContain(name);
  });

  it('redacts values of secret-named variables and shortens long values', () => {
    const specs = { key: v.port('SOME_API_KEY', 'test', 1), token: v.port('A_TOKEN', 'test', 1), long: v.port('LONG', 'test', 1) };
    const err = (() => {
      try {
        parseVariables(specs, { SOME_API_KEY: 'sekrit-1', A_TOKEN: 'sekrit-2', LONG: 'y'.repeat(200) });
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(err.message).not.toMatch(/sekrit/);
    expect(err.message).toContain('SOME_API_KEY: must be a port number between 0 and 65535 (got "<redacted>")');
    expect(err.message).not.toContain('y'.repeat(81));
  });

  describe('production (STAGING=0)', () => {
    let root: string;
    let certs: string;
    let certOnly: string;
    let empty: string;
    let prod: Env;

    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'svc-config-'));
      certs = mkdtempSync(join(root, 'full-'));
      certOnly = mkdtempSync(join(root, 'half-'));
      empty = mkdtempSync(join(root, 'none-'));
      writeFileSync(join(certs, 'cert.pem'), 'cert');
      writeFileSync(join(certs, 'key.pem'), 'key');
      writeFileSync(join(certOnly, 'cert.pem'), 'cert');
      prod = {
        STAGING: '0',
        ADMIN_KEY: 'k'.repeat(32),
        CERTIFICATE_PATH: certs,
        OAUTH_ISSUER: 'https://auth.example.com/',
        OAUTH_AUDIENCE: 'https://api.example.com',
        DB_URI: 'mongodb://mongo:27017',
        SERVER_SECRET: 's'.repeat(32),
      };
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('accepts a complete production configuration', () => {
      const config = load(prod);
      expect(config).toMatchObject({
        staging: false,
        tls: { certFile: join(certs, 'cert.pem'), keyFile: join(certs, 'key.pem') },
        oauth: { issuer: 'https://auth.example.com/', audience: 'https://api.example.com', clientId: 'svc-cli' },
        devIdentityProvider: null,
        storage: { kind: 'mongo', uri: 'mongodb://mongo:27017' },
      });
    });

    it('accepts an admin key of exactly 24 characters', () => {
      expect(load({ ...prod, ADMIN_KEY: 'k'.repeat(24) }).adminKey).toHaveLength(24);
    });

    it.each<[string, () => Env, string]>([
      ['the default admin key (unset)', () => ({ ADMIN_KEY: undefined }), 'ADMIN_KEY'],
      ['the default admin key (explicit)', () => ({ ADMIN_KEY: DEFAULT_ADMIN_KEY }), 'ADMIN_KEY'],
      ['an admin key of 23 characters', () => ({ ADMIN_KEY: 'k'.repeat(23) }), 'ADMIN_KEY'],
      ['a certificate directory without files', () => ({ CERTIFICATE_PATH: empty }), 'CERTIFICATE_PATH'],
      ['a certificate directory without key.pem', () => ({ CERTIFICATE_PATH: certOnly }), 'CERTIFICATE_PATH'],
      ['a missing OAUTH_ISSUER', () => ({ OAUTH_ISSUER: undefined }), 'OAUTH_ISSUER'],
      ['a missing OAUTH_AUDIENCE', () => ({ OAUTH_AUDIENCE: '' }), 'OAUTH_AUDIENCE'],
      ['a missing DB_URI', () => ({ DB_URI: undefined }), 'DB_URI'],
    ])('refuses %s', (_what, override, name) => {
      const err = configError({ ...prod, ...override() });
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(new RegExp(`^${name}: .*production`));
    });

    it('lists every refusal at once', () => {
      expect(configError({ STAGING: '0', SERVER_SECRET: undefined }).problems.map((p) => p.split(':')[0])).toEqual([
        'ADMIN_KEY',
        'CERTIFICATE_PATH',
        'OAUTH_ISSUER',
        'OAUTH_AUDIENCE',
        'DB_URI',
        'SERVER_SECRET',
      ]);
    });

    it('never repeats secrets in error messages', () => {
      const secrets = { ADMIN_KEY: 'short-secret', DB_INITDB_ROOT_PASSWORD: 'hunter2-secret', SERVER_SECRET: 'weak-server-secret' };
      const refused = configError({ ...prod, ...secrets, CERTIFICATE_PATH: empty });
      const unparsable = configError({ ...secrets, REST_PORT: 'abc', STAGING: '7' });
      writeFileSync(join(root, 'weak-secret'), 'weak-file-secret\n');
      const fromFile = configError({ ...prod, SERVER_SECRET: undefined, SERVER_SECRET_FILE: join(root, 'weak-secret') });
      for (const err of [refused, unparsable, fromFile]) {
        for (const secret of ['short-secret', 'hunter2-secret', 'weak-server-secret', 'weak-file-secret']) expect(err.message).not.toContain(secret);
      }
    });

    it.each<[string, (dir: string) => Env, RegExp]>([
      ['no server secret', () => ({ SERVER_SECRET: undefined }), /^SERVER_SECRET: required in production/],
      ['a server secret of 31 characters', () => ({ SERVER_SECRET: 's'.repeat(31) }), /^SERVER_SECRET: .*at least 32 characters in production/],
      ['a server secret equal to ADMIN_KEY', () => ({ SERVER_SECRET: 'k'.repeat(32) }), /^SERVER_SECRET: .*must differ from ADMIN_KEY/],
      ['a secret file of 31 characters', (dir) => ({ SERVER_SECRET: undefined, SERVER_SECRET_FILE: secretFile(dir, 's'.repeat(31)) }), /^SERVER_SECRET_FILE: .*at least 32/],
      ['a missing secret file', (dir) => ({ SERVER_SECRET: undefined, SERVER_SECRET_FILE: join(dir, 'nope') }), /^SERVER_SECRET_FILE: cannot read .*\(ENOENT\)/],
      ['an empty secret file', (dir) => ({ SERVER_SECRET: undefined, SERVER_SECRET_FILE: secretFile(dir, ' \n') }), /^SERVER_SECRET_FILE: .* is empty/],
      ['both SERVER_SECRET and SERVER_SECRET_FILE', (dir) => ({ SERVER_SECRET_FILE: secretFile(dir, 'f'.repeat(32)) }), /^SERVER_SECRET_FILE: set either/],
    ])('refuses %s and generates nothing', (_what, override, problem) => {
      const dataDir = mkdtempSync(join(root, 'data-'));
      const err = configError({ ...prod, DATA_DIR: dataDir, ...override(dataDir) });
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(problem);
      expect(existsSync(join(dataDir, 'server-secret'))).toBe(false);
    });

    it('accepts a server secret from SERVER_SECRET or from SERVER_SECRET_FILE, and never generates one', () => {
      const dataDir = mkdtempSync(join(root, 'data-'));
      expect(load({ ...prod, DATA_DIR: dataDir }).serverSecret).toEqual(Buffer.from('s'.repeat(32)));
      const file = secretFile(dataDir, `${'f'.repeat(40)}\n`);
      expect(load({ ...prod, DATA_DIR: dataDir, SERVER_SECRET: undefined, SERVER_SECRET_FILE: file }).serverSecret).toEqual(Buffer.from('f'.repeat(40)));
      expect(existsSync(join(dataDir, 'server-secret'))).toBe(false);
    });
  });

  describe('the staging server secret', () => {
    const stagingSecret = (dataDir: string) => loadServerConfig({ DATA_DIR: dataDir }).serverSecret;

    it('is 32 random bytes generated into DATA_DIR/server-secret (mode 0600, nothing else left behind) and reused', () => {
      const dataDir = join(mkdtempSync(join(SCRATCH, 'staging-')), 'not', 'yet', 'there');
      const first = stagingSecret(dataDir);
      const file = join(dataDir, 'server-secret');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dataDir)).toEqual(['server-secret']);
      expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url')).toHaveLength(32);
      expect(first).toEqual(Buffer.from(readFileSync(file, 'utf8').trim()));
      expect(stagingSecret(dataDir)).toEqual(first);
      expect(stagingSecret(mkdtempSync(join(SCRATCH, 'staging-')))).not.toEqual(first);
    });

    it('tightens the permissions of an existing file', () => {
      const dataDir = mkdtempSync(join(SCRATCH, 'staging-'));
      secretFile(dataDir, 'loosened\n', 'server-secret');
      chmodSync(join(dataDir, 'server-secret'), 0o644);
      expect(stagingSecret(dataDir)).toEqual(Buffer.from('loosened'));
      expect(statSync(join(dataDir, 'server-secret')).mode & 0o777).toBe(0o600);
    });

    it('refuses an empty file instead of replacing it (keys sealed with the old secret would be lost silently)', () => {
      const dataDir = mkdtempSync(join(SCRATCH, 'staging-'));
      secretFile(dataDir, '', 'server-secret');
      expect(() => stagingSecret(dataDir)).toThrow(/DATA_DIR: .*server-secret is empty; delete it/);
    });

    it('prefers SERVER_SECRET or SERVER_SECRET_FILE and then writes no file', () => {
      const dataDir = mkdtempSync(join(SCRATCH, 'staging-'));
      expect(loadServerConfig({ DATA_DIR: dataDir, SERVER_SECRET: 'configured' }).serverSecret).toEqual(Buffer.from('configured'));
      expect(loadServerConfig({ DATA_DIR: dataDir, SERVER_SECRET_FILE: SECRET_FILE }).serverSecret).toEqual(Buffer.from('from-a-file'));
      expect(readdirSync(dataDir)).toEqual([]);
    });
  });

  describe('staging defaults', () => {
    it.each([
      [{}, 8086],
      [{ DEV_IDP_PORT: '9123' }, 9123],
    ])('without OAUTH_ISSUER, %j starts the development provider', (env, port) => {
      const config = load(env);
      expect(config.devIdentityProvider).toEqual({ port, keysFile: join(DATA, 'dev-idp', 'jwks.json') });
      expect(config.oauth).toEqual({ issuer: `http://localhost:${port}/`, audience: `http://localhost:${port}`, clientId: 'svc-cli', webClientId: 'svc-web' });
    });

    it('with OAUTH_ISSUER, uses it and starts no provider', () => {
      const config = load({ OAUTH_ISSUER: 'https://auth.example.com/', OAUTH_AUDIENCE: 'svc-api' });
      expect(config.devIdentityProvider).toBeNull();
      expect(config.oauth).toEqual({ issuer: 'https://auth.example.com/', audience: 'svc-api', clientId: 'svc-cli', webClientId: 'svc-web' });
    });

    it('DB_URI selects MongoDB with its name and credentials', () => {
      const env = { DB_URI: 'mongodb://mongo:27017', DB_NAME: 'fleet', DB_INITDB_ROOT_USERNAME: 'root', DB_INITDB_ROOT_PASSWORD: 'pw' };
      expect(load(env).storage).toEqual({ kind: 'mongo', uri: 'mongodb://mongo:27017', dbName: 'fleet', user: 'root', password: 'pw' });
    });

    it('without DB_URI, uses the embedded file under DATA_DIR', () => {
      expect(load({ DATA_DIR: '/srv/svc' }).storage).toEqual({ kind: 'embedded', file: '/srv/svc/svc.sqlite' });
    });
  });
});
