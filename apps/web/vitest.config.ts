import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config';

/**
 * Component and unit specs (`*.test.ts(x)` next to the code; root jest takes only `*.spec.ts`), in
 * jsdom. `@svc/common/<entry>` is read from libs/common's sources, not its build output, so the
 * specs need no `npm run build` first (the browser-safe entries are plain TypeScript).
 */
export default mergeConfig(
  viteConfig,
  defineConfig({
    resolve: { alias: [{ find: /^@svc\/common\/(.+)$/, replacement: fileURLToPath(new URL('../../libs/common/src/$1', import.meta.url)) }] },
    test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'], restoreMocks: true },
  }),
);
