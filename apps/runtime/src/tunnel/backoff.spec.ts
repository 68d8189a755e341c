import { Backoff } from './backoff';

describe('Backoff (full jitter)', () => {
  /** 1 s, 2 s, then 4 s up to the 15th attempt (about half a minute of quick retries), then doubling to 60 s. */
  const CEILINGS = [1000, 2000, ...new Array(13).fill(4000), 8000, 16000, 32000, 60000, 60000, 60000];

  it.each([0, 0.25, 0.999])('draws each attempt uniformly below its ceiling: 1 s, 2 s, 4 s for 15 attempts, then doubling to 60 s (random() = %p)', (r) => {
    const backoff = new Backoff({ random: () => r });
    expect(CEILINGS.map(() => backoff.next())).toEqual(CEILINGS.map((ceiling) => Math.floor(r * ceiling)));
  });

  it('starts again from the base after reset()', () => {
    const backoff = new Backoff({ random: () => 0.999 });
    for (let i = 0; i < 10; i++) backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(999);
  });

  it('never exceeds the cap, however many attempts failed', () => {
    const backoff = new Backoff({ baseMs: 1000, capMs: 60_000, random: () => 0.9999999999 });
    for (let i = 0; i < 1000; i++) expect(backoff.next()).toBeLessThan(60_000);
  });

  it('spreads a fleet: 10,000 devices retrying after the same failure are spread over the window', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const firstDelays = Array.from({ length: 10_000 }, () => new Backoff({ random }).next());
    const perDecile = new Array(10).fill(0);
    for (const delay of firstDelays) perDecile[Math.floor(delay / 100)]++;
    for (const count of perDecile) expect(count).toBeGreaterThan(800);
  });
});
