import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SERVER_URL, loadCliSettings, parseServerUrl } from './cli-settings';

describe('parseServerUrl', () => {
  it.each([
    ['https://svc.example.com', 'https://svc.example.com/'],
    ['svc.example.com:8443', 'https://svc.example.com:8443/'],
    ['http://localhost:8085', 'http://localhost:8085/'],
    ['http://127.0.0.1:8085/some/path?x=1#y', 'http://127.0.0.1:8085/'],
    ['http://[::1]:8085', 'http://[::1]:8085/'],
  ])('%s → %s', (text, href) => {
    expect(parseServerUrl(text, 'SVC_SERVER_URL').href).toBe(href);
  });

  it.each([
    ['http://svc.example.com', /plain HTTP; tokens travel only over HTTPS/],
    ['http://10.0.0.5:8085', /plain HTTP/],
    ['ftp://svc.example.com', /ftp: is not supported/],
    ['https://user:pw@svc.example.com', /no credentials in the server URL/],
    ['https://exa mple.com', /is not a URL/],
  ])('refuses %s', (text, message) => {
    expect(() => parseServerUrl(text, 'SVC_SERVER_URL')).toThrow(message);
  });
});

describe('loadCliSettings precedence', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'svc-settings-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const saveConfig = (url: string) => {
    mkdirSync(join(home, '.config', 'svc'), { recursive: true });
    writeFileSync(join(home, '.config', 'svc', 'config.json'), JSON.stringify({ server_url: url }));
  };

  it('defaults to the local development server', () => {
    expect(loadCliSettings({ HOME: home }).serverUrl.href).toBe(`${DEFAULT_SERVER_URL}/`);
  });

  it('flag > SVC_SERVER_URL > config.json > default', () => {
    saveConfig('https://saved.example.com');
    expect(loadCliSettings({ HOME: home }).serverUrl.host).toBe('saved.example.com');
    expect(loadCliSettings({ HOME: home, SVC_SERVER_URL: 'https://env.example.com' }).serverUrl.host).toBe('env.example.com');
    expect(loadCliSettings({ HOME: home, SVC_SERVER_URL: 'https://env.example.com' }, { server: 'https://flag.example.com' }).serverUrl.host).toBe('flag.example.com');
  });

  it('reads the identity-provider overrides and a server pin', () => {
    const pin = 'AB:'.repeat(31) + 'AB';
    const settings = loadCliSettings({ HOME: home, SVC_AUTH_DOMAIN: 'idp.example.com', SVC_AUTH_CLIENT_ID: 'cli', SVC_AUTH_AUDIENCE: 'api', SVC_SERVER_FINGERPRINT: `sha256:${pin}` });
    expect(settings.auth).toEqual({ domain: 'idp.example.com', clientId: 'cli', audience: 'api' });
    expect(settings.trust.pin).toBe('ab'.repeat(32));
    expect(() => loadCliSettings({ HOME: home, SVC_SERVER_FINGERPRINT: 'nope' })).toThrow(/64 hex digits/);
    expect(() => loadCliSettings({ HOME: home, SVC_CA_FILE: join(home, 'missing.pem') })).toThrow(/SVC_CA_FILE: cannot read/);
  });

  it('SVC_CONFIG_DIR moves the credentials file', () => {
    expect(loadCliSettings({ HOME: home, SVC_CONFIG_DIR: join(home, 'elsewhere') }).credentialsPath).toBe(join(home, 'elsewhere', 'credentials.json'));
  });
});
