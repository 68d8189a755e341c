/**
 * `virtual:deploy-request-validator`: DEPLOY_REQUEST_SCHEMA compiled by Ajv at build time (its
 * standalone code), with the options the CLI compiles it with. Compiling in the browser would need
 * `new Function`, which the dashboard's Content-Security-Policy (`script-src 'self'`) refuses.
 */
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'vite';
// libs/common's sources, which Vite's config loader bundles with this file: neither the build nor
// the Vitest specs need libs/common built first.
import { DEPLOY_REQUEST_SCHEMA } from '../../../libs/common/src/deployments/schema';
import { DEPLOY_REQUEST_AJV_OPTIONS } from '../../../libs/common/src/runspec/request-problem';

const ID = 'virtual:deploy-request-validator';
const RESOLVED = `\0${ID}`;

export function deployRequestValidator(): Plugin {
  return {
    name: 'svc-deploy-request-validator',
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load(id) {
      if (id !== RESOLVED) return undefined;
      const ajv = new Ajv({ ...DEPLOY_REQUEST_AJV_OPTIONS, code: { source: true, esm: true } });
      const code = standaloneCode(ajv, ajv.compile(DEPLOY_REQUEST_SCHEMA));
      // Ajv's ESM output still requires its runtime helpers (CommonJS); an import is what a browser
      // bundle takes. `exports` is the namespace's default under Node's interop (vitest), the
      // namespace itself under a bundler's.
      const helpers = new Map<string, string>();
      const body = code.replace(/require\("(ajv\/dist\/runtime\/[a-z0-9]+)"\)/g, (_match, path: string) => {
        if (!helpers.has(path)) helpers.set(path, `ajvRuntime${helpers.size}`);
        return `commonJsExports(${helpers.get(path)})`;
      });
      if (body.includes('require(')) throw new Error(`${ID}: Ajv's standalone code requires a module this plugin does not import`);
      const imports = [...helpers].map(([path, name]) => `import * as ${name} from ${JSON.stringify(`${path}.js`)};`);
      const interop = 'const commonJsExports = (ns) => (ns.default && ns.default.__esModule ? ns.default : ns);';
      return [...imports, interop, body.replace(/^"use strict";/, '')].join('\n');
    },
  };
}
