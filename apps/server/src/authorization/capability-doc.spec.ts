import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPABILITIES, ORG_CAPABILITIES, roleAllows, SERVER_CAPABILITIES } from '@svc/common';
import { BEGIN_MARKER, END_MARKER, renderCapabilityTables, withCapabilityTables } from './capability-doc';

const DOC_FILE = join(__dirname, '..', '..', '..', '..', 'docs', 'security.md');

describe('docs/security.md capability tables', () => {
  const tables = renderCapabilityTables();
  const row = (capability: string) => tables.split('\n').find((line) => line.startsWith(`| \`${capability}\` |`))!;

  it('are up to date with the catalog and roles.ts', () => {
    const onDisk = readFileSync(DOC_FILE, 'utf8');
    if (withCapabilityTables(onDisk) !== onDisk) throw new Error(`${DOC_FILE} is out of date: run \`npm run build && npm run docs:security\` and commit the result`);
  });

  it('has one row per capability of roles.ts', () => {
    for (const capability of [...CAPABILITIES, ...ORG_CAPABILITIES, ...SERVER_CAPABILITIES]) expect(tables.split(`| \`${capability}\` |`)).toHaveLength(2);
  });

  it('marks a viewer exactly where roles.ts lets a viewer (a viewer lists no directories)', () => {
    for (const capability of CAPABILITIES) {
      expect([capability, row(capability).endsWith('| ✓ |')]).toEqual([capability, roleAllows('viewer', capability)]);
    }
    expect(row('device:read-files')).toContain('`device_ls`');
    expect(row('device:read-files').endsWith('|  |')).toBe(true);
  });

  it('lists each operation under the capability its catalog entry names', () => {
    expect(row('device:exec')).toContain('`device_exec`');
    expect(row('org:move-devices')).toContain('`org_devices_add`');
    expect(row('device:own')).toContain('`org_devices_add`');
    expect(row('server:create-orgs')).toContain('`org_create`');
  });

  it('refuses a document without the generated section', () => {
    expect(() => withCapabilityTables('# no tables')).toThrow(/no generated capability section/);
    expect(withCapabilityTables(`a\n${BEGIN_MARKER}\nstale\n${END_MARKER}\nb`)).toBe(`a\n${tables}\nb`);
  });
});
