import { errorFromFrame, ErrorAnswer } from './error-answer';

describe('errorFromFrame (a device stream ERROR frame)', () => {
  it.each([
    ['a known code and its message', { code: 'DEVICE_OFFLINE', message: 'gone' }, ['DEVICE_OFFLINE', 'gone', 503]],
    ['a known code without a message', { code: 'FORBIDDEN' }, ['FORBIDDEN', 'fallback', 403]],
    ['an unknown code', { code: 'WHAT', message: 'odd' }, ['INTERNAL', 'odd', 500]],
    ['no object at all', 'garbage', ['INTERNAL', 'fallback', 500]],
  ])('%s', (_what, body, [code, message, status]) => {
    const error = errorFromFrame(body, 'fallback');
    expect(error).toBeInstanceOf(ErrorAnswer);
    expect([error.code, error.message, error.statusCode, error.requestId]).toEqual([code, message, status, undefined]);
  });
});
