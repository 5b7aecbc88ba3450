/**
 * The shortcuts that make lists fast at scale give the same answers as reading every row: the
 * trigram index behind fuzzy filters (three characters or more; shorter ones read the rows), the
 * few-matches path that sorts a page from the index's rows, and the per-account counts that
 * answer an unfiltered list's total.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldText } from '../../src/core/kinds.js';
import type { Api } from '../helpers/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { create, propertyBody } from './fixtures.js';

let server: TestServer;
/**
 * The same store planning lists otherwise (records.ts, TUNING): a fuzzy filter beside another
 * from the trigram index however small the table, and from its few candidates or its phrase.
 */
const PLANS = { candidates: { scanBelow: 0 }, phrase: { scanBelow: 0, fewCandidates: 0 } } as const;
const planned: Record<string, TestServer> = {};
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  planned['as planned'] = server;
  for (const [name, sqliteTuning] of Object.entries(PLANS))
    planned[name] = await startTestServer({ inProcess: true, sqliteTuning });
});
afterAll(async () => {
  for (const s of Object.values(planned)) await s.close();
});

/** Every record of a list, page after page (10 a page, to cross page edges). */
async function all(api: Api, query: string): Promise<{ uuids: string[]; total: number }> {
  const uuids: string[] = [];
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await api('GET', `/properties?${query}&per_page=10&page=${page}`);
    expect(res.status, res.text).toBe(200);
    total = res.body.meta.pagination.total;
    uuids.push(...res.body.data.map((x: { uuid: string }) => x.uuid));
    if (page >= res.body.meta.pagination.total_pages) break;
  }
  return { uuids, total };
}

// Letters that fold in interesting ways, SQL's wildcards, a quote, spaces.
const LETTERS = ['a', 'b', 'A', 'B', 'Å', 'å', 'İ', 'i', 'ß', '%', '_', '"', "'", ' ', '\\'];
const word = fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: 8 }).map((a) => a.join(''));

describe.each(['as planned', ...Object.keys(PLANS)])('fuzzy filters through the trigram index (%s)', (plan) => {
  const server = { newAccount: () => (planned[plan] as TestServer).newAccount() };
  it('find exactly the records whose folded text holds the folded value, in order, across pages', async () => {
    const acct = await await server.newAccount();
    const made: { uuid: string; city: string; postcode: string }[] = [];
    const cities = fc.sample(word, { numRuns: 40, seed: 12 });
    for (const [i, city] of cities.entries()) {
      const postcode = `LS${i % 3} ${city.slice(0, 3)}`;
      const rec = await create(acct.api, '/properties', propertyBody({ city, postcode, address: `${i} x` }));
      made.push({ uuid: rec.uuid, city, postcode });
    }
    await fc.assert(
      fc.asyncProperty(fc.oneof(word, fc.constantFrom(...cities)), async (needle) => {
        if (needle.trim() === '') return;
        const want = made.filter((m) => foldText(m.city).includes(foldText(needle))).map((m) => m.uuid);
        const got = await all(acct.api, `city=${encodeURIComponent(needle)}`);
        expect(got.uuids).toEqual(want);
        expect(got.total).toBe(want.length);
        const pc = foldText(needle).replace(/\s+/g, '');
        if (pc === '') return;
        const wantPc = made.filter((m) => foldText(m.postcode).replace(/\s+/g, '').includes(pc)).map((m) => m.uuid);
        expect((await all(acct.api, `postcode=${encodeURIComponent(needle)}`)).uuids).toEqual(wantPc);
      }),
      { numRuns: 60, seed: 7 },
    );
  });

  it('find a value, not its first and last trigrams apart', async () => {
    const acct = await server.newAccount();
    const near = await create(
      acct.api,
      '/properties',
      propertyBody({ city: 'Leek Beds', address: '295 Union Street', bedrooms: 3 }),
    );
    const hit = await create(
      acct.api,
      '/properties',
      propertyBody({ city: 'Leeds', address: '295 Station Road', bedrooms: 3 }),
    );
    for (const query of [
      'city=leeds',
      'address=295%20station',
      'city=leeds&address=295%20station',
      'city=leeds&bedrooms=3',
    ])
      expect((await all(acct.api, query)).uuids, query).toEqual([hit.uuid]);
    expect((await all(acct.api, 'city=lee')).uuids).toEqual([near.uuid, hit.uuid]);
  });

  it('stay right after updates and deletes, and with other filters beside them', async () => {
    const acct = await await server.newAccount();
    const a = await create(acct.api, '/properties', propertyBody({ city: 'Leeds', bedrooms: 2 }));
    const b = await create(acct.api, '/properties', propertyBody({ city: 'Leeds', bedrooms: 3 }));
    const c = await create(acct.api, '/properties', propertyBody({ city: 'York', bedrooms: 3 }));
    expect((await all(acct.api, 'city=eed')).uuids).toEqual([a.uuid, b.uuid]);
    expect((await all(acct.api, 'city=eed&bedrooms=3')).uuids).toEqual([b.uuid]);
    await acct.api('PUT', `/properties/${a.uuid}`, { address: 'x', postcode: 'y', city: 'Harrogate' });
    await acct.api('PUT', `/properties/${c.uuid}`, { address: 'x', postcode: 'y', city: 'Leeds Road' });
    expect((await all(acct.api, 'city=eed')).uuids).toEqual([b.uuid, c.uuid]);
    expect((await all(acct.api, 'city=harrog')).uuids).toEqual([a.uuid]);
    await acct.api('DELETE', `/properties/${b.uuid}`);
    expect((await all(acct.api, 'city=eed')).uuids).toEqual([c.uuid]);
    // Another account's matches are never counted.
    const other = await await server.newAccount();
    await create(other.api, '/properties', propertyBody({ city: 'Leeds' }));
    expect((await all(acct.api, 'city=eed')).total).toBe(1);
  });

  it('a page past the few-matches limit is read from the rows in order, the same records as the index gives', async () => {
    const acct = await await server.newAccount();
    const uuids: string[] = [];
    for (let i = 0; i < 30; i++)
      uuids.push((await create(acct.api, '/properties', propertyBody({ city: i % 2 ? 'Leeds' : 'York' }))).uuid);
    const leeds = uuids.filter((_, i) => i % 2);
    expect((await all(acct.api, 'city=leeds')).uuids).toEqual(leeds);
    const third = await acct.api('GET', '/properties?city=leeds&per_page=4&page=3');
    expect(third.body.data.map((x: { uuid: string }) => x.uuid)).toEqual(leeds.slice(8, 12));
    const beyond = await acct.api('GET', '/properties?city=leeds&per_page=10&page=9');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.pagination.total).toBe(15);
  });
});

