/**
 * The total of a list filtered by a creation-time range alone is counted from the order blocks,
 * and by an update-time range alone from the update blocks (whole blocks by their kept sizes, the
 * rows at the range's two ends one by one): it must be exactly what counting the rows gives,
 * whatever the range, through records made in order and out of order, updated (some several
 * times, some back in time), deleted here and there, beside another account's; and a data file
 * made before the update blocks is counted right once upgraded.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { withFunctions } from '../../src/server/db.js';
import { openStore, startServer } from '../../src/server/index.js';
import { migrations, ORDER_BLOCK } from '../../src/server/schema.js';
import type { Api } from '../helpers/server.js';
import { Clock, makeApi, startTestServer, type TestServer } from '../helpers/server.js';
import { insertProperties, propertyBody } from './fixtures.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const BASE = Date.UTC(2026, 0, 1);
/** The server's clock: what a record updated through the API gets as its updated_at. */
const clock = new Clock(BASE + 86_400_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.close());

function insert(accountId: number, times: number[]): void {
  insertProperties(server.sqlite.db, accountId, times);
}

/** The column a range filters, and the blocks kept in its order. */
type Order = { column: 'created_at' | 'updated_at'; blocks: string };
const CREATED: Order = { column: 'created_at', blocks: 'order_blocks' };
const UPDATED: Order = { column: 'updated_at', blocks: 'update_blocks' };

/** The account's records whose `column` is in [start, end), counted row by row. */
function counted(accountId: number, start: number, end: number, { column }: Order = CREATED): number {
  return (
    server.sqlite.db
      .prepare(`SELECT COUNT(*) AS n FROM properties WHERE account_id = ? AND ${column} >= ? AND ${column} < ?`)
      .get(accountId, start, end) as { n: number }
  ).n;
}

async function totalOf(api: Api, start: number, end: number, { column }: Order = CREATED): Promise<number> {
  const range = `${new Date(start).toISOString()}/${new Date(end).toISOString()}`;
  const res = await api('GET', `/properties?per_page=3&${column}=${encodeURIComponent(range)}`);
  expect(res.status, res.text).toBe(200);
  return res.body.meta.pagination.total;
}

/** A small deterministic random source. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ranges at random, and ranges that begin or end at a block's first record, just before or after it. */
function ranges(accountId: number, rnd: () => number, span: number, o: Order): [number, number][] {
  const starts = (
    server.sqlite.db
      .prepare(`SELECT ${o.column} AS c FROM ${o.blocks} WHERE account_id = ? AND tbl = 'properties'`)
      .all(accountId) as { c: number }[]
  ).map((b) => b.c);
  const at = () => {
    const b = starts[Math.floor(rnd() * starts.length)] as number;
    return b + Math.floor(rnd() * 3) - 1;
  };
  const any = () => BASE - 100 + Math.floor(rnd() * (span + 200));
  const out: [number, number][] = [[BASE - 1000, BASE + span + 1000]];
  for (let i = 0; i < 150; i++) {
    const kind = i % 3;
    const a = kind === 0 ? any() : at();
    const b = kind === 1 ? any() : kind === 2 ? at() : a + 1 + Math.floor(rnd() * (rnd() < 0.5 ? 50 : span / 2));
    if (a !== b) out.push([Math.min(a, b), Math.max(a, b)]);
  }
  return out;
}

async function expectTotals(
  api: Api,
  accountId: number,
  rnd: () => number,
  span: number,
  o: Order = CREATED,
): Promise<void> {
  for (const [start, end] of ranges(accountId, rnd, span, o))
    expect(
      await totalOf(api, start, end, o),
      `${o.column} ${new Date(start).toISOString()}/${new Date(end).toISOString()}`,
    ).toBe(counted(accountId, start, end, o));
}

/**
 * What the blocks keep is what the total says: a block's size changed behind the triggers' back
 * shows in a range that holds that block whole, not in one within it.
 */
async function wholeBlocksAtKeptSizes(o: Order): Promise<void> {
  const a = await server.newAccount();
  insert(
    a.accountId,
    Array.from({ length: ORDER_BLOCK * 4 }, (_, i) => BASE + i),
  );
  const db = server.sqlite.db;
  const where = `account_id = ? AND tbl = 'properties'`;
  const second = db
    .prepare(`SELECT ${o.column} AS c FROM ${o.blocks} WHERE ${where} ORDER BY ${o.column} LIMIT 1 OFFSET 1`)
    .get(a.accountId) as { c: number };
  db.prepare(`UPDATE ${o.blocks} SET n = n + 5 WHERE ${where} AND ${o.column} = ?`).run(a.accountId, second.c);
  expect(await totalOf(a.api, BASE, BASE + ORDER_BLOCK * 4, o)).toBe(ORDER_BLOCK * 4 + 5);
  expect(await totalOf(a.api, second.c + 1, second.c + 100, o)).toBe(99);
}

