/**
 * The pacer on a fake clock: what it lets through and when, from the headers it is shown; and a
 * simulated bulk job against the server's own fixed-window limiter, which must take the least
 * time the limit allows without a single 429.
 */
import { describe, expect, it } from 'vitest';
import { Pacer, type PacerResponse, parseRetryAfter, type Ticket } from '../../src/client/pacer.js';
import { FixedWindowRateLimiter } from '../../src/server/ratelimit.js';
import { FakeClock } from './fake-clock.js';

const headers = (remaining: number, resetSec: number, limit = 10): PacerResponse => ({
  status: 200,
  headers: {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetSec),
  },
});

/** Starts acquire() and reports whether it has resolved yet. */
function pending(p: Pacer, signal?: AbortSignal) {
  const state: { ticket?: Ticket; error?: unknown } = {};
  const promise = p.acquire(signal).then(
    (t) => {
      state.ticket = t;
      return t;
    },
    (e) => {
      state.error = e;
      throw e;
    },
  );
  promise.catch(() => {});
  return { state, promise };
}

describe('before any answer', () => {
  it('lets one request go, and the next when the first is answered', async () => {
    const clock = new FakeClock();
    const p = new Pacer({ clock });
    const first = await p.acquire();
    const second = pending(p);
    await clock.advance(10_000);
    expect(second.state.ticket).toBeUndefined();
    p.release(first, { status: 200, headers: {} });
    await clock.settle();
    expect(second.state.ticket).toBeDefined();
  });

  it('a failure without an answer lets the next one try', async () => {
    const clock = new FakeClock();
    const p = new Pacer({ clock });
    const first = await p.acquire();
    const second = pending(p);
    p.release(first);
    await clock.settle();
    expect(second.state.ticket).toBeDefined();
  });
});

describe('a server without rate-limit headers', () => {
  it('never holds anything back', async () => {
    const clock = new FakeClock();
    const p = new Pacer({ clock });
    p.release(await p.acquire(), { status: 200, headers: {} });
    const tickets = await Promise.all(Array.from({ length: 50 }, () => p.acquire()));
    expect(tickets).toHaveLength(50);
    expect(p.inFlight).toBe(50);
    expect(clock.t).toBe(1_700_000_000_000);
  });
});

