import { jsonNestsDeeperThan } from './json-depth';

const deeper = (text: string, max = 3) => jsonNestsDeeperThan(Buffer.from(text, 'utf8'), max);

describe('jsonNestsDeeperThan', () => {
  it.each([
    ['{}', false],
    ['{"a":{"b":{"c":1}}}', false],
    ['{"a":{"b":{"c":{}}}}', true],
    ['[[[]]]', false],
    ['[[[[]]]]', true],
    ['[{"a":[1]}]', false],
    ['[{"a":[{}]}]', true],
    ['[[[]],[[]],[[]]]', false],
    ['{"a":"[[[[[[["}', false],
    ['{"a":"\\"[[[[[[["}', false],
    ['{"a":"\\\\"}[[[[[[', true],
    ['{"a":"é{ü[東京[🚀"}', false],
    ['"[[[[[[[[["', false],
    ['{{{{', true],
    ['}}}}]]]][[[', false],
  ])('%s → %s (limit 3)', (text, expected) => {
    expect(deeper(text)).toBe(expected);
  });

  it('scans 5,000 levels without recursion', () => {
    expect(deeper('['.repeat(5000) + ']'.repeat(5000), 32)).toBe(true);
    expect(deeper('['.repeat(32) + ']'.repeat(32), 32)).toBe(false);
  });
});
