import { useHandlerSession } from './handler-session.spec-helper';
import * as http2 from 'node:http2';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeStreamArgs, ExitFrameBody, Frame, FrameDecoder, FrameType, TUNNEL_HEADERS } from '@svc/common';
import { handleShell } from './shell-handler';
import { eventually } from '../../../../test/fixtures/eventually';

/** The shell handler behind a real HTTP/2 session (the runtime's side is the server, as on the tunnel), a real PTY. */
describe('shell handler', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-shell-handler-'));
  const session = useHandlerSession({ shell: handleShell });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers the output still in the terminal when the shell exits while the reader is behind', async () => {
    // The reader does not read: HTTP/2 flow control pauses the PTY after the first ~80 KB, and the
    // rest of the output waits in the kernel's terminal buffer when the command exits.
    const pidFile = join(dir, 'tail.pid');
    const size = 85_000;
    const command = ['/bin/sh', '-c', `echo $$ > ${pidFile}; head -c ${size} /dev/zero | tr '\\0' x; echo END`];
    const request = session.client().request({ ':method': 'POST', ':path': '/v1/shell', [TUNNEL_HEADERS.args]: encodeStreamArgs({ cols: 80, rows: 24, command }), [TUNNEL_HEADERS.requestId]: 'r1' });
    request.end();
    request.pause();
    await eventually('the command to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await eventually('the command to exit', () => !existsSync(`/proc/${pid}`));
    // Longer than the PTY library's 200 ms wait for the terminal's last bytes before it closes it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const { output, exit } = await readToEnd(request);
    expect(exit).toEqual({ exit_code: 0, signal: null, timed_out: false });
    expect(output.split('x').length - 1).toBe(size);
    expect(output).toContain('END');
  });

  it('delivers the whole output of commands that exit at once, read as fast as it comes', async () => {
    // The PTY library saw the end of the terminal as soon as the command hung up and one read came
    // back short, which a PTY's reads always do: 12 of 30 such commands lost their last kilobytes.
    const size = 85_000;
    for (let run = 0; run < 20; run++) {
      const command = ['/bin/sh', '-c', `head -c ${size} /dev/zero | tr '\\0' x; echo END`];
      const request = session.client().request({ ':method': 'POST', ':path': '/v1/shell', [TUNNEL_HEADERS.args]: encodeStreamArgs({ cols: 80, rows: 24, command }), [TUNNEL_HEADERS.requestId]: `r${run}` });
      request.end();
      const { output, exit } = await readToEnd(request);
      expect({ run, exit, xs: output.split('x').length - 1, end: output.includes('END') }).toEqual({ run, exit: { exit_code: 0, signal: null, timed_out: false }, xs: size, end: true });
    }
  });
});

async function readToEnd(request: http2.ClientHttp2Stream): Promise<{ output: string; exit?: ExitFrameBody }> {
  let output = '';
  let exit: ExitFrameBody | undefined;
  const decoder = request.pipe(new FrameDecoder());
  decoder.on('data', (frame: Frame) => {
    if (frame.type === FrameType.STDOUT) output += frame.payload.toString('latin1');
    if (frame.type === FrameType.EXIT) exit = JSON.parse(frame.payload.toString()) as ExitFrameBody;
  });
  await new Promise((resolve) => decoder.on('end', resolve));
  return { output, exit };
}
