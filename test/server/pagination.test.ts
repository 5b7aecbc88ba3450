/** Pagination: page/per_page, meta.pagination, links, order, and out-of-range values. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { create, reminderBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

/** An account with n reminders titled r01..rNN, created in that order. */
async function withReminders(n: number): Promise<Account> {
  const acct = await server.newAccount();
  for (let i = 1; i <= n; i++)
    await create(acct.api, '/reminders', reminderBody({ title: `r${String(i).padStart(2, '0')}` }));
  return acct;
}

const titles = (body: { data: { title: string }[] }) => body.data.map((r) => r.title);
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `r${String(from + i).padStart(2, '0')}`);

describe('pagination', () => {
  let acct: Account;
  beforeAll(async () => {
    acct = await withReminders(25);
  });

  it('defaults to page 1 of 10, oldest first, with a next link only', async () => {
    const res = await acct.api('GET', '/reminders');
    expect(res.status).toBe(200);
    expect(titles(res.body)).toEqual(range(1, 10));
    expect(res.body.meta.pagination).toEqual({
      total: 25,
      count: 10,
      per_page: 10,
      current_page: 1,
      total_pages: 3,
      links: { next: `${server.url}/reminders?page=2` },
    });
  });

  it('a middle page has absolute next and previous links that keep the other parameters', async () => {
    const res = await acct.api('GET', '/reminders?title=r&page=2&per_page=7');
    expect(titles(res.body)).toEqual(range(8, 14));
    const p = res.body.meta.pagination;
    expect(p).toMatchObject({ total: 25, count: 7, per_page: 7, current_page: 2, total_pages: 4 });
    const next = new URL(p.links.next);
    const prev = new URL(p.links.previous);
    expect(next.origin).toBe(server.url);
    expect(Object.fromEntries(next.searchParams)).toEqual({ title: 'r', page: '3', per_page: '7' });
    expect(Object.fromEntries(prev.searchParams)).toEqual({ title: 'r', page: '1', per_page: '7' });
    // Following the links walks the list.
    const after = await acct.api('GET', next.pathname + next.search);
    expect(titles(after.body)).toEqual(range(15, 21));
    const before = await acct.api('GET', prev.pathname + prev.search);
    expect(titles(before.body)).toEqual(range(1, 7));
  });

  it('the last page is short and has no next link', async () => {
    const res = await acct.api('GET', '/reminders?page=3');
    expect(titles(res.body)).toEqual(range(21, 25));
    expect(res.body.meta.pagination).toMatchObject({ count: 5, current_page: 3, total_pages: 3 });
    expect(res.body.meta.pagination.links).toEqual({ previous: `${server.url}/reminders?page=2` });
  });

  it('a page beyond the last is empty, with previous pointing at the last page', async () => {
    const res = await acct.api('GET', '/reminders?page=9');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.pagination).toEqual({
      total: 25,
      count: 0,
      per_page: 10,
      current_page: 9,
      total_pages: 3,
      links: { previous: `${server.url}/reminders?page=3` },
    });
  });

  it('per_page 1 and 100 are accepted; one page holds everything at 100', async () => {
    const one = await acct.api('GET', '/reminders?per_page=1&page=25');
    expect(titles(one.body)).toEqual(['r25']);
    expect(one.body.meta.pagination.total_pages).toBe(25);
    const all = await acct.api('GET', '/reminders?per_page=100');
    expect(titles(all.body)).toEqual(range(1, 25));
    expect(all.body.meta.pagination.links).toEqual({});
  });

  it('pages are stable while records are added: new records go to the end', async () => {
    const own = await withReminders(3);
    const first = await own.api('GET', '/reminders?per_page=2');
    await create(own.api, '/reminders', reminderBody({ title: 'r99' }));
    const again = await own.api('GET', '/reminders?per_page=2');
    expect(titles(again.body)).toEqual(titles(first.body));
    expect(titles((await own.api('GET', '/reminders?per_page=2&page=2')).body)).toEqual(['r03', 'r99']);
  });

  it('orders by creation time, not by insertion, when the clock says so', async () => {
    const own = await server.newAccount();
    server.clock.set('2026-02-02T00:00:00Z');
    await create(own.api, '/reminders', reminderBody({ title: 'later' }));
    server.clock.set('2026-02-01T00:00:00Z');
    await create(own.api, '/reminders', reminderBody({ title: 'earlier' }));
    expect(titles((await own.api('GET', '/reminders')).body)).toEqual(['earlier', 'later']);
  });
});

describe('empty lists', () => {
  it.each(['properties', 'contacts', 'custom-fields', 'notes', 'reminders'])(
    '/%s with no records: 200, [], total 0, one page',
    async (path) => {
      const res = await (await server.newAccount()).api('GET', `/${path}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [],
        meta: { pagination: { total: 0, count: 0, per_page: 10, current_page: 1, total_pages: 1, links: {} } },
      });
    },
  );

  it('a filter that matches nothing is an empty page, not an error', async () => {
    const acct = await withReminders(2);
    const res = await acct.api('GET', '/reminders?title=zzz');
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination).toMatchObject({ total: 0, count: 0, total_pages: 1 });
  });
});

describe('out-of-range page and per_page', () => {
  it.each([
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['per_page=1000', 'per_page'],
    ['per_page=ten', 'per_page'],
    ['per_page=2.5', 'per_page'],
    ['per_page=-1', 'per_page'],
    ['per_page=', 'per_page'],
    ['page=0', 'page'],
    ['page=-2', 'page'],
    ['page=first', 'page'],
  ])('%s is 422 naming %s', async (q, field) => {
    const res = await server.api('GET', `/reminders?${q}`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(res.body.message).toContain(field);
  });

  it('both bad at once: both named', async () => {
    const res = await server.api('GET', '/reminders?page=0&per_page=101');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['page', 'per_page']);
  });

  it('page given twice is 400', async () => {
    expect((await server.api('GET', '/reminders?page=1&page=2')).status).toBe(400);
  });
});
