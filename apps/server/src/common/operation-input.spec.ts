import { findOperation, OperationContract, OperationName } from '@svc/common';
import { operationInput, RouteRequest } from './operation-input';

const op = (name: OperationName) => findOperation(name) as OperationContract;
const request = (parts: Partial<RouteRequest>): RouteRequest => ({ params: {}, query: {}, ...parts });
const refusal = (name: OperationName, parts: Partial<RouteRequest>) => {
  try {
    operationInput(op(name), request(parts));
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return 'accepted';
};

/* The server's check of a catalog route's input against the catalog's schema (OperationGuard runs it). */
describe('operationInput', () => {
  it('merges path, query and body into the operation input, each where the catalog says it travels', () => {
    expect(operationInput(op('device_access_add'), request({ params: { device: 'pi' }, body: { email_or_org_id: 'acme', role: 'viewer' } }))).toEqual({
      device: 'pi',
      email_or_org_id: 'acme',
      role: 'viewer',
    });
    expect(operationInput(op('device_deployment_show'), request({ params: { device: 'pi' }, query: { deployment_id: 'd-1' } }))).toEqual({ device: 'pi', deployment_id: 'd-1' });
  });

  it('reads numbers from the query string strictly: plain decimals only', () => {
    expect(operationInput(op('devices_list'), request({ query: { limit: '10', status: 'online' } }))).toEqual({ limit: 10, status: 'online' });
    for (const limit of ['0x10', '1e3', ' 7', '1.5', '0', '1001', ['1', '2']]) {
      expect([limit, refusal('devices_list', { query: { limit } })]).toEqual([limit, 'INVALID_INPUT: limit must be a whole number between 1 and 1000']);
    }
  });

  it('refuses unknown fields, fields where they do not travel and prototype keys, naming each', () => {
    expect(refusal('devices_list', { query: { sort: 'name' } })).toBe('INVALID_INPUT: unknown field sort');
    expect(refusal('device_status', { query: { device: 'pi' }, body: { device: 'pi' } })).toBe('INVALID_INPUT: unknown field device');
    expect(refusal('device_status', { body: JSON.parse('{"device":"pi","__proto__":{"x":1}}') })).toBe('INVALID_INPUT: unknown field __proto__');
    expect(refusal('org_create', { body: { id: 5, extra: 1 } })).toBe('INVALID_INPUT: email is required; unknown field extra; id must be a string');
  });

  it('wants a JSON object as the body of a write, and takes no body as an empty one', () => {
    expect(refusal('org_create', { body: [{ id: 'acme', email: 'a@b.test' }] })).toBe('INVALID_INPUT: Request body must be a JSON object');
    expect(refusal('org_create', { body: 'text' })).toBe('INVALID_INPUT: Request body must be a JSON object');
    expect(refusal('org_create', {})).toBe('INVALID_INPUT: id is required; email is required');
  });

  it("keeps devices_approve's request_id as the alternative to device", () => {
    expect(operationInput(op('devices_approve'), request({ body: { request_id: 'req_1' } }))).toEqual({ request_id: 'req_1' });
    expect(refusal('devices_approve', { body: {} })).toBe('INVALID_INPUT: Give exactly one of device or request_id');
  });
});
