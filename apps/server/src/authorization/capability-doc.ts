import {
  AnyCapability,
  CAPABILITIES,
  capabilitiesOf,
  CatalogRouteSpec,
  grantAllows,
  ORG_CAPABILITIES,
  OPERATIONS,
  OrgRelation,
  relationAllows,
  ROUTES,
  SERVER_CAPABILITIES,
  serverAllows,
} from '@svc/common';

/**
 * The capability tables of docs/security.md, generated from the operation catalog (which
 * capability each operation needs) and roles.ts (who holds it), so the documentation cannot drift
 * from what AccessPolicy enforces; capability-doc.spec.ts fails when the file is stale.
 */

export const BEGIN_MARKER = '<!-- capability tables: generated from libs/common (operations/, roles.ts) by `npm run docs:security`; do not edit -->';
export const END_MARKER = '<!-- end of the generated capability tables -->';

/** What needs a capability beyond the catalog's operations: AccessPolicy's own uses of it. */
const BEYOND_THE_CATALOG: Partial<Record<AnyCapability, string>> = {
  'device:exec': '`svc shell`',
  'device:deploy': "job logs; reading deployments' environment values, file contents and log tails",
  'device:manage': 're-key (approve a re-registration with the same key)',
  'device:own': 'approve a key change or a new owner on re-registration',
  'org:view': 'leave it (any member but the owner)',
};

function usesOf(capability: AnyCapability): string {
  const operations = OPERATIONS.filter((op) => capabilitiesOf(op).includes(capability)).map((op) => `\`${op.name}\``);
  const routes = Object.values(ROUTES as Record<string, CatalogRouteSpec>).filter((route) => typeof route.access === 'object' && route.access.server === capability).map((route) => `\`${route.method} ${route.path}\``);
  const beyond = BEYOND_THE_CATALOG[capability];
  return [...operations, ...routes, ...(beyond ? [beyond] : [])].join(', ');
}

const mark = (allowed: boolean) => (allowed ? '✓' : '');

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)];
}

const DEVICE_HOLDERS = [
  ['owner', { role: 'admin', owner: true }],
  ['admin', { role: 'admin', owner: false }],
  ['member / editor', { role: 'member', owner: false }],
  ['viewer', { role: 'viewer', owner: false }],
] as const;

const ORG_HOLDERS: readonly [string, OrgRelation][] = [
  ['owner', 'owner'],
  ['admin', 'admin'],
  ['member / editor', 'member'],
  ['viewer', 'viewer'],
  ['server admin (not a member)', 'server-admin'],
];

export function renderCapabilityTables(): string {
  const device = table(
    ['Device capability', 'Needed by', ...DEVICE_HOLDERS.map(([name]) => name)],
    CAPABILITIES.map((c) => [`\`${c}\``, usesOf(c), ...DEVICE_HOLDERS.map(([, grant]) => mark(grantAllows(grant, c)))]),
  );
  const org = table(
    ['Organization capability', 'Needed by', ...ORG_HOLDERS.map(([name]) => name)],
    ORG_CAPABILITIES.map((c) => [`\`${c}\``, usesOf(c), ...ORG_HOLDERS.map(([, relation]) => mark(relationAllows(relation, c)))]),
  );
  const server = table(
    ['Server capability', 'Needed by', 'server admin', 'anyone else'],
    SERVER_CAPABILITIES.map((c) => [`\`${c}\``, usesOf(c), mark(serverAllows(true, c)), mark(serverAllows(false, c))]),
  );
  const open = OPERATIONS.filter((op) => capabilitiesOf(op).length === 0).map((op) => `\`${op.name}\``);
  return [
    BEGIN_MARKER,
    ...device,
    '',
    ...org,
    '',
    ...server,
    '',
    `Any signed-in user: ${open.join(', ')} (their answers hold only what the caller may see, or they work on the caller's machine).`,
    END_MARKER,
  ].join('\n');
}

/** `doc` with its generated section replaced by the current tables. */
export function withCapabilityTables(doc: string): string {
  const start = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/security.md has no generated capability section (${BEGIN_MARKER} … ${END_MARKER})`);
  return doc.slice(0, start) + renderCapabilityTables() + doc.slice(end + END_MARKER.length);
}
