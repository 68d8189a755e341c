import { constants as h2, ServerHttp2Stream } from 'node:http2';
import { DeviceNotFoundError, encodeStreamArgs, fillPath, subRoutes, TUNNEL_HEADERS } from '@svc/common';
import type { BearerAuthenticator } from '../authentication/bearer-authenticator';
import type { AccessPolicy } from '../authorization/access-policy.service';
import type { UserPrincipal } from '../auth/principal';
import { ClientStreamRouter } from './client-stream.router';

/*
 * The client streams are bound from the catalog: each `stream: true` route of an operation is
 * served at its catalog path, and its service has AccessPolicy decide the catalog's capability
 * (not one of its own).
 */

const principal: UserPrincipal = { kind: 'user', email: 'me@router.test', scopes: ['user:me@router.test'], memberships: [], admin: false };

function fakeStream() {
  const answer: { status?: number; body?: string } = {};
  const stream = {
    destroyed: false,
    headersSent: false,
    on: () => stream,
    respond: (headers: Record<string, unknown>) => (answer.status = headers[h2.HTTP2_HEADER_STATUS] as number),
    end: (body: string) => (answer.body = body),
  };
  return { stream: stream as unknown as ServerHttp2Stream, answer };
}

/** Arguments each stream's catalog schema accepts (the others take none, or only optional ones). */
const GOOD_ARGS: Record<string, object> = { 'device_exec.stream': { command: ['true'] }, 'forward_start.stream': { target: { kind: 'tcp', port: 22 } } };

describe('ClientStreamRouter', () => {
  const decided: { ref: string; capability: string }[] = [];
  const policy = {
    requireDevice: async (_who: UserPrincipal, ref: string, capability: string) => {
      decided.push({ ref, capability });
      throw new DeviceNotFoundError();
    },
  } as unknown as AccessPolicy;
  const authenticator = { authenticate: async () => principal } as unknown as BearerAuthenticator;
  const opening = { open: async (_p: UserPrincipal, authorize: () => Promise<unknown>) => (await authorize()) as never };
  const router = new ClientStreamRouter(authenticator, policy, opening as never, opening as never, opening as never, opening as never);
  const streams = subRoutes().filter(({ route }) => route.stream);

  it('serves exactly the client streams of the catalog', () => {
    expect(router.served().map((s) => s.name).sort()).toEqual(streams.map((s) => s.name).sort());
    expect(streams.length).toBeGreaterThanOrEqual(4);
  });

  it.each(streams.map(({ name, route }) => [name, route] as const))('%s: at its catalog path, deciding its catalog capability', async (_name, route) => {
    decided.length = 0;
    const { stream, answer } = fakeStream();
    await router.serve(stream, { [h2.HTTP2_HEADER_METHOD]: route.method, [h2.HTTP2_HEADER_PATH]: fillPath(route.path, { device: 'edge 1' }), authorization: 'Bearer x', [TUNNEL_HEADERS.args]: encodeStreamArgs(GOOD_ARGS[_name] ?? {}) });
    expect(decided).toEqual([{ ref: 'edge 1', capability: route.capability }]);
    expect(answer.status).toBe(404);
  });

  it.each(streams.map(({ name, route }) => [name, route] as const))('%s: arguments outside its catalog schema are a 400 before anything is decided', async (_name, route) => {
    decided.length = 0;
    const { stream, answer } = fakeStream();
    await router.serve(stream, { [h2.HTTP2_HEADER_METHOD]: route.method, [h2.HTTP2_HEADER_PATH]: fillPath(route.path, { device: 'edge 1' }), authorization: 'Bearer x', [TUNNEL_HEADERS.args]: encodeStreamArgs({ ...GOOD_ARGS[_name], surplus: 1 }) });
    expect(decided).toEqual([]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body!)).toMatchObject({ statusCode: 400, code: 'INVALID_INPUT', message: expect.stringContaining('unknown field surplus') });
  });

  it('answers 404 for a path the catalog does not name', async () => {
    const { stream, answer } = fakeStream();
    await router.serve(stream, { [h2.HTTP2_HEADER_METHOD]: 'POST', [h2.HTTP2_HEADER_PATH]: '/v1/devices/edge-1/telnet', authorization: 'Bearer x' });
    expect(answer.status).toBe(404);
  });
});
