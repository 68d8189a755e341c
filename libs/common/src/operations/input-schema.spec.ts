import Ajv from 'ajv';
import { findOperation, OperationName } from './catalog';
import { OperationContract, ParamSpec } from './contract';
import { ROUTE_INPUTS } from './route-inputs';
import { inputProblems, inputSchema, routeInputSchema, routeParams } from './input-schema';

const op = (name: OperationName) => findOperation(name) as OperationContract;
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });

/** What the server would say about `input` on the operation's route. */
function problems(name: OperationName, input: Record<string, unknown>): string[] {
  const validate = ajv.compile(routeInputSchema(op(name)));
  return validate(input) ? [] : inputProblems(routeParams(op(name)), validate.errors ?? [], op(name).http?.either);
}

describe('inputSchema: the parameters of a catalog entry as JSON Schema', () => {
  it("is the tool's schema without limits: type, allowed values, default (what svc mcp lists, as tools.md)", () => {
    expect(inputSchema(op('device_exec').params)).toEqual({
      type: 'object',
      properties: {
        device: { type: 'string', description: 'device name or id (exclusive with devices)' },
        devices: { type: 'array', items: { type: 'string' }, description: 'device names or ids (exclusive with device)' },
        command: { type: 'array', items: { type: 'string' }, description: 'command and arguments' },
        timeout_secs: { type: 'number', description: 'timeout in seconds', default: 30 },
      },
      required: ['command'],
      additionalProperties: false,
    });
  });

  it("adds the route's extras and the limits the server enforces", () => {
    const schema = routeInputSchema(op('devices_list')) as { properties: Record<string, unknown> };
    expect(schema.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    const exec = routeInputSchema(op('device_exec')) as { properties: Record<string, unknown> };
    expect(exec.properties.devices).toMatchObject({ minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 256 } });
    expect(exec.properties.stdin).toMatchObject({ type: 'string' });
  });
});

describe('inputProblems: one line per parameter at fault', () => {
  it.each<[OperationName, Record<string, unknown>, string[]]>([
    ['org_delete', { id: 'acme', force: true }, ['unknown field force']],
    ['device_access_add', { device: 'pi', email_or_org_id: 'bob@example.test' }, ['role must be one of admin, editor, viewer']],
    ['device_access_add', { device: 'pi', email_or_org_id: 5, role: 'owner' }, ['email_or_org_id must be a string', 'role must be one of admin, editor, viewer']],
    ['devices_list', { limit: 0 }, ['limit must be a whole number between 1 and 1000']],
    ['devices_list', { limit: '0x10' }, ['limit must be a whole number between 1 and 1000']],
    ['device_deployment_rm', { device: 'pi', deployment_id: 'bad id' }, ['deployment_id must be a deployment id (1-128 of A-Z a-z 0-9 _ . -)']],
    ['device_status', { devices: [] }, ['devices must not be empty']],
    ['device_status', { devices: Array.from({ length: 101 }, (_, i) => `d-${i}`) }, ['devices may name at most 100 items']],
    ['device_status', { devices: ['pi', 1] }, ['devices must be an array of strings']],
    ['device_exec', { device: 'pi', command: ['true'], timeout_secs: 0 }, ['timeout_secs must be more than 0 and at most 86400']],
    ['devices_approve', {}, ['Give exactly one of device or request_id']],
    ['devices_approve', { device: 'r', request_id: 'r' }, ['Give exactly one of device or request_id']],
    ['devices_approve', { request_id: 'req_1' }, []],
    ['devices_list', { status: 'gone', name: '' }, ['status must be one of online, offline, pending', 'name must not be empty']],
    ['device_audit_logs', { device: 'pi', max: 1001 }, ['max must be a whole number between 1 and 1000']],
    ['device_audit_logs', { device: 'pi', max: 1.5 }, ['max must be a whole number between 1 and 1000']],
  ])('%s %j', (name, input, expected) => {
    expect(problems(name, input)).toEqual(expected);
  });

  it("echoes a wrong value back, short, when the validator hands it over (svc mcp's)", () => {
    const verbose = new Ajv({ verbose: true, strict: true }).compile(inputSchema(op('device_exec').params));
    expect(verbose({ device: 'pi', command: 'uname -a' })).toBe(false);
    expect(inputProblems(op('device_exec').params, verbose.errors ?? [])).toEqual(['command must be an array of strings, not "uname -a"']);
  });
});

describe('nested fields (ROUTE_INPUTS): named by their path', () => {
  const params: Record<string, ParamSpec> = ROUTE_INPUTS.registration_request;
  const check = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(inputSchema(params, { limits: true }));
  const good = { device_info: { hostname: 'h', platform: 'p', architecture: 'a', os_version: 'o' }, owner_scope: 'user:a@b.test', device_id: 'd-1', public_key: 'A'.repeat(43) };
  const problemsOf = (input: unknown) => (check(input) ? [] : inputProblems(params, check.errors ?? []));

  it.each<[string, unknown, string[]]>([
    ['a good request', good, []],
    ['an unknown nested field', { ...good, device_info: { ...good.device_info, kernel: '6' } }, ['unknown field device_info.kernel']],
    ['a missing nested field', { ...good, device_info: { ...good.device_info, hostname: undefined } }, ['device_info.hostname is required']],
    ['a control character', { ...good, device_info: { ...good.device_info, platform: 'a\u001b[31m' } }, ['device_info.platform must not contain control, formatting or invisible characters']],
    ['no device_info', { ...good, device_info: undefined }, ['device_info is required']],
    ['device_info not an object', { ...good, device_info: 'x' }, ['device_info must be an object']],
    ['a public key whose last character carries bits beyond 32 bytes', { ...good, public_key: 'B'.repeat(43) }, ['public_key must be base64url (no padding) of a 32-byte Ed25519 public key']],
  ])('%s', (_name, input, expected) => {
    expect(problemsOf(JSON.parse(JSON.stringify(input)))).toEqual(expected);
  });
});
