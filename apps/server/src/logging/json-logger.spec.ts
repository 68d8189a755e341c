import type { LogLevel } from './log-level';
import { LOG_LEVELS } from './log-level';
import { JsonLogger, redactSecrets } from './json-logger';
import { requestContext } from './request-context';

function capture(level: LogLevel) {
  const lines: string[] = [];
  const logger = new JsonLogger(level, (line) => lines.push(line), 'json');
  const entries = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, entries };
}

// Nest's method names and the RUST_LOG level each one writes at.
const METHODS: [keyof JsonLogger & ('error' | 'warn' | 'log' | 'debug' | 'verbose'), LogLevel][] = [
  ['error', 'error'],
  ['warn', 'warn'],
  ['log', 'info'],
  ['debug', 'debug'],
  ['verbose', 'trace'],
];

// For each RUST_LOG value, the levels that get through.
const FILTER: [LogLevel, LogLevel[]][] = [
  ['error', ['error']],
  ['warn', ['error', 'warn']],
  ['info', ['error', 'warn', 'info']],
  ['debug', ['error', 'warn', 'info', 'debug']],
  ['trace', ['error', 'warn', 'info', 'debug', 'trace']],
];

describe('JsonLogger', () => {
  it('covers every level', () => {
    expect(FILTER.map(([l]) => l)).toEqual([...LOG_LEVELS]);
  });

  describe.each(FILTER)('RUST_LOG=%s', (configured, passing) => {
    it.each(METHODS)('%s() writes only when its level (%s) is enabled', (method, level) => {
      const { logger, entries } = capture(configured);
      logger[method]('hello');
      expect(entries()).toEqual(passing.includes(level) ? [expect.objectContaining({ level, msg: 'hello' })] : []);
      expect(logger.enabled(level)).toBe(passing.includes(level));
    });

    it.each([...LOG_LEVELS])('event() at %s follows the same filter', (level) => {
      const { logger, lines } = capture(configured);
      logger.event(level, 'request', { status: 200 });
      expect(lines).toHaveLength(passing.includes(level) ? 1 : 0);
    });
  });

  describe('line shape', () => {
    it('writes one JSON object per call with time, level, msg and context', () => {
      const { logger, lines, entries } = capture('info');
      logger.log('started', 'Bootstrap');
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toContain('\n');
      const [entry] = entries();
      expect(entry).toEqual({ time: expect.any(String), level: 'info', msg: 'started', context: 'Bootstrap' });
      expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
    });

    it.each<[string, unknown[], Record<string, unknown>]>([
      ['no context', ['plain'], { msg: 'plain' }],
      ['an object message', [{ a: 1 }], { msg: '{"a":1}' }],
      ['extra arguments before the context', ['x', { id: 7 }, 42, 'Ctx'], { msg: 'x', detail: '{"id":7} 42', context: 'Ctx' }],
    ])('handles %s', (_what, args, expected) => {
      const { logger, entries } = capture('info');
      (logger.log as (...a: unknown[]) => void)(...args);
      const [entry] = entries();
      expect(entry).toMatchObject(expected);
      if (!('context' in expected)) expect(entry).not.toHaveProperty('context');
    });

    it('writes an error with its stack', () => {
      const { logger, entries } = capture('error');
      logger.error(new Error('boom'));
      expect(entries()[0].msg).toMatch(/^Error: boom\n\s+at /);
    });

    it('adds the request id inside a request and the fields of an event', () => {
      const { logger, entries } = capture('info');
      requestContext.run({ requestId: 'req-1' }, () => logger.event('info', 'request', { method: 'GET', status: 200 }));
      logger.log('outside');
      expect(entries()).toEqual([
        { time: expect.any(String), level: 'info', msg: 'request', requestId: 'req-1', method: 'GET', status: 200 },
        { time: expect.any(String), level: 'info', msg: 'outside' },
      ]);
    });
  });

  describe('redaction', () => {
    const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXBhcnQ';
    const API_KEY = 'svc_' + 'Ab3-_x'.repeat(7) + 'Z';

    // [what, how it is logged, the secret that must not come out, text that must survive]
    // Every row has four cells: a shorter row would make Jest pass its `done` callback as the last.
    const CASES: [string, (l: JsonLogger) => void, string, string | null][] = [
      ['a bearer token', (l) => l.log('Authorization: Bearer opaque.Tok-en_1~'), 'opaque.Tok-en_1~', 'Authorization: Bearer'],
      ['a lower-case bearer token', (l) => l.log('header bearer abcdef123456'), 'abcdef123456', null],
      ['a JWT in free text', (l) => l.log(`token was ${JWT} yesterday`), JWT, 'yesterday'],
      ['a JWT in event fields', (l) => l.event('info', 'login', { token: JWT }), JWT, null],
      ['api_key in a query', (l) => l.log('GET /auth/device/status?api_key=k3yV4lue99&request_id=r1'), 'k3yV4lue99', 'request_id=r1'],
      ['api_key in a detail object', (l) => l.log('poll', { api_key: 'k3yV4lue77' }), 'k3yV4lue77', null],
      ['"access_token" in JSON text', (l) => l.log('token response {"access_token":"opaqueAT123","token_type":"Bearer"}'), 'opaqueAT123', 'token_type'],
      ['"access_token" in pretty JSON text', (l) => l.warn('body {\n  "access_token": "opaqueAT124"\n}'), 'opaqueAT124', null],
      ['access_token in an object message', (l) => l.log({ access_token: 'opaqueAT456', expires_in: 3600 }), 'opaqueAT456', 'expires_in'],
      ['access_token as an event field', (l) => l.event('info', 'x', { access_token: 'opaqueAT789' }), 'opaqueAT789', null],
      ['refresh_token in a detail object', (l) => l.log('refresh', { refresh_token: 'rt-secret-1' }, 'Auth'), 'rt-secret-1', null],
      ['a password assignment', (l) => l.log("password='hunter2x'"), 'hunter2x', null],
      ['an admin key header', (l) => l.log('X-Admin-Key: adm1n-s3cret'), 'adm1n-s3cret', null],
      ['a device API key', (l) => l.log(`registered with ${API_KEY}`), API_KEY, 'registered with'],
      ['a device API key in an error', (l) => l.error(new Error(`bad key ${API_KEY}`)), API_KEY, 'bad key'],
    ];

    it.each(CASES)('hides %s', (_what, logIt, secret, survivor) => {
      const { logger, lines } = capture('trace');
      logIt(logger);
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toContain(secret);
      expect(lines[0]).toContain('redacted');
      expect(() => JSON.parse(lines[0])).not.toThrow();
      if (survivor) expect(lines[0]).toContain(survivor);
    });

    it.each([
      'device abc-123 is online',
      'GET /devices?owner=user:alice@example.com',
      'svc_short is not a key',
      'status=approved',
    ])('leaves %j alone', (text) => {
      expect(redactSecrets(text)).toBe(text);
    });
  });

  describe('on a terminal', () => {
    const pretty = (level: LogLevel) => {
      const lines: string[] = [];
      return { logger: new JsonLogger(level, (line) => lines.push(line), 'pretty'), lines };
    };

    it('writes readable lines: time, level, context, message, then fields', () => {
      const { logger, lines } = pretty('info');
      logger.log('tunnel up: device d1', 'TunnelRegistry');
      logger.event('info', 'request', { method: 'GET', path: '/me', status: 200, user: 'a b' });
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  \[TunnelRegistry\] tunnel up: device d1$/);
      expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  request method=GET path=\/me status=200 user="a b"$/);
    });

    it('still redacts secrets', () => {
      const { logger, lines } = pretty('info');
      logger.log(`registered with svc_${'k'.repeat(43)}`);
      expect(lines[0]).toContain('<redacted-api-key>');
    });
  });

  describe("Nest's start-up lines", () => {
    it.each(['RouterExplorer', 'RoutesResolver', 'InstanceLoader', 'NestFactory', 'NestApplication'])('are written at debug, not info (%s)', (context) => {
      const atInfo = capture('info');
      atInfo.logger.log('Mapped {/devices, GET} route', context);
      expect(atInfo.lines).toEqual([]);
      const atDebug = capture('debug');
      atDebug.logger.log('Mapped {/devices, GET} route', context);
      expect(atDebug.entries()).toEqual([expect.objectContaining({ level: 'debug', context })]);
    });

    it('leave other contexts at their level', () => {
      const { logger, entries } = capture('info');
      logger.log('tunnel certificate SHA-256 fingerprint: ab', 'Relay');
      expect(entries()).toEqual([expect.objectContaining({ level: 'info', context: 'Relay' })]);
    });
  });
});
