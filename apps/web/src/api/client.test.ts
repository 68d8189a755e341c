import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorAnswer } from '@svc/common/error-answer';
import { ApiClient } from './client';

/** The API's answers are read as libs/common's errorFromAnswer reads them for the CLI. */
describe('ApiClient refusals', () => {
  afterEach(() => vi.unstubAllGlobals());
  const answering = (res: Response) => vi.stubGlobal('fetch', vi.fn(async () => res));
  const failing = (error: unknown) => vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(error)));
  const api = new ApiClient(() => 'token');

  it("is svc's error answer: code, message, status and request id", async () => {
    const body = { statusCode: 404, error: 'Not Found', message: 'Device not found', code: 'DEVICE_NOT_FOUND', requestId: 'req-1234abcd' };
    answering(new Response(JSON.stringify(body), { status: 404, headers: { 'content-type': 'application/json' } }));
    const refusal = await api.get('/devices/x').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ErrorAnswer);
    expect(refusal).toMatchObject({ code: 'DEVICE_NOT_FOUND', message: 'Device not found', statusCode: 404, requestId: 'req-1234abcd' });
  });

  it("does not pass a proxy's page for svc's word", async () => {
    answering(new Response('<html>Bad Gateway</html>', { status: 502 }));
    await expect(api.post('/api/exec', {})).rejects.toMatchObject({ code: 'BAD_GATEWAY', statusCode: 502, requestId: undefined, message: expect.stringMatching(/proxy in front of the svc server/) });
    answering(new Response('{"message":"nope","code":"NOT_AN_SVC_CODE"}', { status: 403 }));
    await expect(api.get('/me')).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'The server answered HTTP 403, not with an svc error answer' });
  });

  it('says the server is unreachable when fetch fails, and lets an abort be an abort', async () => {
    failing(new TypeError('Failed to fetch'));
    await expect(api.get('/devices')).rejects.toMatchObject({ code: 'SERVER_UNREACHABLE', message: `Cannot reach the server at ${location.origin}: Failed to fetch` });
    const controller = new AbortController();
    controller.abort();
    const aborted = new DOMException('The operation was aborted.', 'AbortError');
    failing(aborted);
    await expect(api.readText('/logs', () => undefined, controller.signal)).rejects.toBe(aborted);
  });
});
