import type { Flag } from '@oclif/core/interfaces';
import { LIMITS } from '@svc/common';
import { bindingOf, catalogParam, integerBounds, integerFlag, paramArg, paramFlag, stringFlag } from './catalog-flags';

type Shape = Flag<unknown> & { type: string; default?: unknown; options?: readonly string[]; min?: number; max?: number; multiple?: boolean; required?: boolean };
const shape = (flag: object) => flag as Shape;

/* A flag or argument made from a catalog parameter takes what the parameter accepts; the command keeps its words. */
describe('flags from the catalog', () => {
  it.each([
    ['a string with allowed values and a default', 'device_deploy', 'spec_type', { type: 'option', default: 'auto', options: ['auto', 'compose', 'runspec', 'deployment'] }],
    ['a required string', 'org_members_add', 'role', { type: 'option', required: true, options: ['admin', 'editor', 'viewer'] }],
    ['a list', 'device_sync', 'exclude', { type: 'option', multiple: true }],
    ['a boolean with its default', 'device_sync', 'dry_run', { type: 'boolean', default: false }],
    ['a whole number: the catalog\'s bounds and default', 'device_audit_logs', 'max', { type: 'option', default: LIMITS.auditLogsDefaultMax, min: 1, max: LIMITS.auditLogsMaxMax }],
    ['any number above 0 up to a day: whole numbers from 1, the maximum left to the server', 'device_exec', 'timeout_secs', { type: 'option', default: 30, min: 1 }],
  ] as const)('%s', (_what, source, param, expected) => {
    const flag = shape(paramFlag(source, param));
    expect(flag).toMatchObject(expected);
    if (param === 'timeout_secs') expect(flag.max).toBeUndefined();
    expect(flag.description).toBe(catalogParam(source, param).description);
    expect(bindingOf(flag)).toEqual({ source, param, spec: catalogParam(source, param) });
  });

  it('keeps the command\'s own words and spelling, not what the parameter accepts', () => {
    const flag = shape(stringFlag('device_deploy', 'spec_type', { description: 'what the file is', aliases: ['spec-type'] }));
    expect(flag).toMatchObject({ description: 'what the file is', aliases: ['spec-type'], default: 'auto' });
    expect(paramArg('org_update', 'new_id', { name: 'new-id' })).toMatchObject({ name: 'new-id', required: true, description: 'new organization id' });
    expect(paramArg('device_status', 'device').required).toBeUndefined();
  });

  it('reads a route of an operation\'s routes as well', () => {
    expect(shape(integerFlag('device_deploy.job_logs', 'tail'))).toMatchObject({ default: 100, min: 0, max: 10_000 });
    expect(integerBounds({ type: 'number', required: false, description: 'x', minimum: 0.5 })).toEqual({ min: 1 });
  });

  it('refuses a parameter the catalog does not have, or of another type', () => {
    expect(() => paramFlag('device_exec', 'nope')).toThrow('device_exec has no parameter nope');
    expect(() => paramFlag('device_nope' as 'device_exec', 'x')).toThrow('device_nope is no operation or route of the catalog');
    expect(() => stringFlag('device_exec', 'timeout_secs')).toThrow('device_exec.timeout_secs is a number, not a string');
    expect(() => integerFlag('devices_list', 'limit')).toThrow('devices_list.limit has no default');
  });
});
