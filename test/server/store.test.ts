/** The SQLite store below the API: its statement cache stays bounded whatever filters clients send. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListQuery } from '../../src/core/query.js';
import { validateBody } from '../../src/core/validate.js';
import { fieldOf, properties } from '../../src/resources/index.js';
import type { FieldDef } from '../../src/resources/types.js';
import { openStore, type SqliteStore } from '../../src/server/index.js';
import { StatementCache } from '../../src/server/sqlite/statements.js';
import { propertyBody } from './fixtures.js';

describe('the statement cache', () => {
  it('keeps at most its bound, dropping the least recently used', () => {
    const store = openStore(':memory:');
    try {
      const cache = new StatementCache(store.db, 3);
      const a = cache.get('SELECT 1');
      cache.get('SELECT 2');
      cache.get('SELECT 3');
      expect(cache.get('SELECT 1')).toBe(a); // now the most recently used
      cache.get('SELECT 4'); // drops SELECT 2
      expect(cache.size).toBe(3);
      expect(cache.get('SELECT 1')).toBe(a);
      const b = cache.get('SELECT 2'); // prepared again, dropping SELECT 3
      expect(b.get()).toEqual({ 2: 2 });
      expect(cache.size).toBe(3);
    } finally {
      store.close();
    }
  });

  describe('under 10,000 distinct filter shapes', () => {
    let store: SqliteStore;
    let accountId: number;
    /** An account without records: a list of it runs only its COUNT. */
    let empty: number;
    beforeAll(() => {
      store = openStore(':memory:');
      accountId = store.createAccount('a').accountId;
      empty = store.createAccount('b').accountId;
      for (const bedrooms of [1, 2, 3])
        store.create(
          accountId,
          properties,
          validateBody(properties, propertyBody({ bedrooms, bathrooms: 1 }), 'create'),
        );
    });
    afterAll(() => store?.close());

    const bedrooms = fieldOf(properties, 'bedrooms') as FieldDef;
    const bathrooms = fieldOf(properties, 'bathrooms') as FieldDef;
    /** bedrooms IN (1..k) AND bathrooms IN (1..m): a SQL text of its own for every k and m. */
    const query = (k: number, m: number): ListQuery => ({
      conditions: [
        { kind: 'int', field: bedrooms, values: Array.from({ length: k }, (_, i) => i + 1) },
        { kind: 'int', field: bathrooms, values: Array.from({ length: m }, (_, i) => i + 1) },
      ],
      page: 1,
      perPage: 10,
      embed: [],
    });

    it('stays at its bound, and answers alike before and after its statements were dropped', () => {
      const first = store.list(accountId, properties, query(2, 1));
      expect(first.total).toBe(2);
      for (let k = 1; k <= 100; k++) for (let m = 1; m <= 100; m++) store.list(empty, properties, query(k, m));
      expect(store.statements.size).toBe(store.statements.max);
      expect(store.statements.max).toBe(200);
      expect(store.list(accountId, properties, query(2, 1))).toEqual(first);
    });
  });
});

describe("page N+1's hint (the keyset from where page N ended)", () => {
  const rp = properties;
  const query = (page: number, bedrooms: number): ListQuery => ({
    page,
    perPage: 5,
    conditions: [{ kind: 'int', field: fieldOf(rp, 'bedrooms') as FieldDef, values: [bedrooms] }],
    embed: [],
  });
  /** What a call gives, and the SQL texts it runs. */
  function traced<T>(store: SqliteStore, fn: () => T): { result: T; sqls: string[] } {
    const seen: string[] = [];
    const get = store.statements.get.bind(store.statements);
    store.statements.get = (sql: string) => {
      seen.push(sql);
      return get(sql);
    };
    try {
      return { result: fn(), sqls: seen };
    } finally {
      store.statements.get = get;
    }
  }
  const keyset = (sqls: string[]) => sqls.some((s) => s.includes('(t.created_at, t.id) > (?, ?)'));

  it("holds whatever another account writes, and not past the account's own write", () => {
    const store = openStore(':memory:');
    try {
      const a = store.createAccount('a').accountId;
      const b = store.createAccount('b').accountId;
      const make = (account: number, bedrooms: number) =>
        store.create(account, rp, validateBody(rp, propertyBody({ bedrooms }), 'create'));
      const mine = Array.from({ length: 12 }, () => make(a, 2).uuid as string);
      const uuids = (page: number) => store.list(a, rp, query(page, 2)).records.map((r) => r.uuid);
      expect(uuids(1)).toEqual(mine.slice(0, 5));
      // Another account writes between page 1 and page 2: page 2 still starts where page 1 ended.
      make(b, 2);
      const second = traced(store, () => uuids(2));
      expect(keyset(second.sqls)).toBe(true);
      expect(second.result).toEqual(mine.slice(5, 10));
      // The account itself changes a record of page 2 so that it no longer matches: page 3 is read
      // afresh, and is what an OFFSET gives now.
      store.update(a, rp, mine[6] as string, validateBody(rp, propertyBody({ bedrooms: 4 }), 'update'));
      const third = traced(store, () => uuids(3));
      expect(keyset(third.sqls)).toBe(false);
      expect(third.result).toEqual(mine.filter((u) => u !== mine[6]).slice(10, 15));
    } finally {
      store.close();
    }
  });
});
