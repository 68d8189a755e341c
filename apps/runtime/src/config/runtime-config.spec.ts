import { ConfigError } from '@svc/common';
import { loadRuntimeConfig } from './runtime-config';
import { parseDuration, parseHostPort, parsePin } from './runtime-variables';

describe('runtime configuration', () => {
  it.each([
    ['10', 10_000],
    ['10s', 10_000],
    ['250ms', 250],
    ['0.5s', 500],
    ['60m', 3_600_000],
    ['1h', 3_600_000],
  ])('duration %s is %i ms', (raw, ms) => expect(parseDuration(raw)).toBe(ms));

  it.each(['', 'soon', '-1s', '10 minutes', '0'])('refuses the duration %p', (raw) => expect(() => parseDuration(raw)).toThrow());

  const hex = 'ab'.repeat(32);
  it.each([`sha256:${hex}`, hex, hex.toUpperCase(), `SHA256:${hex.match(/../g)!.join(':')}`])('reads the pin %s', (raw) => expect(parsePin(raw)).toBe(hex));
  it.each(['sha256:abc', 'md5:' + hex, ''])('refuses the pin %p', (raw) => expect(() => parsePin(raw)).toThrow(/sha256/));

  it.each([
    ['example.com:8084', { host: 'example.com', port: 8084 }],
    ['127.0.0.1:1', { host: '127.0.0.1', port: 1 }],
    ['[::1]:443', { host: '::1', port: 443 }],
  ])('reads the tunnel address %s', (raw, expected) => expect(parseHostPort(raw)).toEqual(expected));
  it.each(['example.com', ':8084', 'host:0', 'host:70000', '::1:443'])('refuses the tunnel address %p', (raw) => expect(() => parseHostPort(raw)).toThrow('host:port'));

  const env = { HOME: '/home/pi', SVC_SERVER_URL: 'https://svc.example.com' };

  it('has the spec defaults: poll every 10 s, give up after 60 minutes', () => {
    expect(loadRuntimeConfig({}, env)).toMatchObject({
      serverUrl: new URL('https://svc.example.com'),
      pollIntervalMs: 10_000,
      approvalTimeoutMs: 3_600_000,
      logLevel: 'info',
      reregister: false,
      credentialsPath: '/home/pi/.config/svc/credentials.json',
      configDir: '/home/pi/.config/svc',
    });
  });

  it('lets flags beat variables', () => {
    const config = loadRuntimeConfig(
      { server: 'http://127.0.0.1:8085', owner: 'org:acme', 'poll-interval': '100ms', 'log-level': 'debug' },
      { ...env, OWNER_REFERENCE: 'user:a@b.test', SVC_REGISTRATION_POLL_INTERVAL: '5s', RUST_LOG: 'warn' },
    );
    expect(config).toMatchObject({ owner: 'org:acme', pollIntervalMs: 100, logLevel: 'debug' });
    expect(config.serverUrl.href).toBe('http://127.0.0.1:8085/');
  });

  it('reads SVC_API_KEY, the pin and the CA file from the environment', () => {
    const config = loadRuntimeConfig({}, { ...env, SVC_API_KEY: 'svc_x', SVC_SERVER_FINGERPRINT: `sha256:${hex}`, SVC_CA_FILE: '/etc/svc/ca.pem', SVC_CONFIG_DIR: '/tmp/c' });
    expect(config).toMatchObject({ envApiKey: 'svc_x', pin: hex, caFile: '/etc/svc/ca.pem', credentialsPath: '/tmp/c/credentials.json' });
  });

  it('chooses the tunnel carrier: auto by default, --transport over SVC_TUNNEL_TRANSPORT', () => {
    expect(loadRuntimeConfig({}, env)).toMatchObject({ transport: 'auto', quicProbeIntervalMs: 60_000 });
    expect(loadRuntimeConfig({}, { ...env, SVC_TUNNEL_TRANSPORT: 'tcp', SVC_QUIC_PROBE_INTERVAL: '5m' })).toMatchObject({
      transport: 'tcp',
      quicProbeIntervalMs: 300_000,
    });
    expect(loadRuntimeConfig({ transport: 'QUIC', 'quic-probe-interval': '200ms' }, { ...env, SVC_TUNNEL_TRANSPORT: 'tcp' })).toMatchObject({ transport: 'quic', quicProbeIntervalMs: 200 });
    expect(() => loadRuntimeConfig({ transport: 'udp' }, env)).toThrow('--transport: must be one of auto, quic, tcp');
  });

  it('reads the near-server round trip of auto: 2 ms by default, --quic-near-rtt over SVC_QUIC_NEAR_RTT, 0 or off: never', () => {
    expect(loadRuntimeConfig({}, env).quicNearRttMs).toBe(2);
    expect(loadRuntimeConfig({}, { ...env, SVC_QUIC_NEAR_RTT: '5ms' }).quicNearRttMs).toBe(5);
    expect(loadRuntimeConfig({}, { ...env, SVC_QUIC_NEAR_RTT: 'off' }).quicNearRttMs).toBe(0);
    expect(loadRuntimeConfig({ 'quic-near-rtt': '0' }, { ...env, SVC_QUIC_NEAR_RTT: '5ms' }).quicNearRttMs).toBe(0);
    expect(() => loadRuntimeConfig({ 'quic-near-rtt': 'near' }, env)).toThrow('--quic-near-rtt: must be a duration');
  });

  it('finds the container engine socket: --docker-socket over SVC_DOCKER_SOCKET, else the usual places', () => {
    expect(loadRuntimeConfig({}, { ...env, XDG_RUNTIME_DIR: '/run/user/1000' }).dockerSockets).toEqual(['/var/run/docker.sock', '/run/user/1000/podman/podman.sock', '/run/podman/podman.sock']);
    expect(loadRuntimeConfig({}, env).dockerSockets).toEqual(['/var/run/docker.sock', '/run/podman/podman.sock']);
    expect(loadRuntimeConfig({}, { ...env, SVC_DOCKER_SOCKET: '/srv/engine.sock' }).dockerSockets).toEqual(['/srv/engine.sock']);
    expect(loadRuntimeConfig({ 'docker-socket': '/a.sock' }, { ...env, SVC_DOCKER_SOCKET: '/b.sock' }).dockerSockets).toEqual(['/a.sock']);
    expect(() => loadRuntimeConfig({ 'docker-socket': 'engine.sock' }, env)).toThrow('--docker-socket: the container engine socket must be an absolute socket path');
  });

  it('checks labelled containers for newer images every 5 minutes unless told otherwise; 0 or off turns it off', () => {
    expect(loadRuntimeConfig({}, env).imageUpdateIntervalMs).toBe(300_000);
    expect(loadRuntimeConfig({}, { ...env, SVC_IMAGE_UPDATE_INTERVAL: '1h' }).imageUpdateIntervalMs).toBe(3_600_000);
    expect(loadRuntimeConfig({ 'image-update-interval': '250ms' }, { ...env, SVC_IMAGE_UPDATE_INTERVAL: '1h' }).imageUpdateIntervalMs).toBe(250);
    for (const off of ['0', '0s', 'off', 'OFF']) expect(loadRuntimeConfig({}, { ...env, SVC_IMAGE_UPDATE_INTERVAL: off }).imageUpdateIntervalMs).toBe(0);
    expect(() => loadRuntimeConfig({ 'image-update-interval': 'hourly' }, env)).toThrow('--image-update-interval: must be a duration');
    expect(() => loadRuntimeConfig({}, { ...env, SVC_IMAGE_UPDATE_INTERVAL: 'never' })).toThrow('SVC_IMAGE_UPDATE_INTERVAL');
  });

  it('reports every problem at once, naming the flag or variable', () => {
    let error: ConfigError | undefined;
    try {
      loadRuntimeConfig({ owner: 'alice', tunnel: 'nowhere' }, { HOME: '/h', SVC_APPROVAL_TIMEOUT: 'forever' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([
      expect.stringContaining('SVC_APPROVAL_TIMEOUT'),
      'the server address is required: --server <url> or SVC_SERVER_URL',
      expect.stringContaining('--owner'),
      expect.stringContaining('--tunnel'),
    ]);
  });
});
