/**
 * The total of a list filtered by a creation-time range alone is counted from the order blocks
 * (whole blocks by their kept sizes, the rows at the range's two ends one by one): it must be
 * exactly what counting the rows gives, whatever the range, through records made in order and
 * out of order, deleted here and there, beside another account's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BLOCK } from '../../src/server/schema.js';
import type { Api } from '../helpers/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertProperties } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const BASE = Date.UTC(2026, 0, 1);

function insert(accountId: number, times: number[]): void {
  insertProperties(server.sqlite.db, accountId, times);
}

/** The account's records created in [start, end), counted row by row. */
function counted(accountId: number, start: number, end: number): number {
  return (
    server.sqlite.db
      .prepare('SELECT COUNT(*) AS n FROM properties WHERE account_id = ? AND created_at >= ? AND created_at < ?')
      .get(accountId, start, end) as { n: number }
  ).n;
}

async function totalOf(api: Api, start: number, end: number): Promise<number> {
  const range = `${new Date(start).toISOString()}/${new Date(end).toISOString()}`;
  const res = await api('GET', `/properties?per_page=3&created_at=${encodeURIComponent(range)}`);
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
function ranges(accountId: number, rnd: () => number, span: number): [number, number][] {
  const starts = (
    server.sqlite.db
      .prepare(`SELECT created_at AS c FROM order_blocks WHERE account_id = ? AND tbl = 'properties'`)
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

async function expectTotals(api: Api, accountId: number, rnd: () => number, span: number): Promise<void> {
  for (const [start, end] of ranges(accountId, rnd, span))
    expect(await totalOf(api, start, end), `${new Date(start).toISOString()}/${new Date(end).toISOString()}`).toBe(
      counted(accountId, start, end),
    );
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

  it('takes whole blocks at their kept sizes', async () => {
    // What the blocks keep is what the total says: a block's size changed behind the triggers'
    // back shows in a range that holds that block whole, not in one within it.
    const a = await server.newAccount();
    insert(
      a.accountId,
      Array.from({ length: ORDER_BLOCK * 4 }, (_, i) => BASE + i),
    );
    const db = server.sqlite.db;
    const second = db
      .prepare(
        `SELECT created_at AS c FROM order_blocks WHERE account_id = ? AND tbl = 'properties' ORDER BY created_at LIMIT 1 OFFSET 1`,
      )
      .get(a.accountId) as { c: number };
    db.prepare(`UPDATE order_blocks SET n = n + 5 WHERE account_id = ? AND tbl = 'properties' AND created_at = ?`).run(
      a.accountId,
      second.c,
    );
    expect(await totalOf(a.api, BASE, BASE + ORDER_BLOCK * 4)).toBe(ORDER_BLOCK * 4 + 5);
    expect(await totalOf(a.api, second.c + 1, second.c + 100)).toBe(99);
  });
});
