/**
 * The machinery every record table gets from its spec (src/server/tables.ts), checked table by
 * table on both stores: its kept count (an unfiltered list's total), an update-time range's total
 * (SQLite's update blocks), its search index (a fuzzy filter of three characters or more, led by
 * the account), a deep page (SQLite's order blocks), and that a full-scope token reads and writes
 * it. A table added without its triggers fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldOf, filterFields, RESOURCES } from '../../src/resources/index.js';
import type { FieldDef, ResourceDef } from '../../src/resources/types.js';
import { describedColumns, foldColumnOf, keysColumnOf } from '../../src/server/columns.js';
import { ORDER_BLOCK } from '../../src/server/schema.js';
import { searchKeysOf } from '../../src/server/search-keys.js';
import { type Account, ON_POSTGRES, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

/** Past two order blocks, so that a deep page starts from a block rather than from the first record. */
const COPIES = 2 * ORDER_BLOCK + 60;

/** An update-time range that holds every record. */
const EVER = '2000-01-01T00:00:00Z/2100-01-01T00:00:00Z';

/** The fuzzy-filtered text field a test searches: a required one where there is one. */
const searched = (r: ResourceDef): FieldDef =>
  filterFields(r)
    .filter((f) => f.filter === 'fuzzy' && !f.readOnly)
    .sort((x, y) => Number(!!y.requiredOnCreate) - Number(!!x.requiredOnCreate))[0] as FieldDef;

/** A body a create of `r` accepts, its searched field holding `text`. */
function bodyOf(r: ResourceDef, text: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const fuzzy = searched(r);
  for (const f of r.fields.filter((x) => x.requiredOnCreate || x === fuzzy)) {
    if (f.kind === 'code') body[f.name] = { code: Number(Object.keys(f.codes ?? {})[0]) };
    else body[f.name] = f === fuzzy ? text : `${f.name} 1`;
  }
  return body;
}

/** The path a record of `r` is created at: under a new record of its first parent, where it has parents. */
async function createPath(a: Account, r: ResourceDef): Promise<string> {
  const parent = r.parents?.[0];
  if (!parent) return `/${r.path}`;
  const target = RESOURCES.find((x) => x.path === parent.target) as ResourceDef;
  const made = await a.api('POST', `/${target.path}`, bodyOf(target, 'parent'));
  expect(made.status, made.text).toBe(201);
  return `/${target.path}/${made.body.data.uuid}/${r.path}`;
}

/** COPIES copies of record `id` of `r` (their uuids its own with the copy's number in the last part), written by one statement: the table's triggers keep what they keep. */
async function copies(r: ResourceDef, id: number): Promise<void> {
  const own = describedColumns(r)
    .map((c) => c.name)
    .filter((n) => !['id', 'account_id', 'uuid', 'created_at', 'updated_at'].includes(n));
  // On PostgreSQL, each fold column's search keys are kept beside it: copied too (same account).
  if (ON_POSTGRES) own.push(...own.filter((n) => n.endsWith('_fold')).map(keysColumnOf));
  // A text column of a unique key (a custom field's name, a label) gets a number, as each copy must differ.
  const keyed = new Set(
    [...(r.unique ?? []).flat(), ...(r.labelledBy ?? [])].filter((n) => fieldOf(r, n)?.kind === 'text'),
  );
  const value = (n: string) => (keyed.has(n) ? `x."${n}" || '-' || s.n` : `x."${n}"`);
  await server.sql(
    `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${COPIES})
     INSERT INTO ${r.table} (account_id, uuid, created_at, updated_at, ${own.map((n) => `"${n}"`).join(', ')})
     SELECT x.account_id, substr(x.uuid, 1, 24) || substr('000000000000' || s.n, length(CAST(s.n AS TEXT)) + 1, 12), x.created_at + s.n, x.updated_at, ${own.map(value).join(', ')}
     FROM ${r.table} x, s WHERE x.id = ? RETURNING id`,
    [id],
  );
}

