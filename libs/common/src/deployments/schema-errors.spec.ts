import { describeSchemaError, mostTellingSchemaError, type SchemaError, schemaErrorPath, showValue } from './schema-errors';

/** An error as ajv reports it with `verbose: true`, at `instancePath`. */
const error = (instancePath: string, keyword: string, fields: Partial<SchemaError> = {}): SchemaError => ({ instancePath, keyword, params: {}, ...fields });
const YAML_TYPES = { boolean: 'true or false', object: 'a mapping' };

describe('describeSchemaError', () => {
  it.each<[string, SchemaError, { typeNames?: Record<string, string> }, { path: (string | number)[]; message: string }]>([
    ['a missing field', error('', 'required', { params: { missingProperty: 'mode' } }), {}, { path: ['mode'], message: 'required field missing' }],
    [
      'an unknown field, with the known ones',
      error('/jobs/0/steps/1', 'additionalProperties', { params: { additionalProperty: 'retries' }, parentSchema: { properties: { name: {}, run: {} } } }),
      {},
      { path: ['jobs', 0, 'steps', 1, 'retries'], message: 'unknown field (expected one of: name, run)' },
    ],
    ['an unknown field, nothing known', error('/env', 'additionalProperties', { params: { additionalProperty: 'x' } }), {}, { path: ['env', 'x'], message: 'unknown field' }],
    ['a bad property name', error('/env', 'pattern', { propertyName: 'MY-VAR', parentSchema: { description: 'an environment variable name' } }), {}, { path: ['env', 'MY-VAR'], message: '"MY-VAR" is not an environment variable name' }],
    ['a bad property name, no description', error('/files', 'maxLength', { propertyName: 'x' }), {}, { path: ['files', 'x'], message: '"x" is not an allowed name' }],
    ['a wrong type, in the schema\'s words', error('', 'type', { params: { type: 'object' }, data: [1] }), {}, { path: [], message: 'must be object, not a list' }],
    ['a wrong type, in the caller\'s words', error('/jobs/0/enabled', 'type', { params: { type: 'boolean' }, data: 'yes' }), { typeNames: YAML_TYPES }, { path: ['jobs', 0, 'enabled'], message: 'must be true or false, not "yes"' }],
    ['a wrong type with a description', error('/env/A', 'type', { params: { type: 'string' }, data: null, parentSchema: { description: 'a string (without NUL characters)' } }), {}, { path: ['env', 'A'], message: 'null is not a string (without NUL characters)' }],
    ['a value not in the enum', error('/mode', 'enum', { params: { allowedValues: ['merge', 'replace'] }, data: 'upsert' }), {}, { path: ['mode'], message: '"upsert" is not one of merge, replace' }],
    ['no form of an anyOf', error('/run', 'anyOf', { data: [], parentSchema: { description: 'a command' } }), {}, { path: ['run'], message: 'must be a command' }],
    ['no form of an anyOf, no description', error('/run', 'anyOf', { data: [] }), {}, { path: ['run'], message: 'matches none of the allowed forms' }],
    ['too few items', error('/jobs', 'minItems', { data: [], parentSchema: { description: 'at least one job' } }), {}, { path: ['jobs'], message: 'must have at least one job' }],
    ['too few items, no description', error('/jobs', 'minItems', { data: [], message: 'must NOT have fewer than 1 items' }), {}, { path: ['jobs'], message: 'must NOT have fewer than 1 items' }],
    ['a pattern with a description', error('/jobs/0/steps/0/timeout', 'pattern', { data: '10 minutes', parentSchema: { description: 'a duration (Ns, Nm or Nh)' } }), {}, { path: ['jobs', 0, 'steps', 0, 'timeout'], message: '"10 minutes" is not a duration (Ns, Nm or Nh)' }],
    ['a bound, with the scalar', error('/retry/attempts', 'maximum', { data: 1000, message: 'must be <= 100' }), {}, { path: ['retry', 'attempts'], message: 'must be <= 100, not 1000' }],
    ['a bound on a mapping, without it', error('/env', 'maxProperties', { data: { a: 1 }, message: 'must NOT have more than 0 properties' }), {}, { path: ['env'], message: 'must NOT have more than 0 properties' }],
    ['no message at all', error('/x', 'custom'), {}, { path: ['x'], message: 'is not valid' }],
  ])('%s', (_, schemaError, options, expected) => {
    expect(describeSchemaError(schemaError, options)).toEqual(expected);
  });
});

describe('schemaErrorPath', () => {
  it.each<[string, (string | number)[]]>([
    ['', []],
    ['/jobs/0/steps/12/timeout', ['jobs', 0, 'steps', 12, 'timeout']],
    ['/files/a~1b~0c', ['files', 'a/b~c']],
    ['/files/01', ['files', '01']],
    ['/env/', ['env', '']],
  ])('%j', (instancePath, path) => {
    expect(schemaErrorPath({ instancePath })).toEqual(path);
  });
});

describe('mostTellingSchemaError', () => {
  it.each<[string, string[], number]>([
    ['the last error', ['type'], 0],
    ['the cause of an if/then failure', ['minItems', 'if'], 0],
    ['the cause of a propertyNames failure', ['required', 'pattern', 'propertyNames'], 1],
    ['a lone if', ['if'], 0],
  ])('%s', (_, keywords, index) => {
    const errors = keywords.map((keyword) => error('', keyword));
    expect(mostTellingSchemaError(errors)).toBe(errors[index]);
  });
});

describe('showValue', () => {
  it.each<[unknown, string]>([
    [undefined, 'nothing'],
    [null, 'null'],
    [30, '30'],
    [false, 'false'],
    ['yes', '"yes"'],
    [[1], 'a list'],
    [{ a: 1 }, 'a mapping'],
    ['web\u001b[2J\u0085\u202e', '"web\\u001b[2J\\u0085\\u202e"'],
    ['y'.repeat(100), `"${'y'.repeat(59)}…`],
  ])('%j → %s', (value, shown) => {
    expect(showValue(value)).toBe(shown);
  });
});
