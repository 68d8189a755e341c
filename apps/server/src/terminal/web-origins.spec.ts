import { ForbiddenError } from '@svc/common';
import { allowedOrigin } from './web-origins';

describe('allowedOrigin', () => {
  const cases: [string, Record<string, string>, string[], string | null][] = [
    ['own origin, WEB_ORIGINS empty', { origin: 'http://127.0.0.1:8085', host: '127.0.0.1:8085' }, [], 'http://127.0.0.1:8085'],
    ['own origin behind TLS on 443', { origin: 'https://svc.example.com', host: 'svc.example.com' }, [], 'https://svc.example.com'],
    ['case is not significant', { origin: 'HTTPS://SVC.example.com', host: 'svc.EXAMPLE.com' }, [], 'https://svc.example.com'],
    ['another host', { origin: 'https://evil.example', host: 'svc.example.com' }, [], null],
    ['another port', { origin: 'http://127.0.0.1:9999', host: '127.0.0.1:8085' }, [], null],
    ['no Origin', { host: 'svc.example.com' }, [], null],
    ['opaque origin', { origin: 'null', host: 'svc.example.com' }, [], null],
    ['a path is no origin', { origin: 'https://svc.example.com/x', host: 'svc.example.com' }, [], null],
    ['listed in WEB_ORIGINS', { origin: 'https://dash.example.com', host: 'svc.internal:8085' }, ['https://dash.example.com'], 'https://dash.example.com'],
    ['WEB_ORIGINS set: the own origin is not implied', { origin: 'http://svc.internal:8085', host: 'svc.internal:8085' }, ['https://dash.example.com'], null],
  ];
  it.each(cases)('%s', (_name, headers, webOrigins, expected) => {
    if (expected === null) expect(() => allowedOrigin(headers, webOrigins)).toThrow(ForbiddenError);
    else expect(allowedOrigin(headers, webOrigins)).toBe(expected);
  });
});
