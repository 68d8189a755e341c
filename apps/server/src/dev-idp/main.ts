/**
 * Standalone development identity provider, used by the test suites and for manual trials:
 *
 *   node apps/server/dist/dev-idp/main.js --port 0 --keys <file> [--audience <aud>]
 *        [--access-token-ttl <seconds>] [--host <address>] [--web-redirect-uri <uri>]... [--exit-on-stdin-end]
 *
 * When ready it prints exactly one JSON line `{"issuer", "audience", "port"}` to stdout; every
 * other message goes to stderr. `--exit-on-stdin-end` makes it stop when its parent goes away.
 */
import { parseArgs } from 'node:util';
import { startDevIdentityProvider } from './dev-identity-provider';

const USAGE = 'usage: main.js --port <n> --keys <file> [--audience <aud>] [--access-token-ttl <s>] [--host <addr>] [--web-redirect-uri <uri>]... [--exit-on-stdin-end]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}, got "${value}"`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        keys: { type: 'string' },
        audience: { type: 'string' },
        'access-token-ttl': { type: 'string' },
        host: { type: 'string' },
        'web-redirect-uri': { type: 'string', multiple: true },
        'exit-on-stdin-end': { type: 'boolean' },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.port === undefined || values.keys === undefined) fail('--port and --keys are required');

  // stdout carries only the ready line; oidc-provider prints its notices with console.info.
  console.log = console.info = console.error;

  const idp = await startDevIdentityProvider({
    port: integer('port', values.port, 0),
    keysFile: values.keys,
    host: values.host,
    webRedirectUris: values['web-redirect-uri'],
    audience: values.audience,
    accessTokenTtlSeconds: values['access-token-ttl'] === undefined ? undefined : integer('access-token-ttl', values['access-token-ttl'], 1),
  });

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    idp.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (values['exit-on-stdin-end']) {
    process.stdin.on('end', stop).on('error', stop).resume();
  }

  process.stdout.write(`${JSON.stringify({ issuer: idp.issuer, audience: idp.audience, port: idp.port })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`dev identity provider failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
