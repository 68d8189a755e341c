/**
 * Hostile input at the door, over real HTTP: bodies nested past the depth limit, lying or unknown
 * content encodings and charsets, non-JSON bodies, bodies on GET, prototype keys, control and
 * bidi characters in text other users see, impossible audit dates and loose numbers, and odd
 * paths and query strings. Each is a 4xx with the standard error body, never a 500 or a hang.
 * Raw REST paths on purpose: the requests here are ones no SDK call would send.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { LIMITS } from '@svc/common';
import { Caller } from './fixtures/api-client';
import { rawRequest, RawResponse } from './fixtures/raw-request';
import { registerDevice, requestRegistration, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

const ERROR_KEYS = ['code', 'error', 'message', 'requestId', 'statusCode'];

function expectErrorBody(res: RawResponse, statusCode: number, code: string, message?: RegExp): void {
  expect([res.status, res.text.slice(0, 300)]).toEqual([statusCode, expect.any(String)]);
  expect(Object.keys(res.body ?? {}).sort()).toEqual(ERROR_KEYS);
  expect(res.body).toMatchObject({ statusCode, code });
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
  if (message !== undefined) expect(res.body.message).toMatch(message);
}

/** `depth` nested arrays: `[[…]]`. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const DEEP_OBJECT = '{"a":'.repeat(1300) + '1' + '}'.repeat(1300);
const DEEP_ARRAY = nested(5000);
const TOO_DEEP = /nested more than 32 levels/;

describe('hostile input', () => {
  const fleet = useFleet({});
  let server: TestServer;
  let alice: Caller;
  let jsonRoutes: [string, string][];

  const credentials = (caller: Caller): Record<string, string> =>
    caller.token ? { authorization: `Bearer ${caller.token}` } : caller.adminKey ? { 'x-admin-key': caller.adminKey } : {};
  const send = (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}, caller: Caller = alice) =>
    rawRequest(server.url, method, path, {
      body,
      headers: { ...credentials(caller), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    });
  const statusOf = (body: string | Buffer, headers: Record<string, string> = {}) => send('POST', '/devices/status', body, headers);
  const registration = (deviceInfo: Record<string, unknown> | string, deviceId = 'hi-new') =>
    `{"device_id":"${deviceId}","owner_scope":"user:alice@hostile.test","device_info":${typeof deviceInfo === 'string' ? deviceInfo : JSON.stringify(deviceInfo)}}`;
  const INFO = { hostname: 'h', platform: 'linux', architecture: 'x86_64', os_version: 'Debian 12' };

  beforeAll(async () => {
    server = fleet.server;
    alice = await server.login('alice@hostile.test');
    await registerDevice(server, 'hi-dev', 'user:alice@hostile.test', alice);
    const doc = (await server.api.get('/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    jsonRoutes = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.requestBody !== undefined)
        .map(([method, _op]): [string, string] => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'hi-dev')]),
    );
  });

  afterEach(async () => {
    expect((await server.api.get('/health')).status).toBe(200);
  });

  describe('nesting depth', () => {
    it('covers every route that takes a JSON body, the public registration included', () => {
      expect(jsonRoutes).toEqual(expect.arrayContaining([['POST', '/auth/device'], ['POST', '/devices/status'], ['PATCH', '/orgs/hi-dev']]));
    });

    it('refuses bodies nested past the limit on every JSON route, with and without credentials', async () => {
      const insideInfo = registration(`{"hostname":${nested(2000)}}`);
      for (const [method, path] of jsonRoutes) {
        for (const body of [DEEP_OBJECT, DEEP_ARRAY, insideInfo]) {
          for (const caller of [alice, {}]) {
            const res = await send(method, path, body, {}, caller);
            expect([method, path, res.status]).toEqual([method, path, 400]);
            expectErrorBody(res, 400, 'INVALID_INPUT', TOO_DEEP);
          }
        }
      }
    });

    it(`accepts ${LIMITS.maxJsonDepth} levels and refuses one more`, async () => {
      expect(LIMITS.maxJsonDepth).toBe(32);
      expectErrorBody(await statusOf(`{"device":"hi-dev","x":${nested(31)}}`), 400, 'INVALID_INPUT', /^unknown field x$/);
      expectErrorBody(await statusOf(`{"device":"hi-dev","x":${nested(32)}}`), 400, 'INVALID_INPUT', TOO_DEEP);
    });

    it('does not count brackets inside strings, escaped quotes included', async () => {
      const res = await statusOf(`{"devices":["${'['.repeat(200)}", "\\"${'{'.repeat(200)}"]}`);
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([expect.objectContaining({ error: 'Device not found' }), expect.objectContaining({ error: 'Device not found' })]);
    });
  });

  describe('content encoding, charset and content type', () => {
    const VALID = '{"device":"hi-dev"}';
    const big = gzipSync(`{"device":"${'x'.repeat(5_000_000)}"}`);

    it.each([
      ['gzip', Buffer.from('this is not gzip')],
      ['deflate', Buffer.from('this is not deflate')],
      ['br', Buffer.from('this is not brotli')],
      ['gzip', gzipSync(VALID).subarray(0, 12)],
    ])('refuses a %s body that does not decode (400)', async (encoding, body) => {
      expectErrorBody(await statusOf(body, { 'content-encoding': encoding }), 400, 'INVALID_INPUT', new RegExp(`could not be decoded as ${encoding}`));
    });

    it.each(['zstd', 'compress', 'identity, gzip', 'gzip, gzip', 'x-unknown'])('refuses content-encoding %j (400)', async (encoding) => {
      expectErrorBody(await statusOf(gzipSync(VALID), { 'content-encoding': encoding }), 400, 'INVALID_INPUT', /Unsupported content-encoding/);
    });

    it('refuses a compressed body that expands past the size limit (413)', async () => {
      expect(big.length).toBeLessThan(LIMITS.maxJsonBodyBytes);
      expectErrorBody(await statusOf(big, { 'content-encoding': 'gzip' }), 413, 'PAYLOAD_TOO_LARGE', /too large/);
    });

    it('accepts identity, gzip, deflate and br bodies', async () => {
      for (const [encoding, body] of [['identity', Buffer.from(VALID)], ['gzip', gzipSync(VALID)], ['GZip', gzipSync(VALID)], ['deflate', deflateSync(VALID)], ['br', brotliCompressSync(VALID)]] as const) {
        const res = await statusOf(body, { 'content-encoding': encoding });
        expect([encoding, res.status]).toEqual([encoding, 200]);
      }
    });

    it('accepts UTF-8 only', async () => {
      const utf16 = Buffer.from(VALID, 'utf16le');
      expectErrorBody(await statusOf(utf16, { 'content-type': 'application/json; charset=utf-16le' }), 400, 'INVALID_INPUT', /UTF-8/);
      expectErrorBody(await statusOf(VALID, { 'content-type': 'application/json; charset=latin1' }), 400, 'INVALID_INPUT', /UTF-8/);
      expectErrorBody(await statusOf(VALID, { 'content-type': 'application/json; charset=nope' }), 400, 'INVALID_INPUT', /UTF-8/);
      for (const type of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'Application/JSON']) {
        expect([type, (await statusOf(VALID, { 'content-type': type })).status]).toEqual([type, 200]);
      }
    });

    it.each([
      ['a lone continuation byte', [0x80]],
      ['a truncated sequence', [0xe2, 0x82]],
      ['an overlong encoding', [0xc0, 0xaf]],
      ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
      ['a byte never in UTF-8', [0xff]],
    ])('refuses a body with %s rather than read it as U+FFFD (400)', async (_name, bytes) => {
      const body = Buffer.concat([Buffer.from('{"device":"hi-'), Buffer.from(bytes), Buffer.from('dev"}')]);
      expectErrorBody(await statusOf(body), 400, 'INVALID_INPUT', /not valid UTF-8/);
      expectErrorBody(await statusOf(gzipSync(body), { 'content-encoding': 'gzip' }), 400, 'INVALID_INPUT', /not valid UTF-8/);
    });

    it('ignores a UTF-8 byte order mark, as RFC 8259 allows', async () => {
      expect((await statusOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)]))).status).toBe(200);
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', ''])(
      'refuses a body sent as %j (400)',
      async (type) => {
        expectErrorBody(await statusOf(VALID, { 'content-type': type }), 400, 'INVALID_INPUT', /must be JSON \(content-type: application\/json\)/);
      },
    );

    it('refuses a body on GET and DELETE, and takes an empty one', async () => {
      expectErrorBody(await send('GET', '/devices', '{}'), 400, 'INVALID_INPUT', /GET requests take no body/);
      expectErrorBody(await send('GET', '/devices', DEEP_ARRAY), 400, 'INVALID_INPUT', /GET requests take no body/);
      expectErrorBody(await send('DELETE', '/devices/hi-dev/access/x@hostile.test', '{"a":1}'), 400, 'INVALID_INPUT', /DELETE requests take no body/);
      expect((await send('GET', '/devices', undefined, { 'content-length': '0' })).status).toBe(200);
    });
  });

  describe('prototype keys', () => {
    it.each(['__proto__', 'constructor', 'prototype'])('refuses %s like any unknown field, at any depth', async (key) => {
      expectErrorBody(await statusOf(`{"device":"hi-dev","${key}":{"x":1}}`), 400, 'INVALID_INPUT', new RegExp(`unknown field ${key}`));
      expectErrorBody(await statusOf(`{"device":"hi-dev","${key}":"x"}`), 400, 'INVALID_INPUT', new RegExp(`unknown field ${key}`));
      const res = await send('POST', '/auth/device', registration(`{"hostname":"h","platform":"l","architecture":"a","os_version":"o","${key}":{"polluted":true}}`));
      expectErrorBody(res, 400, 'INVALID_INPUT', new RegExp(`unknown field device_info\\.${key}`));
      expectErrorBody(await send('GET', `/devices/hi-dev/audit-logs?${key}=1`), 400, 'INVALID_INPUT', new RegExp(`unknown field ${key}`));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('control characters in device_info', () => {
    const CONTROL = ['\u0000', '\u0007', '\t', '\n', '\r', '\u001b', '\u007f', '\u0080', '\u009b', '\u009f', '\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\u2028', '\u2029'];
    /** Format characters and fillers that draw nothing or a blank: `dev\u200b2` would pass for `dev2`. */
    const INVISIBLE = ['\u00ad', '\u200b', '\u200d', '\u2060', '\ufeff', '\u{e0001}', '\u{e0041}', '\u115f', '\u1160', '\u3164', '\uffa0'];

    it.each([...CONTROL, ...INVISIBLE].map((c) => [`U+${c.codePointAt(0)!.toString(16).padStart(4, '0').toUpperCase()}`, c]))('refuses %s in every field (400 naming it)', async (_name, char) => {
      for (const field of Object.keys(INFO)) {
        const res = await send('POST', '/auth/device', registration({ ...INFO, [field]: `evil${char}[31mred` }));
        expectErrorBody(res, 400, 'INVALID_INPUT', new RegExp(`device_info\\.${field} must not contain control, formatting or invisible characters`));
      }
    });

    it.each(INVISIBLE.map((c) => [`U+${c.codePointAt(0)!.toString(16).padStart(4, '0').toUpperCase()}`, c]))('refuses %s in the registration name (400 naming it)', async (_name, char) => {
      const body = JSON.stringify({ device_id: 'hi-named', owner_scope: 'user:alice@hostile.test', name: `dev${char}2`, device_info: INFO, public_key: 'A'.repeat(43) });
      expectErrorBody(await send('POST', '/auth/device', body), 400, 'INVALID_INPUT', /name: a device name must not contain control, formatting or invisible characters/);
    });

    it('keeps other Unicode text as sent', async () => {
      await requestRegistration(server, 'hi-unicode', 'user:alice@hostile.test', 'Küche-π-東京');
      const listed = (await server.api.get('/devices', alice)).body as { device_id?: string; hostname?: string }[];
      expect(listed.find((d) => d.device_id === 'hi-unicode')?.hostname).toBe('Küche-π-東京');
    });
  });

  describe('audit-log queries', () => {
    const audit = (query: string) => send('GET', `/devices/hi-dev/audit-logs?${query}`);
    const auditBody = (body: Record<string, unknown>) => send('POST', '/devices/audit-logs', JSON.stringify({ device: 'hi-dev', ...body }));

    it.each([
      '2024-02-30', '2024-13-01', '2023-02-29', '2100-02-29', '2024-04-31', '2024-00-10', '2024-01-00',
      '2024-01-01T24:00', '2024-01-01T25:00Z', '2024-01-01T10:60Z', '2024-01-01T10:00:60Z', '2024-01-01T10:00+24:00', '2024-01-01T10:00+05:60',
      '2024-1-01', '2024-01-01 10:00', '2024-01-01T10', '+002024-01-01', '2024-01-01T10:00:00.Z', '2024-01-01Z',
    ])('refuses the impossible or loose date %j in since and until', async (value) => {
      expectErrorBody(await audit(`since=${encodeURIComponent(value)}`), 400, 'INVALID_INPUT', /^since must be an ISO 8601 timestamp/);
      expectErrorBody(await audit(`until=${encodeURIComponent(value)}`), 400, 'INVALID_INPUT', /^until must be an ISO 8601 timestamp/);
      expectErrorBody(await auditBody({ since: value }), 400, 'INVALID_INPUT', /^since must be an ISO 8601 timestamp/);
    });

    it.each(['2024-02-29', '2000-02-29', '2024-12-31T23:59', '2024-12-31T23:59:59.999999999Z', '2024-06-01T12:00:00+05:30', '2024-06-01T12:00:00-0700', '0001-01-01'])(
      'accepts the real date %j',
      async (value) => {
        expect((await audit(`since=${encodeURIComponent(value)}`)).status).toBe(200);
        expect((await auditBody({ since: value })).status).toBe(200);
      },
    );

    it('reads a date-time without an offset as UTC', async () => {
      const entries = (await audit('max=1')).body.logs as { timestamp: string }[];
      const at = entries[0].timestamp.replace(/Z$/, '');
      expect((await audit(`since=${encodeURIComponent(at)}&max=1`)).body.logs).toEqual(entries);
      expect((await audit(`until=${encodeURIComponent(at)}&max=1`)).body.logs).not.toEqual(entries);
    });

    it.each(['0x10', '1e3', '%2B5', '%207', '7%20', '5.0', '', '-1', '0', '1001', '1_000', 'Infinity', 'NaN', '5%00', 'max=1&max=2'])('refuses max=%s (400 naming max)', async (value) => {
      const query = value.startsWith('max=') ? value : `max=${value}`;
      expectErrorBody(await audit(query), 400, 'INVALID_INPUT', /^max must be a whole number between 1 and 1000$/);
    });

    it('accepts max as plain decimal digits', async () => {
      for (const value of ['1', '1000', '007']) expect([value, (await audit(`max=${value}`)).status]).toEqual([value, 200]);
    });

    it('refuses duplicated since and until', async () => {
      expectErrorBody(await audit('since=2024-01-01&since=2024-01-02'), 400, 'INVALID_INPUT', /since/);
      expectErrorBody(await audit('until=2024-01-01&until=2024-01-02'), 400, 'INVALID_INPUT', /until/);
    });
  });

  describe('paths, query strings and floods', () => {
    it('answers long and malformed path parameters with a 4xx', async () => {
      expectErrorBody(await send('GET', `/devices/${'x'.repeat(10_000)}/status`), 404, 'DEVICE_NOT_FOUND');
      const oversized = await send('GET', `/devices/${'x'.repeat(100_000)}/status`);
      expectErrorBody(oversized, 431, 'INVALID_INPUT', /too large/);
      for (const bad of ['%', '%E0%A4%A', '%ZZ', '%C0%AF']) expectErrorBody(await send('GET', `/devices/${bad}/status`), 400, 'INVALID_INPUT');
      expectErrorBody(await send('GET', '/devices/a%00b/status'), 404, 'DEVICE_NOT_FOUND');
    });

    it('refuses NUL and duplicated parameters in query strings', async () => {
      expectErrorBody(await send('GET', '/auth/device/status?request_id=%00'), 400, 'INVALID_INPUT', /request_id/);
      expectErrorBody(await send('GET', '/auth/device/status?request_id=req_aaaaaaaa&request_id=req_bbbbbbbb'), 400, 'INVALID_INPUT', /request_id/);
      expectErrorBody(await send('GET', '/users?active=true&active=false', undefined, {}, server.admin), 400, 'INVALID_INPUT', /active/);
    });

    it('answers a flood of unknown fields with a short message', async () => {
      const keys = Array.from({ length: 6000 }, (_, i) => `"k${i}":1`).join(',');
      const res = await statusOf(`{"device":"hi-dev",${keys}}`);
      expectErrorBody(res, 400, 'INVALID_INPUT', /^unknown field k0; unknown field k1; .*and 5990 more$/);
      expect(res.body.message.length).toBeLessThan(400);
    });

    it('answers a flood of batch targets with a 400', async () => {
      const devices = JSON.stringify(Array.from({ length: 15_000 }, () => 'd'));
      expectErrorBody(await statusOf(`{"devices":${devices}}`), 400, 'INVALID_INPUT', /at most 100/);
    });
  });
});
