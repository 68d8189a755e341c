import { LOGOUT_USAGE, RUN_USAGE, SERVICE_USAGE } from '@svc/runtime';
import { runtimeHelp } from './runtime-help';

const TEXT = `Usage: svc runtime go [options]
       svc runtime stop

Does a thing, then keeps
doing it until told; then
stops.

Options:
  --server <url>             where (SVC_SERVER_URL)
  --pin sha256:<hex>         pinned fingerprint, a long description broken by hand
                             onto a second line
  --very-long-option-name <d>  gap of two
  --again                    a switch

go     goes somewhere, with a long
       continuation.
stop   stops.

Variables: A (default a).
Exit codes: 0 done · 1 failed or
configuration.`;

describe('runtimeHelp (oclif help from the runtime\'s usage text)', () => {
  const help = runtimeHelp('go', TEXT);

  it('takes the usage lines of its own verb, without the command', () => {
    expect(help.usage).toEqual(['[options]']);
    expect(runtimeHelp('stop', TEXT).usage).toEqual(['']);
  });

  it('turns the options into flags, continuation lines joined, a value placeholder as helpValue', () => {
    expect(Object.keys(help.flags)).toEqual(['server', 'pin', 'very-long-option-name', 'again']);
    expect(help.flags.pin).toMatchObject({ type: 'option', helpValue: 'sha256:<hex>', description: 'pinned fingerprint, a long description broken by hand onto a second line' });
    expect(help.flags['very-long-option-name']).toMatchObject({ type: 'option', helpValue: '<d>', description: 'gap of two' });
    expect(help.flags.again).toMatchObject({ type: 'boolean', description: 'a switch' });
  });

  it('joins the lines broken by hand into one line per paragraph, sentence or definition', () => {
    expect(help.description.split('\n')).toEqual([
      'Does a thing, then keeps doing it until told; then stops.',
      '',
      'go: goes somewhere, with a long continuation.',
      'stop: stops.',
      '',
      'Variables: A (default a).',
      'Exit codes: 0 done · 1 failed or configuration.',
    ]);
  });

  it('refuses an option line it does not understand rather than dropping it', () => {
    expect(() => runtimeHelp('go', 'Options:\n  -x  short only')).toThrow("The runtime's option line is not understood");
  });

  it.each([
    ['run', RUN_USAGE],
    ['enable', SERVICE_USAGE],
    ['status', SERVICE_USAGE],
    ['logout', LOGOUT_USAGE],
  ])("reads the runtime's own text for %s: every option a flag, its usage found, no option left in the prose", (verb, text) => {
    const { usage, flags, description } = runtimeHelp(verb, text);
    expect(usage).toHaveLength(1);
    expect(Object.keys(flags)).toEqual([...text.matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((match) => match[1]));
    expect(description).not.toMatch(/^\s*--/m);
  });
});
