import { OPERATIONS } from '@svc/common';
import Deploy from './commands/deploy';
import Docker from './commands/docker';
import Exec from './commands/exec';
import DeploymentsNew from './commands/deployments/new';
import DevicesList from './commands/devices/list';
import DevicesLogs from './commands/devices/logs';
import AccessAdd from './commands/access/add';
import { catalogDefault, catalogOptions } from './catalog-flags';

const param = (operation: string, name: string) => {
  const op = OPERATIONS.find((o) => o.name === operation)!;
  return ({ ...op.params, ...('http' in op ? op.http.extra : {}) } as Record<string, { default?: unknown; enum?: readonly string[] }>)[name];
};

/* Flags that restate a catalog parameter say what the catalog says (catalog-flags.ts). */
describe('flags from the catalog', () => {
  it.each([
    ['exec --timeout', Exec.flags.timeout.default, param('device_exec', 'timeout_secs').default],
    ['docker --timeout', Docker.flags.timeout.default, param('docker_exec', 'timeout_secs').default],
    ['devices logs --max', DevicesLogs.flags.max.default, param('device_audit_logs', 'max').default],
    ['deploy --type', Deploy.flags.type.default, param('device_deploy', 'spec_type').default],
    ['deployments new --active', DeploymentsNew.flags.active.default, param('device_deployment_new', 'active').default],
  ])('%s defaults to the catalog default', (_flag, flagDefault, catalog) => {
    expect(catalog).toBeDefined();
    expect(flagDefault).toBe(catalog);
  });

  it.each([
    ['devices list --status', DevicesList.flags.status.options, param('devices_list', 'status').enum],
    ['deploy --type', Deploy.flags.type.options, param('device_deploy', 'spec_type').enum],
    ['access add --role', AccessAdd.flags.role.options, param('device_access_add', 'role').enum],
  ])('%s offers the catalog values', (_flag, options, values) => {
    expect(values).toBeDefined();
    expect(options).toEqual([...values!]);
  });

  it('refuses a parameter, default or value list the catalog does not have', () => {
    expect(() => catalogOptions('device_exec', 'command')).toThrow('device_exec.command has no allowed values');
    expect(() => catalogDefault('device_exec', 'nope', 'number')).toThrow('device_exec has no parameter nope');
    expect(() => catalogDefault('device_exec', 'command', 'number')).toThrow('device_exec.command has no number default');
  });
});
