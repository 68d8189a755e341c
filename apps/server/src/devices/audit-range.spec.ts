import { parseAuditRange } from './audit-range';

const since = (value: string) => parseAuditRange({ since: value }).since?.toISOString();

describe('parseAuditRange', () => {
  it.each([
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
    ['0099-12-31', '0099-12-31T00:00:00.000Z'],
    ['2024-12-31T23:59', '2024-12-31T23:59:00.000Z'],
    ['2024-12-31T23:59:59', '2024-12-31T23:59:59.000Z'],
    ['2024-12-31T23:59:59.5', '2024-12-31T23:59:59.500Z'],
    ['2024-12-31T23:59:59.123456789Z', '2024-12-31T23:59:59.123Z'],
    ['2024-06-01T12:00:00+05:30', '2024-06-01T06:30:00.000Z'],
    ['2024-06-01T12:00:00-0700', '2024-06-01T19:00:00.000Z'],
    ['2024-01-01T00:30-01:00', '2024-01-01T01:30:00.000Z'],
    ['2024-01-01T00:00+23:59', '2023-12-31T00:01:00.000Z'],
  ])('reads %s as %s', (value, iso) => {
    expect(since(value)).toBe(iso);
  });

  it.each([
    '2024-02-30', '2023-02-29', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-32',
    '2024-01-01T24:00', '2024-01-01T10:60', '2024-01-01T10:00:60', '2024-01-01T10:00+24:00', '2024-01-01T10:00+05:60',
    '2024-1-01', '24-01-01', '2024-01-01 10:00', '2024-01-01T10', '2024-01-01T10:00:00.', '2024-01-01Z', '+002024-01-01',
    '2024-01-01T10:00:00.1234567890Z', '2024-01-01t10:00Z', '2024-01-01T10:00z', '', ' 2024-01-01', '2024-01-01\n', 'yesterday', '1714550400',
  ])('refuses %j', (value) => {
    expect(() => since(value)).toThrow(/^since must be an ISO 8601 timestamp/);
    expect(() => parseAuditRange({ until: value })).toThrow(/^until must be an ISO 8601 timestamp/);
  });

  it('checks the order of since and until, and defaults max (its bounds are checked by the catalog schema)', () => {
    expect(() => parseAuditRange({ since: '2024-01-02', until: '2024-01-01' })).toThrow('since must be before until');
    expect(() => parseAuditRange({ since: '2024-01-01', until: '2024-01-01' })).toThrow('since must be before until');
    expect(parseAuditRange({}).max).toBe(100);
    expect(parseAuditRange({ max: 1000 }).max).toBe(1000);
  });
});
