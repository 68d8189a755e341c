import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config';

/** Component and unit specs (`*.test.ts(x)` next to the code; root jest takes only `*.spec.ts`), in jsdom. */
export default mergeConfig(
  viteConfig,
  defineConfig({
    test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'], restoreMocks: true },
  }),
);
