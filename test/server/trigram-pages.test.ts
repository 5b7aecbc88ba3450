/**
 * A fuzzy filter the trigram index answers pages its list one of two ways (records.ts): walking
 * the order index and testing each row, when matches are dense; sorting the index's matches, when
 * they are sparse. Both give what reading every row gives, page after page, with other filters
 * beside them, and never another account's records (the index keys rows by account). On a small
 * table a fuzzy filter beside another is tested on the rows instead: both plans are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { propertyBody } from './fixtures.js';

let server: TestServer;
/** The same store planning every list with a fuzzy filter from the trigram index, however small. */
let indexed: TestServer;
/** And from the phrase alone, however few the candidates its first and last trigrams give. */
let phrase: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  indexed = await startTestServer({ inProcess: true, sqliteTuning: { scanBelow: 0 } });
  phrase = await startTestServer({ inProcess: true, sqliteTuning: { scanBelow: 0, fewCandidates: 0 } });
});
afterAll(async () => {
  await server.close();
  await indexed.close();
  await phrase.close();
});

interface Made {
  uuid: string;
  city: string;
  bedrooms: number;
  address: string;
}

/** `n` properties: city "Leeds" every `every`-th (sparse or dense), others "York"; bedrooms 0-3. */
async function seed(api: Api, n: number, every: number): Promise<Made[]> {
  const made: Made[] = [];
  for (let i = 0; i < n; i++) {
    const city = i % every === 0 ? 'Leeds' : 'York';
    const address = `${i} Mill Lane`;
    const res = await api('POST', '/properties', propertyBody({ city, bedrooms: i % 4, address }));
    expect(res.status, res.text).toBe(201);
    made.push({ uuid: res.body.data.uuid, city, bedrooms: i % 4, address });
  }
  return made;
}

/** Each page of a list, as requested one by one in the order given. */
async function pages(api: Api, query: string, perPage: number, order: number[]) {
  const out = new Map<number, { uuids: string[]; total: number }>();
  for (const page of order) {
    const res = await api('GET', `/properties?${query}&per_page=${perPage}&page=${page}`);
    expect(res.status, res.text).toBe(200);
    out.set(page, {
      uuids: res.body.data.map((x: { uuid: string }) => x.uuid),
      total: res.body.meta.pagination.total,
    });
  }
  return out;
}

function check(got: Map<number, { uuids: string[]; total: number }>, want: string[], perPage: number): void {
  for (const [page, { uuids, total }] of got) {
    expect(total).toBe(want.length);
    expect(uuids, `page ${page}`).toEqual(want.slice((page - 1) * perPage, page * perPage));
  }
}

describe('lists driven by the trigram index', () => {
  for (const [plan, on] of [
    ['as planned', () => server],
    ['index always', () => indexed],
    ['phrase always', () => phrase],
  ] as const)
    for (const [name, every] of [
      ['sparse matches (the matches sorted)', 37],
      ['dense matches (the order index walked)', 2],
    ] as const)
      it(`${plan}, ${name}: every page as reading every row gives, in any order, with other filters`, async () => {
        const acct = await on().newAccount();
        // Another account's matching records, made before and after, must never show.
        const other = await on().newAccount();
        await seed(other.api, 20, 1);
        const made = await seed(acct.api, 150, every);
        await seed(other.api, 20, 1);
        const leeds = made.filter((m) => m.city === 'Leeds');
        const perPage = 3;
        const last = Math.ceil(leeds.length / perPage) + 1;
        const order = [...Array.from({ length: last }, (_, i) => last - i), 1, 2];
        check(
          await pages(acct.api, 'city=eeds', perPage, order),
          leeds.map((m) => m.uuid),
          perPage,
        );
        const two = leeds.filter((m) => m.bedrooms === 2).map((m) => m.uuid);
        check(await pages(acct.api, 'city=leeds&bedrooms=2', 2, [1, 2, 3, 9, 4]), two, 2);
        // A second fuzzy filter beside the one the index answers, one too short for the index.
        const mill = leeds.filter((m) => m.address.toLowerCase().includes('4 mill')).map((m) => m.uuid);
        expect(mill.length).toBeGreaterThan(0);
        check(await pages(acct.api, 'city=leeds&address=4%20mill&postcode=s1', 2, [2, 1, 3]), mill, 2);
        // The same after deleting a match and changing another's city.
        const [gone, moved] = leeds;
        await acct.api('DELETE', `/properties/${gone?.uuid}`);
        await acct.api('PUT', `/properties/${moved?.uuid}`, { address: 'x', postcode: 'y', city: 'Hull' });
        check(
          await pages(acct.api, 'city=eeds', perPage, [1, 2, 3]),
          leeds.slice(2).map((m) => m.uuid),
          perPage,
        );
      });
});

describe('the trigram index keys', () => {
  it('refuse a record id that would reach into the next account’s keys', async () => {
    const acct = await server.newAccount();
    const insert = server.sqlite.db.prepare(
      `INSERT INTO properties (id, account_id, uuid, created_at, updated_at, address, postcode)
       VALUES (?, ?, ?, 0, 0, 'x', 'y')`,
    );
    expect(() => insert.run(2 ** 32, acct.accountId, '00000000-0000-4000-8000-000000000001')).toThrow(/below 2\^32/);
    expect(() => insert.run(2 ** 32 - 1, acct.accountId, '00000000-0000-4000-8000-000000000002')).not.toThrow();
  });
});
