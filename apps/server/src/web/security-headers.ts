/**
 * The headers of every dashboard response: a strict Content-Security-Policy (scripts, styles and
 * images from this origin only, nothing inline; fetches to this origin and the identity
 * provider's), no framing, no MIME sniffing, no referrer (a URL may carry an authorization code).
 */
export function dashboardSecurityHeaders(issuer: string): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src 'self' ${new URL(issuer).origin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