describe('a creation-time range list', () => {
  it('totals exactly what counting its rows gives, for ranges at random and at block edges', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const rnd = random(40);
    const n = ORDER_BLOCK * 6 + 37;
    // Several records in one millisecond here and there (ties ordered by id).
    const times = Array.from({ length: n }, (_, i) => BASE + i * 10 - (i % 5 === 0 ? 10 : 0));
    const span = n * 10;
    insert(a.accountId, times);
    insert(
      b.accountId,
      Array.from({ length: ORDER_BLOCK * 2 }, (_, i) => BASE + i * 7),
    );
    await expectTotals(a.api, a.accountId, rnd, span);
    // Some made earlier than everything, some in between (a clock set back), then deletes.
    insert(
      a.accountId,
      Array.from({ length: 50 }, (_, i) => BASE - 60 + i),
    );
    insert(
      a.accountId,
      Array.from({ length: ORDER_BLOCK + 3 }, (_, i) => BASE + 5 + i * 20),
    );
    const db = server.sqlite.db;
    db.prepare(
      'DELETE FROM properties WHERE account_id = ? AND id IN (SELECT id FROM properties WHERE account_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?)',
    ).run(a.accountId, a.accountId, ORDER_BLOCK + 10, ORDER_BLOCK * 2 - 5);
    db.prepare('DELETE FROM properties WHERE account_id = ? AND id % 7 = 0').run(a.accountId);
    await expectTotals(a.api, a.accountId, rnd, span);
    await expectTotals(b.api, b.accountId, rnd, ORDER_BLOCK * 14);
  });

  it('takes whole blocks at their kept sizes', () => wholeBlocksAtKeptSizes(CREATED));
});

/** The account's update blocks of properties: how many, and how many hold no record. */
function updateBlocks(accountId: number): { blocks: number; empty: number } {
  return server.sqlite.db
    .prepare(
      `SELECT COUNT(*) AS blocks, COALESCE(SUM(n = 0), 0) AS empty FROM update_blocks WHERE account_id = ? AND tbl = 'properties'`,
    )
    .get(accountId) as { blocks: number; empty: number };
}

describe('an update-time range list', () => {
  it('totals exactly what counting its rows gives, through updates in and out of order, and deletes', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const rnd = random(41);
    const n = ORDER_BLOCK * 5 + 11;
    const span0 = n * 10;
    // Updates land up to three spans after the first record.
    const span = span0 * 3;
    insert(
      a.accountId,
      Array.from({ length: n }, (_, i) => BASE + i * 10 - (i % 5 === 0 ? 10 : 0)),
    );
    insert(
      b.accountId,
      Array.from({ length: ORDER_BLOCK * 2 + 5 }, (_, i) => BASE + i * 7),
    );
    await expectTotals(a.api, a.accountId, rnd, span, UPDATED);
    const db = server.sqlite.db;
    const ids = (accountId: number, tail = '') =>
      db
        .prepare(`SELECT id FROM properties WHERE account_id = ? ORDER BY updated_at, id ${tail}`)
        .pluck()
        .all(accountId) as number[];
    const setUpdated = db.prepare('UPDATE properties SET updated_at = ? WHERE id = ?');
    db.transaction(() => {
      // A whole block's records updated, one after another (its block is left empty), ...
      ids(a.accountId, `LIMIT ${ORDER_BLOCK} OFFSET ${ORDER_BLOCK}`).forEach((id, k) =>
        setUpdated.run(BASE + span0 + k * 3, id),
      );
      // ... records at random updated, some several times, some to the same instant ...
      const all = ids(a.accountId);
      for (let k = 0; k < 900; k++) {
        const id = all[Math.floor(rnd() * all.length)] as number;
        setUpdated.run(BASE + span0 * 2 + k * 11 - (k % 4 === 0 ? 11 : 0), id);
      }
      // ... some set back in time, into blocks in the middle (a clock set back), some to what they had.
      for (let k = 0; k < 150; k++) setUpdated.run(BASE + Math.floor(rnd() * span0), all[k * 30] as number);
      db.prepare('UPDATE properties SET updated_at = updated_at WHERE account_id = ? AND id % 3 = 0').run(a.accountId);
      // The other account's records updated too.
      ids(b.accountId, 'LIMIT 300').forEach((id, k) => setUpdated.run(BASE + span0 + k, id));
    })();
    await expectTotals(a.api, a.accountId, rnd, span, UPDATED);
    // Through the API, as a user updates a record: it takes the server's clock.
    const uuids = db
      .prepare('SELECT uuid FROM properties WHERE account_id = ? ORDER BY id LIMIT 40')
      .pluck()
      .all(a.accountId) as string[];
    for (const [k, uuid] of uuids.entries()) {
      clock.set(BASE + span0 * 2.5 + k * 7);
      const res = await a.api('PUT', `/properties/${uuid}`, propertyBody({ address: `${k} New Street` }));
      expect(res.status, res.text).toBe(200);
    }
    await expectTotals(a.api, a.accountId, rnd, span, UPDATED);
    // Every record updated in turn, twice: the blocks they leave do not pile up.
    for (const round of [0, 1])
      db.transaction(() =>
        ids(a.accountId).forEach((id, k) => setUpdated.run(BASE + span0 * (2.6 + round * 0.2) + k, id)),
      )();
    const held = ids(a.accountId).length;
    expect(updateBlocks(a.accountId)).toEqual({ blocks: Math.ceil(held / ORDER_BLOCK), empty: 0 });
    await expectTotals(a.api, a.accountId, rnd, span, UPDATED);
    // Deletes: a run of records in update order, and others here and there.
    db.prepare(
      'DELETE FROM properties WHERE id IN (SELECT id FROM properties WHERE account_id = ? ORDER BY updated_at, id LIMIT ? OFFSET ?)',
    ).run(a.accountId, ORDER_BLOCK + 10, ORDER_BLOCK - 5);
    db.prepare('DELETE FROM properties WHERE account_id = ? AND id % 7 = 0').run(a.accountId);
    await expectTotals(a.api, a.accountId, rnd, span, UPDATED);
    await expectTotals(b.api, b.accountId, rnd, span, UPDATED);
    expect(updateBlocks(a.accountId).empty).toBe(0);
    // The created_at ranges are still counted right after all of it.
    await expectTotals(a.api, a.accountId, rnd, span0, CREATED);
  });

  it('takes whole blocks at their kept sizes', () => wholeBlocksAtKeptSizes(UPDATED));
});

