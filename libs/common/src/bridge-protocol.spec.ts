import { BRIDGE_PROTOCOL, bridgeProtocols, offeredProtocols } from './bridge-protocol';

describe('bridge subprotocols', () => {
  const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln-_';

  it.each([JWT, 'opaque~token+/=', 'a'])('carries %s there and back, as a protocol token, without padding', (token) => {
    const protocols = bridgeProtocols(token);
    expect(protocols[0]).toBe(BRIDGE_PROTOCOL);
    expect(protocols[1]).toMatch(/^svc\.bearer\.[A-Za-z0-9_-]+$/);
    expect(offeredProtocols(protocols.join(', '))).toEqual({ protocols, bearer: token });
  });

  it('finds no bearer where none is offered', () => {
    expect(offeredProtocols(undefined)).toEqual({ protocols: [], bearer: undefined });
    expect(offeredProtocols('svc.v1')).toEqual({ protocols: ['svc.v1'], bearer: undefined });
  });

  it.each([
    ['two bearers', `${bridgeProtocols('a')[1]}, ${bridgeProtocols('b')[1]}`, /more than one/],
    ['not base64url', 'svc.v1, svc.bearer.a+b', /base64url/],
    ['an impossible length', 'svc.v1, svc.bearer.abcde', /base64url/],
    ['empty', 'svc.v1, svc.bearer.', /base64url/],
    ['a control character', `svc.v1, svc.bearer.${Buffer.from('a\nb').toString('base64url')}`, /base64url/],
    ['a space', `svc.v1, svc.bearer.${Buffer.from('a b').toString('base64url')}`, /base64url/],
  ])('refuses %s as INVALID_INPUT', (_name, header, message) => {
    expect(() => offeredProtocols(header)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(message) }));
  });
});
