/**
 * Module boundaries, checked by `npm run lint` (dependency-cruiser). Specs and contract suites are
 * not cruised: they may reach across folders to set up a world.
 */
const SERVER_STACK =
  '^node_modules/(@nestjs/|express/|better-sqlite3/|mongoose/|mongodb/|oidc-provider/|class-validator/|class-transformer/|passport|jwks-rsa/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders of a workspace depend on each other in one direction only (a folder cycle makes a module knot).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(apps/[^/]+|libs/[^/]+)/src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'Files do not import each other in a circle.',
      severity: 'error',
      from: { path: '^(apps/[^/]+|libs/[^/]+)/src/' },
      to: { circular: true },
    },
    {
      name: 'no-foreign-repository',
      comment:
        "A repository is its feature's own (any depth of its folder): other features go through what the feature's module exports (a service such as devices/records' DeviceRecords, a port, an event).",
      severity: 'error',
      from: { path: '^apps/server/src/([^/]+)/' },
      to: { path: '^apps/server/src/[^/]+/.*[.]repository[.]ts$', pathNot: '^apps/server/src/$1/' },
    },
    {
      name: 'tunnel-imports-no-feature',
      comment: 'relay/ (the tunnel) exposes ports that features implement or consume; it imports no feature.',
      severity: 'error',
      from: { path: '^apps/server/src/relay/' },
      to: {
        path: '^apps/server/src/',
        pathNot: '^apps/server/src/(relay|config|common|logging|storage/storage[.]port[.]ts|storage/records[.]ts)',
      },
    },
    {
      name: 'no-server-stack-outside-server',
      comment: 'The runtime, the CLI and libs/common ship without the server stack (a type-only import is erased).',
      severity: 'error',
      from: { path: '^(apps/runtime|apps/cli|libs/common)/' },
      to: { path: SERVER_STACK, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workspace-boundaries',
      comment: 'libs/common imports no app; the runtime, the CLI and the server import each other only through libs/common.',
      severity: 'error',
      from: { path: '^(apps/[^/]+|libs/common)/' },
      to: { path: '^(apps/[^/]+)/', pathNot: '^$1/' },
    },
    {
      name: 'web-takes-browser-safe-common',
      comment:
        'The dashboard (a browser bundle) imports from libs/common only its browser-safe entry points: @svc/common/runspec, /bridge-protocol, /error-answer and /errors.',
      severity: 'error',
      from: { path: '^apps/web/src/' },
      to: { path: '^libs/common/src/', pathNot: '^libs/common/src/(runspec/index|bridge-protocol|error-answer|errors)[.]ts$' },
    },
    {
      name: 'web-entries-stay-browser-safe',
      comment:
        'bridge-protocol.ts and error-answer.ts go into the dashboard: of libs/common they import only errors.ts, which imports nothing. (Node builtins and globals such as Buffer are beyond this rule: the files say so, and the browser suites run them.)',
      severity: 'error',
      from: { path: '^libs/common/src/(bridge-protocol|error-answer|errors)[.]ts$' },
      to: { pathNot: '^libs/common/src/errors[.]ts$' },
    },
    {
      name: 'runspec-stays-browser-safe',
      comment: 'libs/common/src/runspec goes into the dashboard: of libs/common it imports only files free of node builtins, and of packages only yaml (its types). (Node builtins are outside includeOnly, so this rule cannot see them.)',
      severity: 'error',
      from: { path: '^libs/common/src/runspec/' },
      to: {
        pathNot: '^(libs/common/src/(runspec/|deployments/(model|schema|schema-errors|request-checks)[.]ts$|control-chars[.]ts$|errors[.]ts$)|node_modules/yaml/)',
      },
    },
  ],
  options: {
    includeOnly: '^(apps/[^/]+/src|libs/[^/]+/src|node_modules)/',
    exclude: { path: '([.](spec|e2e-spec|contract)[.]ts$|/contract/|/dist/)' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.d.ts', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
