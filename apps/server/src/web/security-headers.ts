/**
 * The headers of every dashboard response: a strict Content-Security-Policy (scripts, styles and
 * images from this origin only, nothing inline; fetches to this origin and the identity
 * provider's), no framing, no MIME sniffing, no referrer (a URL may carry an authorization code).
 */
export function dashboardSecurityHeaders(issuer: string): Record<string, string> {
  return securityHeaders(["script-src 'self'", "style-src 'self'", "img-src 'self'", `connect-src 'self' ${new URL(issuer).origin}`]);
}

/**
 * The same for the API documentation (`/docs`, Swagger UI), on the dashboard's origin: scripts from
 * this origin only, as for the dashboard. Swagger UI's page carries inline style blocks and
 * attributes and its stylesheet draws icons from `data:` images, so styles may be inline and
 * images `data:`; neither can run code.
 */
export function apiDocsSecurityHeaders(): Record<string, string> {
  return securityHeaders(["script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "connect-src 'self'"]);
}

function securityHeaders(sources: string[]): Record<string, string> {
  const csp = ["default-src 'self'", ...sources, "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
