import { errorFromAnswer } from './error-answer';

describe('errorFromAnswer', () => {
  const svcBody = (code: string, message: string) => JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message, code, requestId: 'req-1' });

  it.each([
    ['svc says the device is offline', 503, svcBody('DEVICE_OFFLINE', 'Device is offline'), 'DEVICE_OFFLINE', 'Device is offline', 'req-1'],
    ['svc says not found (parsed already)', 404, { code: 'DEVICE_NOT_FOUND', message: 'Device not found' }, 'DEVICE_NOT_FOUND', 'Device not found', undefined],
    ['svc as bytes', 403, Buffer.from(svcBody('FORBIDDEN', 'Access denied')), 'FORBIDDEN', 'Access denied', 'req-1'],
    ['nginx 502 page', 502, '<html><h1>502 Bad Gateway</h1></html>', 'BAD_GATEWAY', /proxy .* HTTP 502 \(Bad Gateway\)/, undefined],
    ['a load balancer 503 in JSON of its own', 503, '{"message":"no healthy upstream"}', 'BAD_GATEWAY', /HTTP 503 \(Service Unavailable\)/, undefined],
    ['a gateway timeout without a body', 504, '', 'BAD_GATEWAY', /HTTP 504 \(Gateway Timeout\)/, undefined],
    ['an unknown code is not svc', 503, '{"code":"toString","message":"x"}', 'BAD_GATEWAY', /proxy/, undefined],
    ['another 404 page', 404, '<html>Not Found</html>', 'NOT_FOUND', 'The server answered HTTP 404, not with an svc error answer', undefined],
    ['a 500 without a body', 500, undefined, 'INTERNAL', 'The server answered HTTP 500, not with an svc error answer', undefined],
  ])('%s', (_name, status, body, code, message, requestId) => {
    const error = errorFromAnswer(status, body);
    expect(error.code).toBe(code);
    expect(error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    expect(error.statusCode).toBe(status);
    expect(error.requestId).toBe(requestId);
  });
});
