import { isFrameType, TUNNEL_OPS, tunnelOpFromPath, tunnelPath } from './constants';
import { decodeStreamArgs, encodeStreamArgs } from './stream-args';
import { TunnelProtocolError } from './tunnel-protocol.error';

describe('tunnel constants', () => {
  it.each(Object.values(TUNNEL_OPS))('round-trips the path of %s', (op) => {
    expect(tunnelOpFromPath(tunnelPath(op))).toBe(op);
  });

  it.each(['/v2/exec', '/v1/nope', '/exec', '', undefined])('knows no operation at %p', (path) => {
    expect(tunnelOpFromPath(path)).toBeUndefined();
  });

  it.each([
    [0, false],
    [1, true],
    [8, true],
    [9, false],
  ])('frame type %i known: %s', (type, known) => {
    expect(isFrameType(type)).toBe(known);
  });
});

describe('svc-args header', () => {
  it('round-trips UTF-8 JSON through base64url', () => {
    const args = { command: ['echo', 'é ✓ /+='], timeout_secs: 30, stdin: false };
    const header = encodeStreamArgs(args);
    expect(header).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeStreamArgs(header)).toEqual(args);
  });

  it.each([
    ['missing', undefined],
    ['repeated', ['a', 'b']],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['a JSON array', Buffer.from('[]').toString('base64url')],
  ])('refuses a header that is %s', (_name, header) => {
    expect(() => decodeStreamArgs(header)).toThrow(TunnelProtocolError);
  });
});
