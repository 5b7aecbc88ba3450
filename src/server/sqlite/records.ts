/**
 * A list of the records of a resource in SQLite, with its total: the counts, order blocks,
 * trigram indexes and keyset pages that keep a list's cost to its matches. The other record
 * operations are ../sql/records.ts's, shared with PostgreSQL.
 */
import type { ListQuery } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { ORDER_BLOCK } from '../schema.js';
import { embed } from '../sql/records.js';
import { selectList, toRecord } from '../sql/rows.js';
import type { Row } from '../sql/steps.js';
import { whereSql } from '../sql/where.js';
import type { RecordPage } from '../store.js';
import { budgetGate, trigramKeys, trigramMatch } from './dialect.js';
import type { Sql, SqliteTuning } from './statements.js';

/**
 * How many rows a page may walk in the order index, per match, before the page is sorted from the
 * trigram index's matches instead: walking reads a row and tests it (about a tenth of what
 * looking a match up and sorting it costs), so with matches dense enough the walk wins.
 */
const WALK_PER_MATCH = 8;

/**
 * How lists are planned, by default:
 * - scanBelow: the size under which a fuzzy filter beside another one is tested on the rows rather
 *   than looked up in the trigram index: at 3,000 properties, `city=leeds&bedrooms=3` costs 112 µs
 *   of SQL that way against 261 µs from the index (figure 6a).
 * - fewCandidates: a fuzzy value's phrase in the index reads the whole list of every trigram in it,
 *   common ones too ("sta" of `295 station`: 1.2 ms at 100,000 properties). Its first and last
 *   trigrams alone are found by seeking from the rarer (0.2 ms there); when they give at most this
 *   many candidates, the value itself is tested on each candidate's row.
 */
export const TUNING: Required<SqliteTuning> = { scanBelow: 20_000, fewCandidates: 1_000 };

/** An account's records in a table, kept by triggers (schema.ts, migration 3). */
export function keptCount(sql: Sql, accountId: number, table: string): number {
  const row = sql.statements.get('SELECT n FROM record_counts WHERE account_id = ? AND tbl = ?').get(accountId, table);
  return (row as { n: number } | undefined)?.n ?? 0;
}

