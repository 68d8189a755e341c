import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CAPABILITIES, Capability, ORG_ROLES, roleAllows } from './roles';

/**
 * docs/security.md's capability table is what operators read: it must say what roles.ts does,
 * cell by cell (one row per capability; columns owner, admin, member / editor, viewer).
 */
const SECURITY_DOC = readFileSync(resolve(__dirname, '../../../docs/security.md'), 'utf8');

function documentedRows(): Map<string, { text: string; cells: boolean[] }> {
  const rows = new Map<string, { text: string; cells: boolean[] }>();
  for (const line of SECURITY_DOC.split('\n')) {
    const match = /^\| `(device:[a-z-]+)`([^|]*)\|(.*)\|\s*$/.exec(line);
    if (match) rows.set(match[1], { text: match[2], cells: match[3].split('|').map((cell) => cell.includes('✓')) });
  }
  return rows;
}

describe('docs/security.md capability table', () => {
  const rows = documentedRows();

  it('has one row per capability', () => {
    expect([...rows.keys()].sort()).toEqual([...CAPABILITIES].sort());
  });

  it.each(CAPABILITIES.filter((c) => c !== 'device:own').map((c) => [c]))('%s: the owner and exactly the roles that hold it are ticked', (capability: Capability) => {
    const [owner, ...roles] = rows.get(capability)!.cells;
    expect([capability, owner, ...roles]).toEqual([capability, true, ...ORG_ROLES.map((role) => roleAllows(role, capability))]);
  });

  it('puts directory listings under device:read-files, which viewers do not hold', () => {
    expect(rows.get('device:read-files')?.text).toContain('directory listings');
    expect(rows.get('device:view')?.text).not.toContain('director');
    expect(roleAllows('viewer', 'device:read-files')).toBe(false);
  });
});
