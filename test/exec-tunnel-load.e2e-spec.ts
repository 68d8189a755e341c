/**
 * A steady stream of execs must not drop the device's tunnel. The runtime's HTTP/2 stack
 * (nghttp2) treats a peer that resets many streams as a rapid-reset attack (a burst of 1,000,
 * then 33 per second) and sends GOAWAY; every exec that closed its stream with RST_STREAM after
 * a normal end counted toward that, and so did every stream the device refused. 5,000 sequential
 * execs, then 2,000 with 200 in flight, then 2,000 refused ones (a program the device does not
 * have), over each carrier: each answers as it should, and the runtime never reconnects.
 */
import { Agent, request } from 'node:http';
import type { Caller } from './fixtures/api-client';
import { useFleet } from './fixtures/fleet';
import type { RuntimeProcess } from './fixtures/runtime-process';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@exec-load.test';
const SEQUENTIAL = 5_000;
const CONCURRENT = 2_000;
const IN_FLIGHT = 200;

jest.setTimeout(20 * 60_000);

describe.each(['tcp', 'quic'] as const)('a steady stream of execs over %s', (carrier) => {
  // The load goes through REST with a keep-alive agent, as a script's would.
  const fleet = useFleet({ users: { alice: ALICE }, devices: { 'load-1': { owner: 'alice', runtime: true } }, carrier });
  let server: TestServer;
  let alice: Caller;
  let runtime: RuntimeProcess;
  let agent: Agent;

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
    runtime = fleet.device('load-1').runtime!;
    agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  });
  afterAll(() => {
    agent?.destroy();
  });

  /** POST /api/exec on load-1: the HTTP status and the exit code (or error code) it answered. */
  function exec(program: string): Promise<{ status: number; exit_code?: number; code?: string }> {
    const body = JSON.stringify({ device: 'load-1', command: [program] });
    return new Promise((resolve, reject) => {
      const req = request(`${server.url}/api/exec`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.once('error', reject);
      req.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.once('end', () => {
          let answer: { exit_code?: number; code?: string } = {};
          try {
            answer = JSON.parse(text) as { exit_code?: number; code?: string };
          } catch {
            // The status says enough.
          }
          resolve({ status: res.statusCode ?? 0, exit_code: answer.exit_code, code: answer.code });
        });
      });
      req.end(body);
    });
  }

  function tunnelsUp(): number {
    return runtime.stderr.filter((line) => line.includes('"msg":"tunnel up"')).length;
  }

  /** Runs `count` execs, IN_FLIGHT at once, adding what went wrong to `failures`; answers the rate per second. */
  async function concurrently(count: number, first: number, refused: boolean, failures: string[]): Promise<number> {
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < count && failures.length === 0) {
        const index = first + next++;
        check(failures, index, await exec(refused ? '/nonexistent/program' : 'true'), refused);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return Math.round((count * 1000) / (Date.now() - started));
  }

  function check(failures: string[], index: number, answer: { status: number; exit_code?: number; code?: string }, refused: boolean): void {
    const expected = refused ? answer.status === 404 && answer.code === 'NOT_FOUND' : answer.status === 200 && answer.exit_code === 0;
    if (!expected) failures.push(`exec #${index}: HTTP ${answer.status}, exit ${answer.exit_code}, code ${answer.code}`);
  }

  it(`answers ${SEQUENTIAL} sequential execs, then ${CONCURRENT} with ${IN_FLIGHT} in flight, without dropping the tunnel`, async () => {
    const failures: string[] = [];
    const started = Date.now();
    for (let i = 1; i <= SEQUENTIAL && failures.length === 0; i++) check(failures, i, await exec('true'), false);
    const sequentialRate = Math.round((SEQUENTIAL * 1000) / (Date.now() - started));
    expect(failures.slice(0, 5)).toEqual([]);
    const concurrentRate = await concurrently(CONCURRENT, SEQUENTIAL + 1, false, failures);
    process.stderr.write(`${carrier}: ${SEQUENTIAL} sequential execs at ${sequentialRate}/s, ${CONCURRENT} with ${IN_FLIGHT} in flight at ${concurrentRate}/s\n`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(tunnelsUp()).toBe(1);
  });

  it(`answers ${CONCURRENT} refused execs with ${IN_FLIGHT} in flight without dropping the tunnel`, async () => {
    const failures: string[] = [];
    const rate = await concurrently(CONCURRENT, 1, true, failures);
    process.stderr.write(`${carrier}: ${CONCURRENT} refused execs with ${IN_FLIGHT} in flight at ${rate}/s\n`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(tunnelsUp()).toBe(1);
  });
});
