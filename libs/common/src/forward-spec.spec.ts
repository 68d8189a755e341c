import { ForwardMapping, parseForwardSpec, renderForwardMapping } from './forward-spec';
import { parseForwardTarget } from './forward-target';

const tcp = (port: number) => ({ kind: 'tcp', port }) as const;
const remoteTcp = (port: number, host = '127.0.0.1') => ({ kind: 'tcp', host, port }) as const;
const unix = (path: string) => ({ kind: 'unix', path }) as const;

describe('parseForwardSpec', () => {
  it.each<[string, ForwardMapping[], string[]]>([
    ['8080:80', [{ local: tcp(8080), remote: remoteTcp(80) }], ['TcpPort(8080->80)']],
    ['1:65535', [{ local: tcp(1), remote: remoteTcp(65535) }], ['TcpPort(1->65535)']],
    ['8080:127.0.0.2:80', [{ local: tcp(8080), remote: remoteTcp(80, '127.0.0.2') }], ['TcpPort(8080->127.0.0.2:80)']],
    ['5432:db.lan:5432', [{ local: tcp(5432), remote: remoteTcp(5432, 'db.lan') }], ['TcpPort(5432->db.lan:5432)']],
    ['8080:[::1]:80', [{ local: tcp(8080), remote: remoteTcp(80, '::1') }], ['TcpPort(8080->[::1]:80)']],
    ['8080:[fd00::1:2]:80', [{ local: tcp(8080), remote: remoteTcp(80, 'fd00::1:2') }], ['TcpPort(8080->[fd00::1:2]:80)']],
    [
      '8080-8082:9080-9082',
      [
        { local: tcp(8080), remote: remoteTcp(9080) },
        { local: tcp(8081), remote: remoteTcp(9081) },
        { local: tcp(8082), remote: remoteTcp(9082) },
      ],
      ['TcpPort(8080->9080)', 'TcpPort(8081->9081)', 'TcpPort(8082->9082)'],
    ],
    ['7000-7000:8000-8000', [{ local: tcp(7000), remote: remoteTcp(8000) }], ['TcpPort(7000->8000)']],
    ['/tmp/d.sock:/run/podman/podman.sock', [{ local: unix('/tmp/d.sock'), remote: unix('/run/podman/podman.sock') }], ['UnixSocket(/tmp/d.sock->/run/podman/podman.sock)']],
    ['2375:/var/run/docker.sock', [{ local: tcp(2375), remote: unix('/var/run/docker.sock') }], ['UnixSocket(2375->/var/run/docker.sock)']],
    ['/tmp/pg.sock:10.0.0.5:5432', [{ local: unix('/tmp/pg.sock'), remote: remoteTcp(5432, '10.0.0.5') }], ['TcpPort(/tmp/pg.sock->10.0.0.5:5432)']],
  ])('parses %s', (spec, mappings, rendered) => {
    const parsed = parseForwardSpec(spec);
    expect(parsed).toEqual(mappings);
    expect(parsed.map(renderForwardMapping)).toEqual(rendered);
  });

  it.each([
    ['an empty spec', '', /empty/],
    ['a lone port', '8080', /<local>:<remote>/],
    ['too many parts', '1:2:3:4', /<local>:<remote>/],
    ['port 0 locally', '0:80', /port 0 on the local side is out of range/],
    ['port 0 remotely', '8080:0', /port 0 on the remote side is out of range/],
    ['port 65536', '8080:65536', /port 65536 .* out of range/],
    ['a huge port', '8080:99999999999', /out of range/],
    ['mismatched ranges', '8080-8090:9080-9081', /11 port\(s\) and the remote side 2.*same length/],
    ['a range to one port', '8080-8081:80', /same length/],
    ['one port to a range', '80:8080-8081', /same length/],
    ['a range to a socket', '8080-8081:/run/x.sock', /same length/],
    ['a reversed range', '8090-8080:9090-9080', /reversed/],
    ['a too long range', '1000-3000:1000-3000', /more than 1000 ports/],
    ['an empty local side', ':80', /local side is empty/],
    ['an empty remote side', '80:', /remote side is empty/],
    ['an empty host', '80::80', /host is empty/],
    ['a relative local socket', 'd.sock:/run/d.sock', /neither a port/],
    ['a relative remote socket', '/tmp/d.sock:run/d.sock', /neither a port/],
    ['a dot-relative socket', './d.sock:/run/d.sock', /neither a port/],
    ['a host before a socket', '8080:db:/run/x.sock', /host can only be given for a TCP port/],
    ['an unbracketed IPv6 host', '8080:::1:80', /<local>:<remote>|host is empty/],
    ['a bracketed non-IPv6', '8080:[db]:80', /not an IPv6 address/],
    ['an unclosed bracket', '8080:[::1:80', /unbalanced/],
    ['a bracket as the local side', '[::1]:80', /only allowed as the host/],
    ['a bad host name', '8080:bad_host!:80', /IP address or a host name/],
    ['white space', '8080: 80', /white space/],
    ['a negative port', '-1:80', /neither a port/],
    ['a signed port', '+80:80', /neither a port/],
    ['a hex port', '0x50:80', /neither a port/],
    ['a socket path too long', `/tmp/${'x'.repeat(120)}:/run/x.sock`, /longer than 107 bytes/],
  ])('refuses %s', (_name, spec, message) => {
    expect(() => parseForwardSpec(spec)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(message) }));
  });

  it('quotes the spec in its message', () => {
    expect(() => parseForwardSpec('0:80')).toThrow('Invalid forward spec "0:80": port 0 on the local side is out of range (1-65535)');
  });
});

describe('parseForwardTarget', () => {
  it.each([
    [{ kind: 'tcp', port: 22 }, { kind: 'tcp', host: '127.0.0.1', port: 22 }],
    [{ kind: 'tcp', host: '::1', port: 22 }, { kind: 'tcp', host: '::1', port: 22 }],
    [{ kind: 'unix', path: '/run/x.sock' }, { kind: 'unix', path: '/run/x.sock' }],
  ])('accepts %j', (raw, target) => {
    expect(parseForwardTarget(raw)).toEqual(target);
  });

  it.each([
    ['no object', 'tcp', /must be an object/],
    ['an unknown kind', { kind: 'udp', port: 53 }, /kind must be "tcp" or "unix"/],
    ['port 0', { kind: 'tcp', port: 0 }, /port must be a port number/],
    ['port 65536', { kind: 'tcp', port: 65536 }, /port must be a port number/],
    ['a string port', { kind: 'tcp', port: '22' }, /port must be a port number/],
    ['a fractional port', { kind: 'tcp', port: 22.5 }, /port must be a port number/],
    ['a bracketed host', { kind: 'tcp', host: '[::1]', port: 22 }, /host must be an IP address/],
    ['a relative path', { kind: 'unix', path: 'x.sock' }, /absolute socket path/],
    ['a NUL in the path', { kind: 'unix', path: '/run/x\0y' }, /NUL/],
    ['an unknown field', { kind: 'tcp', port: 22, bind: '0.0.0.0' }, /unknown field bind/],
    ['a path on tcp', { kind: 'tcp', port: 22, path: '/x' }, /unknown field path/],
  ])('refuses %s', (_name, raw, message) => {
    expect(() => parseForwardTarget(raw)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(message) }));
  });
});
