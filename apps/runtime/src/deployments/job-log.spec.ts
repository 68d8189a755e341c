import { JOB_LOG_LIMITS, JobLog } from './job-log';

describe('job log', () => {
  it('keeps at most the line limit, dropping the oldest', () => {
    const log = new JobLog();
    const source = log.source();
    for (let i = 0; i < JOB_LOG_LIMITS.lines + 500; i++) source.write(`line ${i}\n`);
    expect(log.size).toBe(JOB_LOG_LIMITS.lines);
    expect(log.tail(1)).toEqual([`line ${JOB_LOG_LIMITS.lines + 499}`]);
    expect(log.tail(JOB_LOG_LIMITS.lines + 10)[0]).toBe('line 500');
  });

  it('keeps at most the byte limit', () => {
    const log = new JobLog({ lines: 1_000_000, bytes: 10_000 });
    for (let i = 0; i < 1000; i++) log.append('x'.repeat(99));
    expect(log.byteSize).toBeLessThanOrEqual(10_000);
    expect(log.size).toBe(100);
  });

  it('joins partial lines per source, so interleaved sources keep whole lines; cuts very long lines', () => {
    const log = new JobLog();
    const out = log.source();
    const err = log.source();
    out.write('hel');
    err.write('warn');
    out.write('lo\r\nwor');
    err.write('ing\n');
    out.write('ld');
    out.end();
    log.source().write(`${'y'.repeat(40_000)}\n`);
    expect(log.tail(6).slice(0, 3)).toEqual(['hello', 'warning', 'world']);
    expect(log.tail(6).slice(3).map((line) => line.length)).toEqual([16_384, 16_384, 40_000 - 2 * 16_384]);
  });

  it('tells followers every new line until they unsubscribe', () => {
    const log = new JobLog();
    const seen: string[] = [];
    const unfollow = log.follow((line) => seen.push(line));
    log.note('starting');
    log.source().write('a\nb\n');
    unfollow();
    log.append('c');
    expect(seen).toEqual(['[svc] starting', 'a', 'b']);
    expect(log.tail(0)).toEqual([]);
  });
});