export function listRecords(sql: Sql, accountId: number, r: ResourceDef, q: ListQuery): RecordPage {
  const offset = (q.page - 1) * q.perPage;
  // The page size is written into the SQL (a whole number parseListQuery checked): SQLite plans a
  // known LIMIT better than a bound one (a tenth off a filtered page), and lists use few sizes.
  const limit = `LIMIT ${Math.trunc(q.perPage)}`;
  const order = `ORDER BY t.created_at, t.id ${limit} OFFSET ?`;
  const select = `SELECT ${selectList(r, 't')}`;
  const params: unknown[] = [accountId];
  const where = ['t.account_id = ?', ...whereSql(sql.dialect, r, 't', q.conditions, accountId, params)].join(' AND ');
  const one = (text: string, p: unknown[]) => (sql.statements.get(text).get(...p) as { n: number } | undefined)?.n ?? 0;
  const all = (text: string, p: unknown[]) => sql.statements.get(text).all(...p) as Row[];
  // An unfiltered list's total.
  const kept = () => keptCount(sql, accountId, r.table);
  // The account's writes so far (every table's: a relational filter reads others), read before the
  // list: a hint whose count is this one was read with nothing of the account's written since.
  const writes = one('SELECT COALESCE(SUM(writes), 0) AS n FROM record_counts WHERE account_id = ?', [accountId]);
  let total: number;
  let rows: Row[] | undefined;
  // A fuzzy filter the trigram index answers gives the count from the index (the account's keys
  // alone when it is the only filter; else its matches' rows, tested for the rest): the matches'
  // number sets the cost, not the table's. With few candidates (TUNING), from those, tested.
  // Below tuning.scanBelow records, a list with another filter as well reads the rows that filter
  // leaves (through its index) and tests the fuzzy one on each: cheaper there than the index.
  const scan =
    q.conditions.some((c) => c.kind === 'fuzzy') &&
    q.conditions.some((c) => c.kind !== 'fuzzy') &&
    kept() < sql.tuning.scanBelow;
  const driver = scan
    ? undefined
    : q.conditions.map((c) => ({ c, m: trigramMatch(sql.trigram, r, c, accountId) })).find((x) => x.m);
  if (driver?.m) {
    const [first, last] = trigramKeys(accountId);
    // pm_budget() is asked of the rows the index gives (budgetGate), as of the rows tested.
    const match = `f."${driver.m.column}" MATCH ? AND f.rowid BETWEEN ? AND ? AND ${budgetGate('f.rowid')} = 0`;
    const few = sql.tuning.fewCandidates;
    const probe = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${r.table}_fts f WHERE ${match} LIMIT ${few + 1})`;
    const candidates = few ? one(probe, [driver.m.ends, first, last]) : few + 1;
    // Few candidates, or candidates that may not match (a long value, a long field: dialect.ts):
    // the value is tested on their rows, as any other condition.
    const tested = candidates <= few || !driver.m.exact;
    const rest = tested ? q.conditions : q.conditions.filter((c) => c !== driver.c);
    const p: unknown[] = [first, candidates <= few ? driver.m.ends : driver.m.match, first, last, accountId];
    const w = [match, 't.account_id = ?', ...whereSql(sql.dialect, r, 't', rest, accountId, p)].join(' AND ');
    const from = `${r.table}_fts f JOIN ${r.table} t ON t.id = f.rowid - ?`;
    total = rest.length
      ? one(`SELECT COUNT(*) AS n FROM ${from} WHERE ${w}`, p)
      : one(`SELECT COUNT(*) AS n FROM ${r.table}_fts f WHERE ${match}`, [driver.m.match, first, last]);
    // The page: from the order index, testing each row, when the matches are dense enough that
    // it reaches the page soon; else the matches sorted.
    const walk = ((offset + q.perPage) * kept()) / Math.max(total, 1);
    if (offset >= total) rows = [];
    else if (walk > WALK_PER_MATCH * total) rows = all(`${select} FROM ${from} WHERE ${w} ${order}`, [...p, offset]);
  } else if (!q.conditions.length) {
    total = kept();
    // A deep page starts from the order block it falls in (schema.ts): the block sizes before it
    // are added up, and only the records of that block before the page are walked.
    if (offset >= 2 * ORDER_BLOCK && offset < total) {
      const block = sql.statements
        .get(
          `SELECT created_at AS c, id AS i, before FROM (
             SELECT created_at, id, SUM(n) OVER (ORDER BY created_at, id) - n AS before
             FROM order_blocks WHERE account_id = ? AND tbl = ?
           ) WHERE before <= ? ORDER BY created_at DESC, id DESC LIMIT 1`,
        )
        .get(accountId, r.table, offset) as { c: number; i: number; before: number } | undefined;
      if (block)
        rows = all(
          `${select} FROM ${r.table} t WHERE t.id IN (SELECT t.id FROM ${r.table} t WHERE t.account_id = ? AND (t.created_at, t.id) >= (?, ?) ${order}) ORDER BY t.created_at, t.id`,
          [accountId, block.c, block.i, offset - block.before],
        );
    }
  } else total = one(`SELECT COUNT(*) AS n FROM ${r.table} t WHERE ${where}`, params);
  // Page N+1 right after page N of the same list, with nothing of the account's written in between
  // (what other accounts write does not matter, and cannot be told from how long a page takes):
  // from where page N ended (the same rows an OFFSET gives, without walking the ones before).
  // Otherwise the page's ids first, walking the order index alone (no row is read for the ones skipped).
  const shape = `${r.table}\u0000${where}\u0000${JSON.stringify(params)}\u0000${q.perPage}`;
  const hint = sql.pageEnds.get(shape);
  const fresh = hint && hint.page === q.page - 1 && hint.writes === writes;
  if (!rows && offset < total && fresh)
    rows = all(
      `${select} FROM ${r.table} t WHERE ${where} AND (t.created_at, t.id) > (?, ?) ORDER BY t.created_at, t.id ${limit}`,
      [...params, hint.createdAt, hint.id],
    );
  // A walk of the order index for a list the trigram index drives may test many rows (a few per
  // match): pm_budget() is asked on every 64th.
  const walked = driver?.m ? ` AND ${budgetGate('t.id')} = 0` : '';
  rows ??=
    offset >= total
      ? []
      : all(
          `${select} FROM ${r.table} t WHERE t.id IN (SELECT t.id FROM ${r.table} t WHERE ${where}${walked} ${order}) ORDER BY t.created_at, t.id`,
          [...params, offset],
        );
  const last = rows[rows.length - 1];
  if (last && !driver?.m) sql.pageEnds.set(shape, { page: q.page, createdAt: last.created_at, id: last._id, writes });
  const records = rows.map((row) => toRecord(r, row));
  sql.run(embed(sql.dialect, accountId, r, q.embed, rows, records));
  return { records, total };
}
