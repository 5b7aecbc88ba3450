/**
 * A list in PostgreSQL (its page and total in one statement), and PostgreSQL's dialect for the
 * operations shared with SQLite (../sql/; docs/architecture.md says what differs).
 */
import type { ListQuery } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { fold, foldColumnOf, keysColumnOf } from '../columns.js';
import { distinctSearchKeys } from '../search-keys.js';
import { likeEscaped } from '../sql/custom-values.js';
import { embed } from '../sql/records.js';
import { selectList, toRecord } from '../sql/rows.js';
import { type Dialect, get, type Query, runSteps } from '../sql/steps.js';
import { whereSql } from '../sql/where.js';
import type { RecordPage } from '../store.js';
import type { Pg } from './db.js';

/** The first key of the advisory locks (two keys: the second an account's) that custom field names are chosen under. */
const NAMES_LOCK = 734_013;

export function pgDialect(now: () => number): Dialect {
  // LIKE's escape character is the backslash already: no ESCAPE clause.
  const contains: Dialect['contains'] = (column, folded, params) => {
    params.push(`%${likeEscaped(folded)}%`);
    return `${column} LIKE ?`;
  };
  return {
    contains,
    // Each fold column written gets its search keys beside it (migration 5).
    withSearchKeys(accountId, cols) {
      for (const name of Object.keys(cols))
        if (name.endsWith('_fold')) cols[keysColumnOf(name)] = distinctSearchKeys(accountId, cols[name]);
    },
    // The rows whose keys hold every key of the value (the account's own, in the GIN index of the
    // column's keys), tested for the value itself.
    indexed(_r, alias, c, accountId, params) {
      const folded = fold(c.value, c.field.filter);
      const keys = distinctSearchKeys(accountId, folded) ?? [];
      if (!keys.length) return undefined;
      const column = foldColumnOf(c.field) as string;
      params.push(keys);
      return `${alias}."${keysColumnOf(column)}" @> ?::text[] AND ${contains(`${alias}."${column}"`, folded, params)}`;
    },
    inIds: (column) => `${column} = ANY(?::bigint[])`,
    ids: (ids) => ids,
    // SQLite's NOCASE: ASCII letters alone are folded, which lower() does under the C collation.
    equalsNoCase: (column) => `lower(${column} COLLATE "C") = lower(?::text COLLATE "C")`,
    forUpdate: ' FOR UPDATE',
    uniqueViolated(e) {
      const err = e as { code?: string; constraint?: string };
      return err.code === '23505' ? err.constraint : undefined;
    },
    // Held to the end of the transaction: two creates at once with one label get two names, as on SQLite.
    lockNames: (accountId) =>
      get('SELECT pg_advisory_xact_lock(?::integer, ?::integer)', [NAMES_LOCK, accountId % 2 ** 31]),
    now,
  };
}

/** Runs one statement of ../sql/ (prepared once per connection); an insert returns its id. */
export async function execute(pg: Pg, q: Query): Promise<unknown> {
  switch (q.op) {
    case 'rows':
      return pg.query(q.sql, q.params);
    case 'get':
      return (await pg.query(q.sql, q.params))[0];
    case 'run':
      return pg.run(q.sql, q.params);
    case 'insert':
      return (await pg.query(`${q.sql} RETURNING id`, q.params))[0]?.id;
  }
}

export async function listRecords(
  pg: Pg,
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  q: ListQuery,
): Promise<RecordPage> {
  const params: unknown[] = [accountId];
  const where = ['t.account_id = ?', ...whereSql(d, r, 't', q.conditions, accountId, params)].join(' AND ');
  const offset = (q.page - 1) * q.perPage;
  // The total and the page in one statement (one snapshot, one round trip): the count's one row,
  // joined to the page's rows (none past the end: the page's columns are then null). The page's
  // ids are found first, on the order index, so that the rows skipped are never read whole (nor
  // their live counts computed).
  // An unfiltered list's total is the count kept by migration 3's triggers.
  const counted = !q.conditions.length;
  const count = counted
    ? `SELECT COALESCE((SELECT n FROM record_counts WHERE account_id = ? AND tbl = ?), 0) AS n`
    : `SELECT COUNT(*) AS n FROM ${r.table} t WHERE ${where}`;
  const rows = await pg.query(
    `SELECT c.n AS _total, p.* FROM (${count}) c
     LEFT JOIN LATERAL (SELECT ${selectList(r, 't')} FROM ${r.table} t WHERE t.id IN (
       SELECT t.id FROM ${r.table} t WHERE ${where} ORDER BY t.created_at, t.id LIMIT ? OFFSET ?)
       ORDER BY t.created_at, t.id) p ON true`,
    [...(counted ? [accountId, r.table] : params), ...params, q.perPage, offset],
    false,
  );
  const total = (rows[0]?._total as number | undefined) ?? 0;
  const page = rows.filter((row) => row._id !== null);
  const records = page.map((row) => toRecord(r, row));
  await runSteps((x) => execute(pg, x), embed(d, accountId, r, q.embed, page, records));
  return { records, total };
}
