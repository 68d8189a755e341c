import { defineConfig } from 'vite';
import { deployRequestValidator } from './build/deploy-request-validator';

/**
 * The dashboard is plain static files the server serves at `/` (apps/server/src/web). Hashed
 * file names under assets/ let the server cache them for a year; index.html is never cached.
 * No inline script or style is emitted, so the server's Content-Security-Policy needs no exception.
 */
export default defineConfig({
  base: '/',
  plugins: [deployRequestValidator()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
  },
});
