import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { NextFunction, Request, Response } from 'express';
import { dashboardSecurityHeaders } from './security-headers';

/** Vite names every built asset by its content hash, so a cached copy never goes stale. */
const ASSETS_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;
const NOT_BUILT = 'The web dashboard is not built: run `npm run build` (it writes apps/web/dist), or point WEB_DIR at a built copy. The API answers as usual.\n';
/** The dashboard's own paths; everything else belongs to the API and keeps its JSON 404. */
const PAGE = new Set(['/', '/index.html']);
const STATIC_FILES = new Set(['/favicon.svg']);

/**
 * Serves the dashboard from `webDir` at `/`: index.html never cached (it names the current
 * assets), `/assets/*` cached for a year, each with the dashboard's security headers. Paths the
 * dashboard does not own fall through to the API. The pages route by hash (`/#/devices`), so the
 * API keeps `/devices`, `/orgs` and the rest.
 */
export function dashboardMiddleware(webDir: string, issuer: string) {
  const headers = dashboardSecurityHeaders(issuer);
  const assets = express.static(join(webDir, 'assets'), { index: false, fallthrough: false, immutable: true, maxAge: ASSETS_MAX_AGE_MS, redirect: false });
  const files = express.static(webDir, { index: false, redirect: false, maxAge: 0 });
  const indexFile = join(webDir, 'index.html');

  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    const isAsset = path.startsWith('/assets/');
    if (!PAGE.has(path) && !isAsset && !STATIC_FILES.has(path)) return next();
    res.set(headers);
    if (PAGE.has(path)) {
      res.set('Cache-Control', 'no-cache');
      if (!existsSync(indexFile)) {
        res.status(404).type('text/plain').send(NOT_BUILT);
        return;
      }
      res.type('html').sendFile(indexFile);
      return;
    }
    if (isAsset) {
      req.url = req.url.slice('/assets'.length);
      assets(req, res, (error?: unknown) => notFound(res, error));
      return;
    }
    files(req, res, next);
  };
}

function notFound(res: Response, error?: unknown): void {
  const status = (error as { status?: number } | undefined)?.status ?? 404;
  res.status(status === 404 ? 404 : 400).type('text/plain').send(status === 404 ? 'Not found\n' : 'Bad request\n');
}
