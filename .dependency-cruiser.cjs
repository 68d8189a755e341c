/**
 * Module boundaries, checked by `npm run lint` (dependency-cruiser). Specs and contract suites are
 * not cruised: they may reach across folders to set up a world.
 */
const SERVER_STACK =
  '^node_modules/(@nestjs/|express/|better-sqlite3/|mongoose/|mongodb/|oidc-provider/|class-validator/|class-transformer/|passport|jwks-rsa/)';

/**
 * The repositories still under storage/repositories/ and the feature that owns each. `alsoReadBy`:
 * the known exceptions, each with its reason; a new reach into another feature's records fails.
 */
const POLICY_READS = 'AccessPolicy decides from everyone\'s records (devices, orgs, memberships, removed-device history)';
const REPOSITORY_OWNERS = {
  users: { owner: 'users', alsoReadBy: {} },
  orgs: { owner: 'orgs', alsoReadBy: { authorization: POLICY_READS, access: 'sharing with an organization checks it exists' } },
  memberships: { owner: 'orgs', alsoReadBy: { authorization: POLICY_READS, users: 'a signed-in principal carries its organization scopes (from its memberships)' } },
  devices: {
    owner: 'devices',
    alsoReadBy: {
      authorization: POLICY_READS,
      registrations: 'approval creates the device record and re-keys it in the same transaction as the request',
      orgs: 'moving devices into and out of an organization, and deleting one, update its devices in one transaction',
      access: 'sharing writes the device\'s share list',
    },
  },
  registrations: { owner: 'registrations', alsoReadBy: { orgs: 'deleting or renaming an organization rejects or moves its pending requests in the same transaction' } },
  revocations: { owner: 'registrations', alsoReadBy: {} },
  audit: { owner: 'audit', alsoReadBy: { authorization: POLICY_READS } },
  deployments: { owner: 'deployments', alsoReadBy: {} },
};

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
      comment: "A repository in a feature folder is that feature's own: other features go through its module or the storage port.",
      severity: 'error',
      from: { path: '^apps/server/src/([^/]+)/' },
      to: { path: '^apps/server/src/[^/]+/.*[.]repository[.]ts$', pathNot: '^apps/server/src/($1|storage)/' },
    },
    ...Object.entries(REPOSITORY_OWNERS).map(([repository, { owner, alsoReadBy }]) => ({
      name: 'no-foreign-repository',
      comment: `storage/repositories/${repository}.repository.ts belongs to ${owner}/ (and its module provides it).`,
      severity: 'error',
      from: { path: '^apps/server/src/', pathNot: `^apps/server/src/(${[owner, 'storage', ...Object.keys(alsoReadBy)].join('|')})/` },
      to: { path: `^apps/server/src/storage/repositories/${repository}[.]repository[.]ts$` },
    })),
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
      extensions: ['.ts', '.js', '.d.ts', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
