import { environmentOf, execStartArgv, parseUnit, splitWords } from './systemd-words';
import { quoteArgument, quoteAssignment, renderUnit } from './systemd-unit';

describe('systemd command lines (systemd.service(5), systemd.syntax(7))', () => {
  it.each([
    ['/bin/echo one two', ['/bin/echo', 'one', 'two']],
    ['/bin/echo "one two" \'three four\'', ['/bin/echo', 'one two', 'three four']],
    ['/bin/echo a"b c"d', ['/bin/echo', 'ab cd']],
    ['/bin/echo "a\\"b" \'it\\\'s\' x\\sy', ['/bin/echo', 'a"b', "it's", 'x y']],
    ['/bin/echo \\x41\\101\\u00e9 "\\t"', ['/bin/echo', 'AAé', '\t']],
    ['  /bin/echo   spaced  ', ['/bin/echo', 'spaced']],
  ])('splits %s', (line, words) => {
    expect(splitWords(line)).toEqual(words);
  });

  it('expands %% and variables the way the man page examples do', () => {
    const environment = { ONE: 'one', TWO: 'two two' };
    expect(execStartArgv('/bin/echo $ONE $TWO ${TWO}', environment)).toEqual(['/bin/echo', 'one', 'two', 'two', 'two two']);
    expect(execStartArgv('/bin/echo "100%% $$ONE" $${ONE}', environment)).toEqual(['/bin/echo', '100% $ONE', '${ONE}']);
    expect(execStartArgv('-/bin/true', {})).toEqual(['/bin/true']);
    expect(execStartArgv(':/bin/echo $ONE', environment)).toEqual(['/bin/echo', '$ONE']);
  });

  it('refuses what it cannot read instead of guessing', () => {
    expect(() => splitWords('/bin/echo "open')).toThrow(/unbalanced/);
    expect(() => splitWords('/bin/echo \\q')).toThrow(/invalid escape/);
    expect(() => execStartArgv('/bin/echo %n', {})).toThrow(/specifier/);
  });

  it('reads back exactly what quoteArgument and quoteAssignment wrote, whatever the characters', () => {
    const awkward = ['/opt/my dir/ca.pem', '100%$HOME"\\', "it's $$ ${X} \\x41 ;", 'https://h:8443/?a=b&c=%41'];
    const unit = parseUnit(renderUnit({ execStart: ['/usr/bin/node', ...awkward], environment: { SVC_CONFIG_DIR: '/var/lib/$vc 100%' } }));
    const environment = environmentOf(unit.get('Service.Environment') ?? []);
    expect(environment).toEqual({ SVC_CONFIG_DIR: '/var/lib/$vc 100%' });
    expect(execStartArgv(unit.get('Service.ExecStart')![0], environment)).toEqual(['/usr/bin/node', ...awkward]);
    expect(quoteAssignment('A', '$x')).toBe('"A=$x"');
    expect(quoteArgument('$x')).toBe('"$$x"');
  });
});
