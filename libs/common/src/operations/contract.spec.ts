import { findOperation, OperationInput, OperationName, RouteInput } from './catalog';
import { httpRequestFor, OperationContract } from './contract';

const op = (name: OperationName) => findOperation(name) as OperationContract;

describe('httpRequestFor: an operation call as the REST request the catalog says', () => {
  it('puts path parameters in the path, URI-encoded', () => {
    const input: OperationInput<'device_access_remove'> = { device: 'pi $& 1', email_or_org_id: 'bob@example.test' };
    expect(httpRequestFor(op('device_access_remove'), input)).toEqual({ method: 'DELETE', path: '/devices/pi%20%24%26%201/access/bob%40example.test', query: [] });
  });

  it('sends the other parameters of a write in the JSON body', () => {
    const input: OperationInput<'device_access_add'> = { device: 'pi-1', email_or_org_id: 'acme', role: 'viewer' };
    expect(httpRequestFor(op('device_access_add'), input)).toEqual({ method: 'POST', path: '/devices/pi-1/access', query: [], body: { email_or_org_id: 'acme', role: 'viewer' } });
  });

  it('sends a read\'s parameters, the route extras included, in the query string', () => {
    const input: RouteInput<'devices_list'> = { limit: 100, status: 'online', cursor: undefined };
    expect(httpRequestFor(op('devices_list'), input)).toEqual({ method: 'GET', path: '/devices', query: [['limit', '100'], ['status', 'online']] });
  });

  it("sends a DELETE's other parameters in the query string: a DELETE carries no body", () => {
    const input: OperationInput<'device_undeploy'> = { device: 'pi-1', job_id: 'web', deployment_id: 'd-1' };
    expect(httpRequestFor(op('device_undeploy'), input)).toEqual({ method: 'DELETE', path: '/devices/pi-1/deployments/jobs/web', query: [['deployment_id', 'd-1']] });
  });

  it('keeps a [Batch] target and lists as JSON in the body', () => {
    const input: OperationInput<'device_exec'> = { devices: ['a', 'b'], command: ['uname', '-a'] };
    expect(httpRequestFor(op('device_exec'), { ...input, stdin: 'x' }).body).toEqual({ devices: ['a', 'b'], command: ['uname', '-a'], stdin: 'x' });
  });

  it('refuses an unknown parameter, a missing required one and an operation without a route', () => {
    expect(() => httpRequestFor(op('org_delete'), { id: 'acme', force: true })).toThrow('org_delete has no parameter force');
    expect(() => httpRequestFor(op('org_members_add'), { org_id: 'acme', email: 'bob@example.test' })).toThrow('org_members_add needs role');
    expect(() => httpRequestFor(op('device_ls'), { path: 'pi:/' })).toThrow('device_ls has no REST route');
  });

  it('types inputs from the catalog (checked by the compiler)', () => {
    // @ts-expect-error role is required
    const missingRole: OperationInput<'org_members_add'> = { org_id: 'acme', email: 'bob@example.test' };
    // @ts-expect-error role takes the tool's role names only
    const badRole: OperationInput<'device_access_add'> = { device: 'pi', email_or_org_id: 'bob@example.test', role: 'owner' };
    // @ts-expect-error paging is the route's, not the tool's
    const toolPaging: OperationInput<'devices_list'> = { limit: 10 };
    const optional: OperationInput<'device_audit_logs'> = { device: 'pi', max: 5 };
    // @ts-expect-error a route without extras takes the operation's parameters only, typed (not any string key)
    const noExtras: RouteInput<'device_deployment_new'> = { device: 'pi', active: 'yes' };
    expect([missingRole, badRole, toolPaging, optional, noExtras]).toHaveLength(5);
  });
});
