/**
 * Migration 3 over a data file that already holds records (made by a build at migration 2): the
 * counts, the order blocks and the trigram index it fills give the same totals, pages and
 * matches as reading the rows, in every account.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseListQuery } from '../../src/core/query.js';
import { properties } from '../../src/resources/index.js';
import { openStore } from '../../src/server/index.js';
import { migrations, ORDER_BLOCK } from '../../src/server/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'pm-scale-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migration 3 on a file with records', () => {
  it('fills counts, order blocks and the trigram index so that lists answer as the rows say', async () => {
    const file = join(dir, 'two.db');
    const old = new Database(file);
    for (const m of migrations().slice(0, 2)) {
      if (typeof m === 'function') m(old);
      else for (const sql of m) old.exec(sql);
    }
    old.pragma(`user_version = 2`);
    old.exec(`INSERT INTO accounts (id, name, created_at) VALUES (1, 'a', 0), (2, 'b', 0)`);
    const insert = old.prepare(
      `INSERT INTO properties (account_id, uuid, created_at, updated_at, address, postcode, city, address_fold, postcode_fold, city_fold)
       VALUES (?, ?, ?, ?, 'x', 'LS1 1AA', ?, 'x', 'ls11aa', ?)`,
    );
    old.transaction(() => {
      // Account 1: two and a half blocks, some made at the same instant; account 2 interleaved.
      for (let i = 0; i < ORDER_BLOCK * 2.5; i++) {
        const city = i % 3 ? 'York' : 'Leeds';
        insert.run(1, randomUUID(), Math.floor(i / 2), 0, city, city.toLowerCase());
        if (i % 4 === 0) insert.run(2, randomUUID(), i, 0, 'Leeds', 'leeds');
      }
    })();
    old.close();

    const store = openStore(file);
    try {
      const rows = (accountId: number, where = '') =>
        (
          store.db
            .prepare(`SELECT uuid FROM properties WHERE account_id = ? ${where} ORDER BY created_at, id`)
            .all(accountId) as { uuid: string }[]
        ).map((r) => r.uuid);
      const list = async (accountId: number, qs: string) => {
        const got = await store.list(accountId, properties, parseListQuery(properties, new URLSearchParams(qs), 0));
        return { uuids: got.records.map((r) => r.uuid), total: got.total };
      };
      for (const accountId of [1, 2]) {
        const all = rows(accountId);
        for (const page of [1, 2, 150, 205, 206, 256, 257]) {
          const got = await list(accountId, `per_page=10&page=${page}`);
          expect(got.total).toBe(all.length);
          expect(got.uuids, `account ${accountId} page ${page}`).toEqual(all.slice((page - 1) * 10, page * 10));
        }
        const leeds = rows(accountId, `AND city = 'Leeds'`);
        for (const page of [1, 30, 86]) {
          const got = await list(accountId, `city=eeds&per_page=10&page=${page}`);
          expect(got.total).toBe(leeds.length);
          expect(got.uuids).toEqual(leeds.slice((page - 1) * 10, page * 10));
        }
      }
    } finally {
      store.close();
    }
  });
});
