import { findOperation, OperationContract, OperationName } from '@svc/common';
import { checkToolInput } from './tool-input';

const op = (name: OperationName) => findOperation(name) as OperationContract;

describe('checkToolInput', () => {
  it.each<[OperationName, unknown, Record<string, unknown>]>([
    ['devices_list', undefined, {}],
    ['devices_list', {}, {}],
    ['device_exec', { device: 'pi', command: ['uname', '-a'] }, { device: 'pi', command: ['uname', '-a'] }],
    ['device_exec', { devices: ['a', 'b'], command: ['true'], timeout_secs: 5 }, { devices: ['a', 'b'], command: ['true'], timeout_secs: 5 }],
    ['device_audit_logs', { device: 'pi', since: null, max: 10 }, { device: 'pi', max: 10 }],
    ['device_access_add', { device: 'pi', email_or_org_id: 'acme', role: 'viewer' }, { device: 'pi', email_or_org_id: 'acme', role: 'viewer' }],
    ['device_sync', { source: './d', dest: 'pi:/d', delete: true, exclude: ['*.tmp'] }, { source: './d', dest: 'pi:/d', delete: true, exclude: ['*.tmp'] }],
  ])('%s accepts %j', (name, args, expected) => {
    expect(checkToolInput(op(name), args)).toEqual(expected);
  });

  it.each<[OperationName, unknown, RegExp]>([
    ['devices_list', [], /takes an object of named parameters/],
    ['devices_list', { status: 'online' }, /devices_list has no parameter status; it takes none/],
    ['org_delete', { id: 'acme', force: true }, /org_delete has no parameter force; it takes id$/],
    ['org_members_add', { org_id: 'acme', email: 'bob@example.test' }, /org_members_add needs role/],
    ['org_members_add', { org_id: 'acme', email: 'bob@example.test', role: 'owner' }, /role must be one of admin, editor, viewer, not "owner"/],
    ['device_exec', { device: 'pi', command: 'uname -a' }, /command must be an array of strings, not "uname -a"/],
    ['device_exec', { device: 'pi', command: ['sleep', 1] }, /command must be an array of strings/],
    ['device_exec', { device: 'pi', command: ['true'], timeout_secs: '30' }, /timeout_secs must be a number, not "30"/],
    ['device_sync', { source: 'a', dest: 'pi:/b', dry_run: 'yes' }, /dry_run must be true or false/],
    ['device_exec', { device: 'pi', devices: ['pi'], command: ['true'] }, /either device or devices, not both/],
    ['device_status', {}, /Give device .* or devices/],
    ['device_exec', { device: 'pi', command: ['x'.repeat(500)], timeout_secs: 'y'.repeat(500) }, /not "y{79}…$/],
  ])('%s refuses %j', (name, args, message) => {
    expect(() => checkToolInput(op(name), args)).toThrow(message);
  });
});