describe('every record table has its machinery', () => {
  for (const r of RESOURCES.filter((x) => x.verbs.create && x.verbs.list))
    it(`${r.path}: counts, update-time totals, search index, deep page, a full-scope token`, async () => {
      // newAccount's token is made with every scope: it must read and write every table, new ones too.
      const a = await server.newAccount();
      const path = await createPath(a, r);
      const first = await a.api('POST', path, bodyOf(r, 'common text'));
      expect(first.status, first.text).toBe(201);
      const [row] = await server.sql(`SELECT id FROM ${r.table} WHERE uuid = ?`, [first.body.data.uuid]);
      await copies(r, Number(row?.id));
      const last = await a.api('POST', path, bodyOf(r, 'zqxj unusual'));
      expect(last.status, last.text).toBe(201);
      const total = COPIES + 2;

      // Counts: an unfiltered list's total is the kept count.
      const listed = await a.api('GET', `/${r.path}?per_page=1`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.meta.pagination.total).toBe(total);
      const [kept] = await server.sql('SELECT n FROM record_counts WHERE account_id = ? AND tbl = ?', [
        a.accountId,
        r.table,
      ]);
      expect(Number(kept?.n)).toBe(total);

      // An update-time range's total (on SQLite, from the update blocks, which hold every record).
      const updatedTotal = async () =>
        (await a.api('GET', `/${r.path}?per_page=1&updated_at=${encodeURIComponent(EVER)}`)).body.meta.pagination.total;
      expect(await updatedTotal()).toBe(total);
      if (!ON_POSTGRES) {
        const [blocks] = await server.sql('SELECT SUM(n) AS n FROM update_blocks WHERE account_id = ? AND tbl = ?', [
          a.accountId,
          r.table,
        ]);
        expect(Number(blocks?.n)).toBe(total);
      }

      // The search index: a fuzzy filter finds the one record with the text, and every copy of the other.
      const fuzzy = searched(r);
      const found = await a.api('GET', `/${r.path}?${fuzzy.name}=QXJ%20unu`);
      expect(found.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([last.body.data.uuid]);
      expect((await a.api('GET', `/${r.path}?${fuzzy.name}=ommon&per_page=1`)).body.meta.pagination.total).toBe(
        total - 1,
      );
      if (!ON_POSTGRES) {
        const [fts] = await server.sql(`SELECT COUNT(*) AS n FROM ${r.table}_fts WHERE rowid BETWEEN ? AND ?`, [
          a.accountId * 2 ** 32,
          (a.accountId + 1) * 2 ** 32 - 1,
        ]);
        expect(Number(fts?.n)).toBe(total);
        // The index is led by the account: it holds the account's search keys, and no trigram
        // every account shares, so another account's records never add to what a search reads.
        const matching = async (phrase: string) =>
          Number(
            (await server.sql(`SELECT COUNT(*) AS n FROM ${r.table}_fts WHERE ${r.table}_fts MATCH ?`, [phrase]))[0]?.n,
          );
        const keys = (accountId: number) => `"${searchKeysOf(accountId, 'common').join(' ')}"`;
        expect(await matching(keys(a.accountId))).toBe(total - 1);
        expect(await matching(keys(a.accountId + 1))).toBe(0);
        expect(await matching('"common"')).toBe(0);
      } else {
        // The keys column beside the fold column (migration 5) holds the account's search keys alone.
        const column = keysColumnOf(foldColumnOf(fuzzy) as string);
        const holding = async (accountId: number) =>
          Number(
            (
              await server.sql(`SELECT COUNT(*) AS n FROM ${r.table} WHERE "${column}" @> ?::text[]`, [
                searchKeysOf(accountId, 'common'),
              ])
            )[0]?.n,
          );
        expect(await holding(a.accountId)).toBe(total - 1);
        expect(await holding(a.accountId + 1)).toBe(0);
      }

      // A deep page: the records a walk in list order gives.
      const perPage = 50;
      const page = Math.floor(total / perPage);
      const deep = await a.api('GET', `/${r.path}?per_page=${perPage}&page=${page}`);
      const want = await server.sql(
        `SELECT uuid FROM ${r.table} WHERE account_id = ? ORDER BY created_at, id LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
        [a.accountId],
      );
      expect(deep.body.data.map((x: { uuid: string }) => x.uuid)).toEqual(want.map((x) => x.uuid));

      // Deletes are counted too.
      if (r.verbs.delete) {
        expect((await a.api('DELETE', `/${r.path}/${last.body.data.uuid}`)).status).toBe(204);
        expect((await a.api('GET', `/${r.path}?per_page=1`)).body.meta.pagination.total).toBe(total - 1);
        expect(await updatedTotal()).toBe(total - 1);
      }
    });
});
