import { requireBatchTarget } from './operation-runner';

describe('requireBatchTarget', () => {
  it.each([[{ device: 'a' }], [{ devices: ['a', 'b'] }]])('accepts %j', (input) => {
    expect(() => requireBatchTarget(input)).not.toThrow();
  });
  it.each([
    [{ device: 'a', devices: ['b'] }, /either device or devices, not both/],
    [{}, /Give device .* or devices/],
    [{ devices: [] }, /non-empty list/],
    [{ devices: 'a' }, /non-empty list/],
  ])('refuses %j', (input, message) => {
    expect(() => requireBatchTarget(input)).toThrow(message);
  });
});
