/**
 * `svc runtime run --help` and `svc runtime enable --help` as a person reads them: the real binary
 * in a real terminal 80 and 200 columns wide. Nothing goes past the edge, every option is a flag
 * whose wrapped description hangs under its own column, and no line broken by hand in the
 * runtime's text comes out as a ragged one. No server is needed.
 */
import { RUN_USAGE } from '@svc/runtime';
import { cliHome, CliHome, svcInTerminal } from './fixtures/svc-cli';

/** The sections of oclif's help, by heading, each as its lines. */
function sections(output: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  let current = 'TOP';
  for (const line of output.replace(/\r/g, '').split('\n')) {
    if (/^[A-Z]+$/.test(line)) current = line;
    else (found[current] ??= []).push(line);
  }
  return found;
}

describe('svc runtime help layout (real binary, real terminal)', () => {
  let home: CliHome;
  beforeAll(() => {
    home = cliHome({ url: 'http://127.0.0.1:1' });
  });
  afterAll(() => home.remove());

  const help = async (verb: string, cols: number) => {
    const { code, output } = await svcInTerminal(home, ['runtime', verb, '--help'], { cols });
    expect(code).toBe(0);
    const lines = output.replace(/\r/g, '').split('\n');
    expect(lines.filter((line) => line.length > cols)).toEqual([]);
    return sections(output);
  };

  it.each([80, 200])('run at %i columns: every option of the runtime a flag, continuations hanging under the descriptions', async (cols) => {
    const { FLAGS, DESCRIPTION } = await help('run', cols);
    const options = [...RUN_USAGE.matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((match) => match[1]);
    const flagLines = FLAGS.filter((line) => /^ {2}--/.test(line));
    expect(flagLines.map((line) => /^ {2}--([a-z0-9-]+)/.exec(line)![1])).toEqual(options);
    const column = /^ {2}--\S+\s+/.exec(flagLines[0])![0].length;
    for (const line of FLAGS.filter((line) => line.trim() !== '' && !/^ {2}--/.test(line))) expect([line, line.length - line.trimStart().length]).toEqual([line, column]);
    const owner = FLAGS.slice(FLAGS.findIndex((line) => line.startsWith('  --owner='))).join(' ');
    expect(owner).toMatch(/--owner=<scope>\s+owner to request: user:<email> or org:<org_id>\s+\(OWNER_REFERENCE\)/);
    if (cols === 200) expect(flagLines.find((line) => line.startsWith('  --owner='))).toContain('(OWNER_REFERENCE)');
    expect(DESCRIPTION.filter((line) => /^\s*(--|\()/.test(line))).toEqual([]);
  });

  it.each([80, 200])('enable at %i columns: the runtime\'s lines broken by hand are joined, its usage is its own', async (cols) => {
    const { USAGE, DESCRIPTION } = await help('enable', cols);
    expect(USAGE.filter((line) => line.trim() !== '')).toEqual([expect.stringMatching(/^ {2}\$ svc runtime enable \[run options\]/)]);
    if (cols !== 200) return;
    // A line that continues the one before it (each definition starts with its term) must be
    // oclif's wrap at the terminal's width: its first word would not have fit on the line before.
    // A line broken by hand leaves room there.
    expect(DESCRIPTION.join('\n')).toMatch(/enable: installs svc-runtime\.service \(a systemd unit running "svc runtime run" with the options given here\), then/);
    const ragged = DESCRIPTION.filter((line, index) => {
      if (!/^ {2}[a-z(]/.test(line) || /^ {2}(enable|disable|status):/.test(line)) return false;
      const previous = DESCRIPTION[index - 1] ?? '';
      return previous.trim() === '' || previous.length + 1 + line.trim().split(' ')[0].length <= cols;
    });
    expect(ragged).toEqual([]);
  });
});