describe('an update-time range list, its pages', () => {
  it('are what ordering its rows gives, whether walked in list order, sorted, or page after page', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const rnd = random(43);
    const n = ORDER_BLOCK * 3;
    insert(
      a.accountId,
      Array.from({ length: n }, (_, i) => BASE + i * 10 - (i % 6 === 0 ? 10 : 0)),
    );
    insert(
      b.accountId,
      Array.from({ length: ORDER_BLOCK }, (_, i) => BASE + i * 10),
    );
    const db = server.sqlite.db;
    const ids = db
      .prepare('SELECT id FROM properties WHERE account_id = ? ORDER BY created_at, id')
      .pluck()
      .all(a.accountId) as number[];
    const setUpdated = db.prepare('UPDATE properties SET updated_at = ? WHERE id = ?');
    const late = BASE + n * 40;
    db.transaction(() =>
      ids.forEach((id, k) => {
        // The first half as made; the rest updated at random across the span; the last fifth
        // updated late, together (matches at the list's end alone: no walk from its start finds them).
        if (k >= n * 0.8) setUpdated.run(late + Math.floor(rnd() * 500), id);
        else if (k >= n / 2) setUpdated.run(BASE + Math.floor(rnd() * n * 10), id);
      }),
    )();
    const truth = db.prepare(
      `SELECT uuid FROM properties WHERE account_id = ? AND updated_at >= ? AND updated_at < ?
       ORDER BY created_at, id LIMIT ? OFFSET ?`,
    );
    const check = async (start: number, end: number, perPage: number, page: number) => {
      const range = encodeURIComponent(`${new Date(start).toISOString()}/${new Date(end).toISOString()}`);
      const res = await a.api('GET', `/properties?updated_at=${range}&per_page=${perPage}&page=${page}`);
      expect(res.status, res.text).toBe(200);
      const want = truth.pluck().all(a.accountId, start, end, perPage, (page - 1) * perPage);
      expect(
        res.body.data.map((x: { uuid: string }) => x.uuid),
        `${new Date(start).toISOString()}/${new Date(end).toISOString()} per_page=${perPage} page=${page}`,
      ).toEqual(want);
      return res.body.meta.pagination.total as number;
    };
    const ranges: [number, number][] = [
      [BASE - 100, late + 1000],
      [BASE, BASE + n * 5],
      [BASE + n * 2, BASE + n * 8],
      [late, late + 1000],
      [late + 100, late + 200],
    ];
    for (let k = 0; k < 25; k++) {
      const x = BASE + Math.floor(rnd() * n * 10);
      ranges.push([x, x + 1 + Math.floor(rnd() * n * 10)]);
    }
    for (const [start, end] of ranges) {
      const perPage = [1, 7, 25, 100][Math.floor(rnd() * 4)] as number;
      const total = await check(start, end, perPage, 1);
      const pages = Math.max(1, Math.ceil(total / perPage));
      // A page at random, then the pages after it one after another (each from where the one
      // before ended), and the last page.
      const from = 1 + Math.floor(rnd() * pages);
      for (let p = from; p < Math.min(pages, from + 3) + 1; p++) await check(start, end, perPage, p);
      await check(start, end, perPage, pages);
    }
  });
});

