import type { ArgumentsHost } from '@nestjs/common';
import { DeviceOfflineError } from '@svc/common';
import { AllExceptionsFilter } from './http-exception.filter';

function host(): { host: ArgumentsHost; sent: { status?: number; body?: unknown } } {
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  return { host: { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost, sent };
}

describe('AllExceptionsFilter logging', () => {
  const filter = new AllExceptionsFilter();
  const logger = (filter as unknown as { logger: { warn: (m: unknown) => void; error: (m: unknown) => void } }).logger;
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('logs a known 5xx condition as one warning line, without a stack', () => {
    const { host: h, sent } = host();
    filter.catch(new DeviceOfflineError(), h);
    expect(sent).toMatchObject({ status: 503, body: { code: 'DEVICE_OFFLINE', message: 'Device is offline' } });
    expect(warn.mock.calls).toEqual([['DEVICE_OFFLINE: Device is offline']]);
    expect(error).not.toHaveBeenCalled();
  });

  it('logs an unexpected error with its stack and answers 500 without details', () => {
    const { host: h, sent } = host();
    const bug = new TypeError('x is undefined');
    filter.catch(bug, h);
    expect(sent).toMatchObject({ status: 500, body: { code: 'INTERNAL', message: 'Internal server error' } });
    expect(error.mock.calls).toEqual([[bug]]);
    expect(warn).not.toHaveBeenCalled();
  });
});
