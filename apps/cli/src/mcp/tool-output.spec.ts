import { DeviceNotFoundError } from '@svc/common';
import { ErrorAnswer } from '@svc/common';
import { capText, OUTPUT_FIELD_LIMIT_BYTES, plainText, shapeResult, toolError, toolResult } from './tool-output';

describe('plainText: command output for a model', () => {
  it.each([
    ['\u001b[31mred\u001b[0m', 'red'],
    ['\u001b]0;title\u0007text', 'text'],
    ['\u001b[2K\u001b[1Gprogress', 'progress'],
    ['windows\r\nlines\r\n', 'windows\nlines\n'],
    ['10%\r50%\r100%\n', '10%\n50%\n100%\n'],
    ['bell\u0007 back\u0008space nul\u0000 c1\u0085', 'bell backspace nul c1'],
    ['tab\tand\nnewline stay', 'tab\tand\nnewline stay'],
    ['ünïcödé ✓ \u202e', 'ünïcödé ✓ \u202e'],
  ])('%j → %j', (input, expected) => {
    expect(plainText(input)).toBe(expected);
  });
});

describe('capText', () => {
  it('keeps text within the limit as it is', () => {
    expect(capText('x'.repeat(10), 10)).toBe('x'.repeat(10));
  });

  it('keeps the start and says how many bytes were cut', () => {
    expect(capText('abcdefghij', 4)).toBe('abcd\n[... truncated 6 bytes ...]');
  });

  it('never cuts inside a UTF-8 character', () => {
    // "é" is 2 bytes: a cut after 3 bytes would split the second one.
    expect(capText('ééé', 3)).toBe('é\n[... truncated 4 bytes ...]');
  });

  it('caps at 100 KB by default', () => {
    const capped = capText('y'.repeat(OUTPUT_FIELD_LIMIT_BYTES + 5));
    expect(capped).toBe(`${'y'.repeat(100 * 1024)}\n[... truncated 5 bytes ...]`);
  });
});

describe('shapeResult', () => {
  const big = `\u001b[1m${'z'.repeat(OUTPUT_FIELD_LIMIT_BYTES)}tail`;

  it('cleans and caps the output of one device_exec', () => {
    const shaped = shapeResult('device_exec', { output: big, exit_code: 0, timed_out: false }) as { output: string; exit_code: number };
    expect(shaped.output).toBe(`${'z'.repeat(OUTPUT_FIELD_LIMIT_BYTES)}\n[... truncated 4 bytes ...]`);
    expect(shaped.exit_code).toBe(0);
  });

  it('cleans every device of a batch and leaves per-device errors alone', () => {
    const answer = { results: [{ device: 'a', output: '\u001b[32mok\u001b[0m\r\n', exit_code: 0, timed_out: false }, { device: 'b', error: 'Device b is offline', code: 'DEVICE_OFFLINE' }] };
    expect(shapeResult('device_exec', answer)).toEqual({ results: [{ device: 'a', output: 'ok\n', exit_code: 0, timed_out: false }, { device: 'b', error: 'Device b is offline', code: 'DEVICE_OFFLINE' }] });
  });

  it('cleans both streams of docker_exec', () => {
    expect(shapeResult('docker_exec', { stdout: '\u001b[1mNAME\u001b[0m\n', stderr: 'warn\u0007\n', exit_code: 0 })).toEqual({ stdout: 'NAME\n', stderr: 'warn\n', exit_code: 0 });
  });

  it('passes other tools through untouched', () => {
    const entries = [{ name: '\u001b[31mf', is_dir: false }];
    expect(shapeResult('device_ls', entries)).toBe(entries);
  });
});

describe('toolResult', () => {
  it('gives an object as compact JSON text, once (no structuredContent copy)', () => {
    expect(toolResult({ status: 'added', jobs: [{ id: 'web' }] })).toEqual({ content: [{ type: 'text', text: '{"status":"added","jobs":[{"id":"web"}]}' }] });
  });

  it('gives a list as compact JSON text', () => {
    expect(toolResult([{ id: 'acme' }])).toEqual({ content: [{ type: 'text', text: '[{"id":"acme"}]' }] });
  });
});

describe('toolError', () => {
  it.each([
    ['a domain error', new DeviceNotFoundError(), 'DEVICE_NOT_FOUND: Device not found'],
    ['a refusal of the server, without its request id', new ErrorAnswer('FORBIDDEN', 'Viewers cannot run commands', 403, 'req-42'), 'FORBIDDEN: Viewers cannot run commands'],
    ['an offline device, without its request id', new ErrorAnswer('DEVICE_OFFLINE', 'Device is offline', 503, 'req-43'), 'DEVICE_OFFLINE: Device is offline'],
    ['a server fault, with the request id to report', new ErrorAnswer('INTERNAL', 'Internal server error', 500, 'req-44'), 'INTERNAL: Internal server error (request req-44)'],
    ['anything else', new Error('socket hang up'), 'INTERNAL: socket hang up'],
  ])('gives %s as a tool error with its code', (_kind, error, text) => {
    const result = toolError(error);
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text }]);
  });
});
