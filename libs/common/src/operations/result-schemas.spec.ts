import Ajv from 'ajv';
import type { BatchResult, DeviceListItem, DeviceStatusResult, OperationResults } from './results';
import { OPERATIONS } from './catalog';
import { subRoutes } from './sub-routes';
import { ROUTES } from './routes';

/*
 * Results are written once, as JSON Schema in each catalog entry; the types are inferred from it.
 * Real answers are checked against the schemas in test/catalog-calls.e2e-spec.ts.
 */
describe('result schemas', () => {
  // `binary` is OpenAPI's format for bytes (a file's content).
  const ajv = new Ajv({ strict: true, formats: { 'date-time': true, binary: true } });

  const schemas: [string, object][] = [
    ...OPERATIONS.flatMap((op) => [[op.name, op.result] as [string, object], ...('http' in op && 'alsoAnswers' in op.http ? [[`${op.name} (alsoAnswers)`, op.http.alsoAnswers] as [string, object]] : [])]),
    ...subRoutes().flatMap(({ name, route }) => (route.answer ? [[name, route.answer.schema] as [string, object]] : [])),
    ...Object.entries(ROUTES).map(([name, route]) => [name, route.answer.schema] as [string, object]),
  ];

  it.each(schemas)('%s is a valid JSON Schema', (_name, schema) => {
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('accepts a [Batch] answer per device and refuses fields no schema names', () => {
    const validate = ajv.compile(OPERATIONS.find((op) => op.name === 'device_status')!.result);
    const online: DeviceStatusResult = { status: 'online', health: 'ok', uptime: 5, last_seen: null, carrier: 'quic' };
    const batch: BatchResult<DeviceStatusResult> = { results: [{ device: 'pi', ...online }, { device: 'x', error: 'Device not found', code: 'DEVICE_NOT_FOUND' }] };
    expect([validate(online), validate(batch)]).toEqual([true, true]);
    expect(validate({ ...online, cpu: 3 })).toBe(false);
    expect(validate({ results: [{ device: 'pi', ...online, cpu: 3 }] })).toBe(false);
  });

  it('types the results from the schemas (checked by the compiler)', () => {
    const pending: DeviceListItem = { id: 'r', name: 'pi', status: 'pending', owner: 'user:a@b.test', request_id: 'r', registered_fingerprint: null };
    // @ts-expect-error status takes the schema's values only
    const unknownStatus: DeviceListItem = { id: 'r', name: 'pi', status: 'lost', owner: 'user:a@b.test' };
    // @ts-expect-error a field the schema does not name
    const extra: OperationResults['org_create'] = { status: 'created', id: 'acme' };
    // @ts-expect-error health is required
    const missing: DeviceStatusResult = { status: 'offline', uptime: null, last_seen: null };
    expect([pending, unknownStatus, extra, missing]).toHaveLength(4);
  });
});