describe('with X-RateLimit headers', () => {
  it('sends while the window has room, then waits for its reset (plus a margin), then probes once', async () => {
    const clock = new FakeClock(1_000_000_000_000); // on a whole second
    const resetSec = 1_000_000_060;
    const p = new Pacer({ clock, marginMs: 100 });
    const t1 = await p.acquire();
    p.release(t1, headers(2, resetSec));
    const a = await p.acquire();
    const b = await p.acquire();
    const c = pending(p);
    await clock.settle();
    expect(c.state.ticket).toBeUndefined();
    p.release(a, headers(1, resetSec));
    p.release(b, headers(0, resetSec));
    await clock.advance(59_999);
    expect(c.state.ticket).toBeUndefined();
    await clock.advance(100);
    expect(c.state.ticket).toBeUndefined();
    await clock.advance(1);
    expect(c.state.ticket?.sentAt).toBe(resetSec * 1000 + 100);
    // The probe is alone until it is answered.
    const d = pending(p);
    await clock.advance(5_000);
    expect(d.state.ticket).toBeUndefined();
    p.release(c.state.ticket as Ticket, headers(9, resetSec + 60));
    await clock.settle();
    expect(d.state.ticket).toBeDefined();
    expect(p.state).toMatchObject({ limit: 10, remaining: 9, resetAt: (resetSec + 60) * 1000 });
  });

  it('counts every request in flight against the room, even one sent before the answer that gave it', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const reset = 1_000_000_060;
    const p = new Pacer({ clock });
    p.release(await p.acquire(), headers(3, reset));
    const sent = [await p.acquire(), await p.acquire(), await p.acquire()];
    const fourth = pending(p);
    await clock.settle();
    expect(fourth.state.ticket).toBeUndefined();
    // The third reached the server first (another connection): 2 left after it. The first two
    // may not have been counted yet, so nothing can go.
    p.release(sent[2] as Ticket, headers(2, reset));
    await clock.settle();
    expect(fourth.state.ticket).toBeUndefined();
    // They were counted after all: their answers leave no room either.
    p.release(sent[0] as Ticket, headers(1, reset));
    p.release(sent[1] as Ticket, headers(0, reset));
    await clock.advance(59_000);
    expect(fourth.state.ticket).toBeUndefined();
    await clock.runUntil(() => fourth.state.ticket !== undefined);
    expect(fourth.state.ticket?.sentAt).toBeGreaterThanOrEqual(reset * 1000);
  });

  it('room counted twice is given back when the answers come', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const reset = 1_000_000_060;
    const p = new Pacer({ clock });
    p.release(await p.acquire(), headers(3, reset));
    const [a, b] = [await p.acquire(), await p.acquire()];
    p.release(a, headers(1, reset)); // b was counted before a: 1 left, and b still in flight
    const next = pending(p);
    await clock.settle();
    expect(next.state.ticket).toBeUndefined();
    p.release(b, headers(2, reset));
    await clock.settle();
    expect(next.state.ticket?.sentAt).toBe(clock.t);
  });

  it('answers out of order: the lowest Remaining of the window counts', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const reset = 1_000_000_060;
    const p = new Pacer({ clock });
    p.release(await p.acquire(), headers(5, reset));
    const [a, b] = [await p.acquire(), await p.acquire()];
    p.release(b, headers(0, reset));
    p.release(a, headers(4, reset));
    const next = pending(p);
    await clock.settle();
    expect(next.state.ticket).toBeUndefined();
  });

  it('ignores late answers from a window already over', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const p = new Pacer({ clock });
    p.release(await p.acquire(), headers(5, 1_000_000_060));
    const late = await p.acquire();
    p.release(await p.acquire(), headers(8, 1_000_000_120));
    p.release(late, headers(0, 1_000_000_060));
    expect(p.state.remaining).toBe(8);
  });

  it('a 429 with Retry-After holds every request back until then', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const p = new Pacer({ clock });
    p.release(await p.acquire(), { status: 200, headers: {} });
    const t = await p.acquire();
    p.release(t, { status: 429, headers: { 'retry-after': '3' } });
    const waiting = [pending(p), pending(p)];
    await clock.advance(2_999);
    expect(waiting.map((w) => w.state.ticket)).toEqual([undefined, undefined]);
    await clock.advance(1);
    expect(waiting.every((w) => w.state.ticket)).toBe(true);
  });

  it('without a Reset header, an exhausted budget is paced at the limit over a minute', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const p = new Pacer({ clock, marginMs: 0 });
    const noReset = (remaining: number): PacerResponse => ({
      status: 200,
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining) },
    });
    p.release(await p.acquire(), noReset(1));
    p.release(await p.acquire(), noReset(0));
    const next = pending(p);
    await clock.advance(999);
    expect(next.state.ticket).toBeUndefined();
    await clock.advance(1);
    expect(next.state.ticket).toBeDefined();
  });

  it('converts the reset to the local clock when the server clock is far off (Date header)', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const p = new Pacer({ clock, marginMs: 0 });
    // The server's clock is an hour ahead; its window resets 10 s from its now.
    const serverNow = clock.t + 3_600_000;
    const res = (remaining: number): PacerResponse => ({
      status: 200,
      headers: {
        date: new Date(serverNow).toUTCString(),
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String((serverNow + 10_000) / 1000),
      },
    });
    p.release(await p.acquire(), res(1));
    p.release(await p.acquire(), res(0));
    const next = pending(p);
    await clock.advance(9_999);
    expect(next.state.ticket).toBeUndefined();
    await clock.advance(1);
    expect(next.state.ticket).toBeDefined();
  });

  it('a wait longer than maxWaitMs is not made: the request goes, and the server says the rest', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const lines: string[] = [];
    const p = new Pacer({ clock, maxWaitMs: 5_000, debug: (l) => lines.push(l) });
    p.release(await p.acquire(), headers(0, 1_000_003_600));
    await p.acquire();
    expect(clock.t).toBe(1_000_000_000_000);
    expect(lines).toContain('* rate limit: the wait (3600s) is longer than pm waits; sending anyway');
  });

  it('a wait is cut short by the abort signal', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const p = new Pacer({ clock });
    p.release(await p.acquire(), headers(0, 1_000_000_060));
    const ac = new AbortController();
    const w = pending(p, ac.signal);
    await clock.advance(1_000);
    ac.abort();
    await clock.settle();
    expect((w.state.error as Error).name).toBe('AbortError');
    expect(p.inFlight).toBe(0);
  });

  it('says why it waits, once per wait, in the debug trace', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const lines: string[] = [];
    const p = new Pacer({ clock, marginMs: 100, debug: (l) => lines.push(l) });
    p.release(await p.acquire(), headers(0, 1_000_000_002));
    const waits = [pending(p), pending(p), pending(p)];
    await clock.runUntil(() => waits.some((w) => w.state.ticket));
    expect(lines).toEqual([
      '* rate limit: 0 of 10 requests left in this window, and those are in flight; waiting 2.10s',
    ]);
  });
});

describe('Retry-After', () => {
  it.each([
    ['0', 0],
    ['7', 7000],
    [' 120 ', 120_000],
    ['Wed, 21 Oct 2015 07:28:05 GMT', 5000],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0],
    ['soon', undefined],
    ['-3', undefined],
    ['1.5', undefined],
    [undefined, undefined],
  ])('%s -> %s ms', (value, ms) => {
    expect(parseRetryAfter(value, Date.parse('2015-10-21T07:28:00Z'))).toBe(ms);
  });
});