describe('a data file made before the update blocks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-update-blocks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is upgraded: the records already there are counted right by update time, and after updates', async () => {
    const file = join(dir, 'before.db');
    const made = withFunctions(new Database(file));
    const before = migrations().findIndex(
      (m) => typeof m !== 'function' && m.some((x) => x.startsWith('CREATE TABLE update_blocks')),
    );
    expect(before).toBeGreaterThan(2);
    for (const m of migrations().slice(0, before)) {
      if (typeof m === 'function') m(made);
      else for (const sql of m) made.exec(sql);
    }
    made.pragma(`user_version = ${before}`);
    made.exec(`INSERT INTO accounts (id, name, created_at) VALUES (1, 'a', 0), (2, 'b', 0)`);
    const rnd = random(42);
    const row = made.prepare(
      `INSERT INTO properties (account_id, uuid, created_at, updated_at, address, postcode, address_fold, postcode_fold)
       VALUES (?, ?, ?, ?, 'x', 'y', 'x', 'y')`,
    );
    const span = ORDER_BLOCK * 30;
    made.transaction(() => {
      // Account 1: three and a half blocks, updated at times in no order (some at one instant); account 2 beside.
      for (let i = 0; i < ORDER_BLOCK * 3.5; i++) {
        row.run(1, randomUUID(), BASE + i, BASE + Math.floor(rnd() * span) - (i % 9 === 0 ? 1 : 0));
        if (i % 3 === 0) row.run(2, randomUUID(), BASE + i, BASE + Math.floor(rnd() * span));
      }
    })();
    made.exec(`INSERT INTO users (id, account_id, name, created_at) VALUES (1, 1, 'a', 0), (2, 2, 'b', 0)`);
    made.close();

    const store = openStore(file, clock.now);
    const upgraded = await startServer({ dataFile: file, store, port: 0 });
    try {
      const db = store.db;
      const apis = [1, 2].map((u) => makeApi(upgraded.url, store.createToken(u, 'test', ALL_SCOPES).token));
      const check = async () => {
        for (const [i, api] of apis.entries()) {
          const accountId = i + 1;
          const starts = db
            .prepare(`SELECT updated_at FROM update_blocks WHERE account_id = ? AND tbl = 'properties'`)
            .pluck()
            .all(accountId) as number[];
          expect(starts.length).toBeGreaterThan(accountId === 1 ? 3 : 1);
          const at = () => (starts[Math.floor(rnd() * starts.length)] as number) + Math.floor(rnd() * 3) - 1;
          const any = () => BASE - 10 + Math.floor(rnd() * (span + 20));
          for (let k = 0; k < 60; k++) {
            const [x, y] = k % 2 ? [at(), any()] : [at(), at()];
            const [start, end] = [Math.min(x, y), Math.max(x, y) + 1];
            const rows = db
              .prepare('SELECT COUNT(*) FROM properties WHERE account_id = ? AND updated_at >= ? AND updated_at < ?')
              .pluck()
              .get(accountId, start, end);
            const range = encodeURIComponent(`${new Date(start).toISOString()}/${new Date(end).toISOString()}`);
            const res = await api('GET', `/properties?per_page=2&updated_at=${range}`);
            expect(res.status, res.text).toBe(200);
            expect(res.body.meta.pagination.total, `${accountId}: ${start}/${end}`).toBe(rows);
          }
        }
      };
      await check();
      // Updated after the upgrade: each moves to the end of its account's update order.
      const some = db
        .prepare('SELECT uuid FROM properties WHERE account_id = 1 ORDER BY updated_at LIMIT 30')
        .pluck()
        .all() as string[];
      for (const [k, uuid] of some.entries()) {
        clock.set(BASE + span - 5 + k);
        expect((await apis[0]?.('PUT', `/properties/${uuid}`, propertyBody()))?.status).toBe(200);
      }
      await check();
    } finally {
      await upgraded.close();
      store.close();
    }
  });
});