describe('page N+1 right after page N', () => {
  it('is the same page an OFFSET gives, in order, out of order, and after a write in between', async () => {
    const acct = await server.newAccount();
    const uuids: string[] = [];
    for (let i = 0; i < 37; i++)
      uuids.push((await create(acct.api, '/properties', propertyBody({ bedrooms: i % 3 }))).uuid);
    const page = async (query: string, n: number) =>
      (await acct.api('GET', `/properties?${query}&per_page=5&page=${n}`)).body.data.map(
        (x: { uuid: string }) => x.uuid,
      );
    // In order (each page right after the one before), then backwards (never right after).
    const forward: string[][] = [];
    for (let n = 1; n <= 8; n++) forward.push(await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', n));
    const backward: string[][] = [];
    for (let n = 8; n >= 1; n--) backward.unshift(await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', n));
    expect(forward).toEqual(backward);
    expect(forward.flat()).toEqual(uuids);
    // A record of page 1 deleted after page 1 was served: page 2 is what an OFFSET gives now.
    const p1 = await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', 1);
    await acct.api('DELETE', `/properties/${p1[0]}`);
    const rest = uuids.filter((u) => u !== p1[0]);
    expect(await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', 2)).toEqual(rest.slice(5, 10));
    // A record created in between joins the end, where an OFFSET finds it too.
    expect(await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', 3)).toEqual(rest.slice(10, 15));
    const late = (await create(acct.api, '/properties', propertyBody({ bedrooms: 1 }))).uuid;
    expect(await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', 4)).toEqual(rest.slice(15, 20));
    const all: string[] = [];
    for (let n = 1; n <= 8; n++) all.push(...(await page('bedrooms[]=0&bedrooms[]=1&bedrooms[]=2', n)));
    expect(all).toEqual([...rest, late]);
  });
});

describe('the counts kept per account', () => {
  it('give the exact total of an unfiltered list after creates, deletes and cascades, per account', async () => {
    const a = await await server.newAccount();
    const b = await await server.newAccount();
    const total = async (api: Api, path: string) =>
      (await api('GET', `/${path}?per_page=1`)).body.meta.pagination.total;
    expect(await total(a.api, 'properties')).toBe(0);
    const ps = [];
    for (let i = 0; i < 5; i++) ps.push(await create(a.api, '/properties', propertyBody()));
    await create(b.api, '/properties', propertyBody());
    for (const p of ps.slice(0, 2))
      for (let i = 0; i < 3; i++) await create(a.api, `/properties/${p.uuid}/notes`, { content: 'n' });
    expect(await total(a.api, 'properties')).toBe(5);
    expect(await total(a.api, 'notes')).toBe(6);
    expect(await total(b.api, 'properties')).toBe(1);
    await a.api('DELETE', `/properties/${ps[0]?.uuid}`);
    expect(await total(a.api, 'properties')).toBe(4);
    // The property's notes went with it: their count too.
    expect(await total(a.api, 'notes')).toBe(3);
    const [counted] = await server.sql('SELECT COUNT(*) AS n FROM properties WHERE account_id = ?', [a.accountId]);
    expect(counted?.n).toBe(4);
  });
});
