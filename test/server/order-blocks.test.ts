/**
 * A deep page of an unfiltered list starts from its order block (schema.ts, migration 3): the
 * blocks kept by triggers must give exactly the pages an OFFSET walk gives, after records made in
 * order and out of order (a clock set back), deleted here and there, in several accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BLOCK } from '../../src/server/schema.js';
import type { Api } from '../helpers/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertProperties } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

function insert(accountId: number, times: number[]): void {
  insertProperties(server.sqlite.db, accountId, times);
}

/** The uuids of every record of the account, in list order, read straight from the table. */
function inOrder(accountId: number): string[] {
  return (
    server.sqlite.db
      .prepare('SELECT uuid FROM properties WHERE account_id = ? ORDER BY created_at, id')
      .all(accountId) as { uuid: string }[]
  ).map((r) => r.uuid);
}

async function expectPages(api: Api, accountId: number, perPage: number, pages: number[]): Promise<void> {
  const want = inOrder(accountId);
  for (const page of pages) {
    const res = await api('GET', `/properties?per_page=${perPage}&page=${page}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.meta.pagination.total).toBe(want.length);
    const got = res.body.data.map((x: { uuid: string }) => x.uuid);
    expect(got, `page ${page} of ${perPage}`).toEqual(want.slice((page - 1) * perPage, page * perPage));
  }
}

describe('order blocks', () => {
  it('give every deep page as an OFFSET walk does, through creates in and out of order, deletes, and accounts', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const n = ORDER_BLOCK * 5 + 37;
    // In order, the two accounts interleaved; then some made earlier than everything, some in between.
    insert(
      a.accountId,
      Array.from({ length: n }, (_, i) => 1_000_000 + i * 10),
    );
    insert(
      b.accountId,
      Array.from({ length: ORDER_BLOCK * 3 }, (_, i) => 1_000_000 + i * 10),
    );
    insert(
      a.accountId,
      Array.from({ length: 50 }, (_, i) => 500 + i),
    );
    insert(
      a.accountId,
      Array.from({ length: ORDER_BLOCK + 3 }, (_, i) => 1_000_005 + i * 20),
    );
    const pages = [1, 2, 3, 21, 22, 100, 101, 205, 206, 333, 334, 450, 700, 736, 737, 738, 2000];
    await expectPages(a.api, a.accountId, 10, pages);
    await expectPages(b.api, b.accountId, 7, [1, 300, 301, 438, 439, 440]);
    // Deletes here and there, a whole block's worth among them.
    const db = server.sqlite.db;
    db.prepare(
      'DELETE FROM properties WHERE account_id = ? AND id IN (SELECT id FROM properties WHERE account_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?)',
    ).run(a.accountId, a.accountId, ORDER_BLOCK + 10, ORDER_BLOCK * 2 - 5);
    db.prepare('DELETE FROM properties WHERE account_id = ? AND id % 7 = 0').run(a.accountId);
    await expectPages(a.api, a.accountId, 10, pages);
    await expectPages(a.api, a.accountId, 100, [20, 21, 30, 40, 41, 50, 51, 60]);
    // Records made after all that: at the end, and new blocks started.
    insert(
      a.accountId,
      Array.from({ length: ORDER_BLOCK * 2 }, (_, i) => 9_000_000 + i),
    );
    await expectPages(a.api, a.accountId, 25, [80, 200, 201, 300, 366, 367, 368, 460]);
    // The blocks add up to the records.
    const sum = db
      .prepare(`SELECT SUM(n) AS n FROM order_blocks WHERE account_id = ? AND tbl = 'properties'`)
      .get(a.accountId) as { n: number };
    expect(sum.n).toBe(inOrder(a.accountId).length);
  });
});
