/** Rate limiting per user, in fixed windows on the server's clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { parseRateLimit } from '../../src/server/index.js';
import { FixedWindowRateLimiter } from '../../src/server/ratelimit.js';
import { Clock, startTestServer, type TestServer } from '../helpers/server.js';
import { reminderBody } from './fixtures.js';

let server: TestServer;
let plain: TestServer;
const clock = new Clock('2026-03-01T10:00:10Z');
beforeAll(async () => {
  server = await startTestServer({ clock, rateLimit: { limit: 3, windowMs: 60_000 }, inProcess: true });
  plain = await startTestServer({ inProcess: true });
});
afterAll(async () => {
  await server.close();
  await plain.close();
});

const RESET = String(Date.parse('2026-03-01T10:01:00Z') / 1000);

describe('with --rate-limit 3/min', () => {
  it('every response carries the headers; the 4th request in a window is 429 with Retry-After', async () => {
    clock.set('2026-03-01T10:00:10Z');
    const { api } = await server.newAccount();
    const seen = [];
    for (const [method, path, body] of [
      ['GET', '/reminders', undefined],
      ['POST', '/reminders', reminderBody()],
      ['GET', '/reminders?bad=1', undefined],
    ] as const) {
      const res = await api(method, path, body);
      seen.push([res.status, res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]);
      expect(res.headers.get('x-ratelimit-reset')).toBe(RESET);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(seen).toEqual([
      [200, '3', '2'],
      [201, '3', '1'],
      [400, '3', '0'],
    ]);
    clock.set('2026-03-01T10:00:15.500Z');
    const limited = await api('GET', '/reminders');
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe('Too Many Attempts.');
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-reset')).toBe(RESET);
    // A refused write does nothing.
    const write = await api('POST', '/reminders', reminderBody({ title: 'refused' }));
    expect(write.status).toBe(429);
    clock.set('2026-03-01T10:01:00Z');
    const list = await api('GET', '/reminders');
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { title: string }) => r.title)).toEqual(['Renew insurance']);
  });

  it('a new window starts afresh', async () => {
    clock.set('2026-03-01T11:00:00Z');
    const { api } = await server.newAccount();
    for (let i = 0; i < 3; i++) expect((await api('GET', '/reminders')).status).toBe(200);
    clock.set('2026-03-01T11:00:59.999Z');
    const last = await api('GET', '/reminders');
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');
    clock.set('2026-03-01T11:01:00Z');
    const next = await api('GET', '/reminders');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(next.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-01T11:02:00Z') / 1000));
  });

  it('is per user: another user is unaffected; two tokens of one user share the budget', async () => {
    clock.set('2026-03-01T12:00:00Z');
    const a = await server.newAccount();
    const b = await server.newAccount();
    const a2 = await a.token2(ALL_SCOPES);
    await a.api('GET', '/reminders');
    await a2.api('GET', '/reminders');
    await a.api('GET', '/reminders');
    expect((await a2.api('GET', '/reminders')).status).toBe(429);
    expect((await a.api('GET', '/reminders')).status).toBe(429);
    const other = await b.api('GET', '/reminders');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('unauthenticated requests are refused with 401 and do not use up a budget', async () => {
    clock.set('2026-03-01T13:00:00Z');
    const { api } = await server.newAccount();
    for (let i = 0; i < 5; i++) {
      const res = await api('GET', '/reminders', undefined, { token: 'pm_wrong' });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await api('GET', '/reminders')).headers.get('x-ratelimit-remaining')).toBe('2');
  });
});

describe('without a rate limit', () => {
  it('sends no rate-limit headers and never refuses', async () => {
    const { api } = await plain.newAccount();
    for (let i = 0; i < 10; i++) {
      const res = await api('GET', '/reminders');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('parseRateLimit (the --rate-limit value)', () => {
  it.each([
    ['60/min', 60, 60_000],
    ['60', 60, 60_000],
    ['10/s', 10, 1000],
    ['3600/hour', 3600, 3_600_000],
    [' 5 / m ', 5, 60_000],
  ])('%j', (text, limit, windowMs) => {
    expect(parseRateLimit(text)).toEqual({ limit, windowMs });
  });

  it.each(['0/min', 'fast', '60/day', '-1', ''])('%j is refused', (text) => {
    expect(() => parseRateLimit(text)).toThrow(/rate limit/);
  });
});

describe('the windows kept in memory', () => {
  it('are the current window alone: a key seen once is dropped once its window has passed', () => {
    const at = new Clock('2026-03-01T10:00:10Z');
    const limiter = new FixedWindowRateLimiter<string>({ limit: 2, windowMs: 60_000 }, at.now);
    for (let i = 0; i < 5000; i++) limiter.hit(`feed-${i}`);
    expect(limiter.size).toBe(5000);
    // Within the same window, a key's count is kept: its third request is refused.
    limiter.hit('feed-1');
    expect(limiter.hit('feed-1').allowed).toBe(false);
    at.set('2026-03-01T10:01:05Z');
    expect(limiter.hit('feed-1').allowed).toBe(true);
    expect(limiter.size).toBe(1);
  });
});
