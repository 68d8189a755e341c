import { dashboardAddresses } from './dashboard-addresses';
import { apiDocsSecurityHeaders, dashboardSecurityHeaders } from './security-headers';

/** A Content-Security-Policy as directive name → its sources. */
function cspDirectives(policy: string): Map<string, string> {
  return new Map(policy.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
}

describe('dashboardSecurityHeaders', () => {
  const headers = dashboardSecurityHeaders('https://login.example.com/realms/svc/');
  const policy = cspDirectives(headers['Content-Security-Policy']);

  it('allows only this origin, nothing inline, and fetches to the issuer origin', () => {
    expect(policy.get('default-src')).toBe("'self'");
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(policy.get('connect-src')).toBe("'self' https://login.example.com");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(headers['Content-Security-Policy']).not.toMatch(/unsafe-|\*/);
  });

  it('forbids sniffing, referrers and framing', () => {
    expect(headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' });
  });
});

describe('apiDocsSecurityHeaders', () => {
  const headers = apiDocsSecurityHeaders();
  const policy = cspDirectives(headers['Content-Security-Policy']);

  it("runs only this origin's scripts; Swagger UI's inline styles and data: icons are allowed", () => {
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self' 'unsafe-inline'");
    expect(policy.get('img-src')).toBe("'self' data:");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
  });
});

describe('dashboardAddresses', () => {
  it.each([
    [{ tls: null, restPort: 8085, publicAddress: 'localhost' }, ['http://localhost:8085/', 'http://127.0.0.1:8085/']],
    [{ tls: { certFile: 'c', keyFile: 'k' }, restPort: 443, publicAddress: 'svc.example.com' }, ['https://localhost:443/', 'https://127.0.0.1:443/', 'https://svc.example.com:443/']],
    [{ tls: null, restPort: 8085, publicAddress: '::1' }, ['http://localhost:8085/', 'http://127.0.0.1:8085/', 'http://[::1]:8085/']],
  ])('%j → %j', (config, expected) => {
    expect(dashboardAddresses(config)).toEqual(expected);
  });
});