/**
 * A bulk job on the fake clock: `jobs` requests by `workers` workers, each request taking
 * `latency` ms each way, against the server's own FixedWindowRateLimiter. A 429 is retried
 * after its Retry-After, as the HTTP client does.
 */
async function simulate(o: {
  jobs: number;
  workers: number;
  limit: number;
  windowMs: number;
  latency: number;
  start: number;
  /** Requests another client makes at the start, sharing the budget. */
  others?: number;
}) {
  const clock = new FakeClock(o.start);
  const limiter = new FixedWindowRateLimiter({ limit: o.limit, windowMs: o.windowMs }, clock.now);
  for (let i = 0; i < (o.others ?? 0); i++) limiter.hit(1);
  const p = new Pacer({ clock });
  let next = 0;
  let done = 0;
  let refused = 0;
  const worker = async () => {
    while (next < o.jobs) {
      next++;
      for (;;) {
        const t = await p.acquire();
        await clock.sleep(o.latency);
        const d = limiter.hit(1);
        await clock.sleep(o.latency);
        const h = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v]));
        p.release(t, { status: d.allowed ? 201 : 429, headers: h });
        if (d.allowed) break;
        refused++;
        await clock.sleep(Number(h['retry-after']) * 1000);
      }
      done++;
    }
  };
  const all = Promise.all(Array.from({ length: o.workers }, worker));
  const finished = await clock.runUntil(() => done === o.jobs);
  await all;
  expect(finished).toBe(true);
  return { elapsed: clock.t - o.start, refused };
}

/** The least time the fixed windows allow for the last of `jobs` requests to be answered. */
function minimum(o: {
  jobs: number;
  limit: number;
  windowMs: number;
  start: number;
  latency: number;
  others?: number;
}) {
  const firstWindow = o.start - (o.start % o.windowMs);
  const windowOfLast = Math.floor((o.jobs + (o.others ?? 0) - 1) / o.limit);
  const sendLast = Math.max(o.start, firstWindow + windowOfLast * o.windowMs);
  return sendLast + 2 * o.latency - o.start;
}

describe('a simulated bulk job against a fixed-window limit', () => {
  it.each([0, 1_000, 30_000, 59_500])(
    '120 creates, 4 at a time, 60/min, starting %i ms into a window: the least time, no 429',
    async (phase) => {
      const o = { jobs: 120, workers: 4, limit: 60, windowMs: 60_000, latency: 15, start: 1_000_000_020_000 + phase };
      o.start -= o.start % 60_000;
      o.start += phase;
      const { elapsed, refused } = await simulate(o);
      expect(refused).toBe(0);
      const least = minimum(o);
      expect(elapsed).toBeGreaterThanOrEqual(least);
      // After the last reset: the margin, the probe's round trip, and the last window's requests
      // at the pace 4 workers can go (the limit is not what holds them then).
      expect(elapsed).toBeLessThanOrEqual(least + 100 + 2 * o.latency + Math.ceil(o.limit / o.workers) * 2 * o.latency);
    },
  );

  it('with another client using half the budget: still no 429, nothing lost', async () => {
    const o = { jobs: 100, workers: 8, limit: 60, windowMs: 60_000, latency: 5, start: 1_000_000_020_000, others: 30 };
    const { refused, elapsed } = await simulate(o);
    expect(refused).toBe(0);
    expect(elapsed).toBeLessThanOrEqual(minimum(o) + 1000);
  });

  it('without the pacer the same job is refused again and again (the test can fail)', async () => {
    const clock = new FakeClock(1_000_000_020_000);
    const limiter = new FixedWindowRateLimiter({ limit: 60, windowMs: 60_000 }, clock.now);
    let refused = 0;
    for (let i = 0; i < 120; i++) if (!limiter.hit(1).allowed) refused++;
    expect(refused).toBe(60);
  });
});

describe('a wait a person would wonder about', () => {
  it('is told once, in words, when it is a second or more; short ones are not', async () => {
    const clock = new FakeClock(1_000_000_000_000);
    const said: string[] = [];
    const p = new Pacer({ clock, marginMs: 100, notice: (line) => said.push(line) });
    const first = await p.acquire();
    p.release(first, headers(0, 1_000_000_052, 60));
    const next = pending(p);
    await clock.settle();
    expect(said).toEqual([
      'waiting 53 s: rate limit 60 per window (0 of 60 requests left in this window, and those are in flight)',
    ]);
    await clock.advance(52_100);
    expect(next.state.ticket).toBeDefined();
    expect(said).toHaveLength(1);
    p.release(next.state.ticket as Ticket, headers(0, 1_000_000_052, 60));
    const quiet = new Pacer({ clock: new FakeClock(1_000_000_000_500), marginMs: 0, notice: (l) => said.push(l) });
    const t = await quiet.acquire();
    quiet.release(t, headers(0, 1_000_000_001, 60));
    pending(quiet);
    expect(said).toHaveLength(1);
  });
});
