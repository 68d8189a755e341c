import { useHandlerSession } from './handler-session.spec-helper';
import * as http2 from 'node:http2';
import { readdirSync, readFileSync } from 'node:fs';
import { encodeFrame, encodeStreamArgs, ExitFrameBody, Frame, FrameDecoder, FrameType, stdinEofFrame, TUNNEL_HEADERS } from '@svc/common';
import { handleExec } from './exec-handler';

/**
 * The exec handler behind a real HTTP/2 session (the runtime's side is the HTTP/2 server, as on
 * the tunnel); real processes, real process groups, checked through /proc.
 */
interface ExecOutcome {
  status: number;
  stdout: string;
  stderr: string;
  exit?: ExitFrameBody;
  refusal?: { code: string; message: string };
}

interface ExecDriver {
  /** Called for every frame; may write to the request (stdin frames) or cancel it. */
  onFrame?(frame: Frame, request: http2.ClientHttp2Stream, sofar: ExecOutcome): void;
  stdin?: Buffer[];
  keepRequestOpen?: boolean;
}

describe('exec handler', () => {
  const session = useHandlerSession({ exec: handleExec });
  const { operations } = session;

  function exec(args: Record<string, unknown>, driver: ExecDriver = {}, path = '/v1/exec'): Promise<ExecOutcome> {
    const request = session.client().request({ ':method': 'POST', ':path': path, [TUNNEL_HEADERS.args]: encodeStreamArgs(args), [TUNNEL_HEADERS.requestId]: 'r1' });
    for (const chunk of driver.stdin ?? []) request.write(encodeFrame(FrameType.STDIN, chunk));
    if (driver.stdin) request.write(stdinEofFrame());
    if (!driver.keepRequestOpen) request.end();
    const outcome: ExecOutcome = { status: 0, stdout: '', stderr: '' };
    return new Promise((resolve, reject) => {
      request.on('response', (headers) => {
        outcome.status = Number(headers[':status']);
        if (outcome.status !== 200) {
          let body = '';
          request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          request.on('end', () => resolve({ ...outcome, refusal: JSON.parse(body) }));
          return;
        }
        const decoder = request.pipe(new FrameDecoder());
        decoder.on('data', (frame: Frame) => {
          if (frame.type === FrameType.STDOUT) outcome.stdout += frame.payload.toString();
          if (frame.type === FrameType.STDERR) outcome.stderr += frame.payload.toString();
          if (frame.type === FrameType.EXIT) outcome.exit = JSON.parse(frame.payload.toString());
          driver.onFrame?.(frame, request, outcome);
        });
        decoder.on('end', () => resolve(outcome));
        decoder.on('error', reject);
      });
      request.on('close', () => resolve(outcome));
      request.on('error', reject);
    });
  }

  it('streams stdout and reports exit code 0', async () => {
    const outcome = await exec({ command: ['echo', 'hello', 'world'] });
    expect(outcome).toEqual({ status: 200, stdout: 'hello world\n', stderr: '', exit: { exit_code: 0, signal: null, timed_out: false } });
  });

  it('returns a non-zero exit code as data, with stderr', async () => {
    const outcome = await exec({ command: ['sh', '-c', 'echo oops >&2; exit 3'] });
    expect(outcome).toMatchObject({ status: 200, stderr: 'oops\n', exit: { exit_code: 3, signal: null, timed_out: false } });
  });

  it('passes argv without a shell', async () => {
    const outcome = await exec({ command: ['printf', '%s|', '$HOME', 'a b', '`id`'] });
    expect(outcome.stdout).toBe('$HOME|a b|`id`|');
  });

  it('feeds stdin frames and closes stdin on STDIN_EOF', async () => {
    const outcome = await exec({ command: ['cat'], stdin: true }, { stdin: [Buffer.from('hello '), Buffer.from('world')] });
    expect(outcome).toMatchObject({ stdout: 'hello world', exit: { exit_code: 0 } });
  });

  it('streams output as it is produced (the second line waits for input sent after the first arrived)', async () => {
    const outcome = await exec(
      { command: ['sh', '-c', 'echo first; read line; echo "second $line"'], stdin: true },
      {
        keepRequestOpen: true,
        onFrame(frame, request) {
          if (frame.type === FrameType.STDOUT && frame.payload.toString() === 'first\n') {
            request.write(encodeFrame(FrameType.STDIN, 'go\n'));
            request.end(stdinEofFrame());
          }
        },
      },
    );
    expect(outcome.stdout).toBe('first\nsecond go\n');
  });

  it('applies env and cwd, and does not pass on the runtime API key', async () => {
    process.env.SVC_API_KEY = 'svc_secret_should_not_leak';
    try {
      const outcome = await exec({ command: ['sh', '-c', 'echo "$GREETING:$SVC_API_KEY:$(pwd)"'], env: { GREETING: 'hi' }, cwd: '/tmp' });
      expect(outcome.stdout).toBe('hi::/tmp\n');
    } finally {
      delete process.env.SVC_API_KEY;
    }
  });

  it('kills the whole process tree on timeout', async () => {
    const outcome = await exec({ command: ['sh', '-c', 'echo $$; sleep 100 & sleep 100'], timeout_secs: 0.5 });
    expect(outcome.exit).toEqual({ exit_code: null, signal: 'SIGTERM', timed_out: true });
    await expectGroupGone(Number(outcome.stdout));
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const outcome = await exec({ command: ['sh', '-c', 'trap "" TERM; echo $$; sleep 100 & sleep 100'], timeout_secs: 0.5 });
    expect(outcome.exit).toEqual({ exit_code: null, signal: 'SIGKILL', timed_out: true });
    await expectGroupGone(Number(outcome.stdout));
  });

  it('kills the group when the stream is cancelled', async () => {
    let pgid = 0;
    const outcome = await exec(
      { command: ['sh', '-c', 'echo $$; sleep 100 & sleep 100'] },
      {
        onFrame(frame, request) {
          pgid = Number(frame.payload.toString());
          request.close(http2.constants.NGHTTP2_CANCEL);
        },
      },
    );
    expect(outcome.exit).toBeUndefined();
    await expectGroupGone(pgid);
  });

  it('stops what a finished command left running in its group', async () => {
    const outcome = await exec({ command: ['sh', '-c', 'echo $$; sleep 100 &'] });
    expect(outcome.exit).toEqual({ exit_code: 0, signal: null, timed_out: false });
    await expectGroupGone(Number(outcome.stdout));
  });

  it.each([
    ['an unknown program', { command: ['no-such-program-svc'] }, 404, 'NOT_FOUND', 'Command not found: no-such-program-svc'],
    ['an empty command', { command: [] }, 400, 'INVALID_INPUT', 'command must be a non-empty array of strings (argv; no shell)'],
    ['a string command', { command: 'ls -l' }, 400, 'INVALID_INPUT', 'command must be a non-empty array of strings (argv; no shell)'],
    ['a zero timeout', { command: ['true'], timeout_secs: 0 }, 400, 'INVALID_INPUT', expect.stringContaining('timeout_secs')],
    ['a missing cwd', { command: ['true'], cwd: '/no/such/dir' }, 400, 'INVALID_INPUT', 'cwd /no/such/dir is not a directory'],
    ['an unknown argument', { command: ['true'], shell: true }, 400, 'INVALID_INPUT', 'unknown exec argument shell'],
  ])('refuses %s before running anything', async (_name, args, status, code, message) => {
    const outcome = await exec(args);
    expect(outcome).toMatchObject({ status, refusal: { code, message } });
  });

  it('refuses an operation this runtime does not implement', async () => {
    const outcome = await exec({}, {}, '/v1/docker');
    expect(outcome).toMatchObject({ status: 404, refusal: { code: 'NOT_FOUND', message: 'Operation docker is not supported by this runtime' } });
  });

  it('leaves no zombie and no stray process after 1,000 execs', async () => {
    const before = childrenOf(process.pid);
    const groups: number[] = [];
    const queue = Array.from({ length: 1000 }, (_, i) => i);
    const worker = async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        // Every other command leaves a background process behind in its group.
        const script = i % 2 === 0 ? 'echo $$' : 'echo $$; sleep 60 &';
        const outcome = await exec({ command: ['sh', '-c', script] });
        expect(outcome.exit).toEqual({ exit_code: 0, signal: null, timed_out: false });
        groups.push(Number(outcome.stdout));
      }
    };
    await Promise.all(Array.from({ length: 25 }, worker));
    expect(groups).toHaveLength(1000);
    expect(operations.size).toBe(0);
    for (const pgid of groups) await expectGroupGone(pgid);
    const after = childrenOf(process.pid);
    expect(after.filter((p) => p.state === 'Z')).toEqual([]);
    // Children of earlier tests may still be exiting when `before` is taken; the check is that
    // none were added.
    const earlier = new Set(before.map((p) => p.pid));
    expect(after.filter((p) => !earlier.has(p.pid))).toEqual([]);
    // 1,000 spawns of a shell take 15-20 s on an idle 2-core machine and over a minute when it is
    // loaded: the bound only stops a hang, the count is what the test is about.
  }, 300_000);
});

interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

function processes(): ProcInfo[] {
  const all: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.push({ pid: Number(entry), state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]) });
    } catch {
      // Exited while we looked.
    }
  }
  return all;
}

function childrenOf(pid: number): ProcInfo[] {
  return processes().filter((p) => p.ppid === pid);
}

/** Waits (bounded) until no live process is left in the group; zombies belong to their reaper. */
async function expectGroupGone(pgid: number): Promise<void> {
  expect(pgid).toBeGreaterThan(1);
  const deadline = Date.now() + 10_000;
  let live = processes().filter((p) => p.pgid === pgid && p.state !== 'Z');
  while (live.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    live = processes().filter((p) => p.pgid === pgid && p.state !== 'Z');
  }
  expect(live).toEqual([]);
}
