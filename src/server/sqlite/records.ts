/**
 * A list of the records of a resource in SQLite, with its total: the counts, order blocks,
 * trigram indexes and keyset pages that keep a list's cost to its matches. The other record
 * operations are ../sql/records.ts's, shared with PostgreSQL.
 */
import type { Condition, ListQuery } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { ORDER_BLOCK } from '../schema.js';
import { type BlockOrder, ORDER_BLOCKS, UPDATE_BLOCKS } from '../tables.js';
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
 *   many candidates, the value itself is tested on each candidate's row. A value of three keys or
 *   fewer is its whole phrase, which costs about what its ends do: it is not probed (`leeds` at
 *   10,000 properties: 0.26 ms of probe for nothing, its phrase 0.29 ms).
 */
export const TUNING: Required<SqliteTuning> = { scanBelow: 20_000, fewCandidates: 1_000 };

/** An account's records in a table, kept by triggers (schema.ts, migration 3). */
export function keptCount(sql: Sql, accountId: number, table: string): number {
  const row = sql.statements.get('SELECT n FROM record_counts WHERE account_id = ? AND tbl = ?').get(accountId, table);
  return (row as { n: number } | undefined)?.n ?? 0;
}

/**
 * The creation-time or update-time range of a list filtered by that alone, and the blocks that
 * keep the table in that order: its total is counted from them.
 */
function blockRange(conditions: readonly Condition[]): { blocks: BlockOrder; start: number; end: number } | undefined {
  const [c] = conditions;
  if (conditions.length !== 1 || c?.kind !== 'range') return undefined;
  const blocks = [ORDER_BLOCKS, UPDATE_BLOCKS].find((b) => b.column === c.field.name);
  return blocks && { blocks, ...c.range };
}

/**
 * An account's records of `table` whose `blocks.column` is in [start, end), from the blocks kept
 * in that order (tables.ts): the blocks that begin in the range, all but the last of them whole
 * (each ends where the next begins, still in the range), by their kept sizes; the rows before
 * the first of them and from the last of them to the range's end, counted one by one (at most
 * about two blocks' worth). A range that no block begins in is counted row by row: it lies
 * within one block.
 */
function rangeCount(
  sql: Sql,
  accountId: number,
  table: string,
  { blocks, start, end }: { blocks: BlockOrder; start: number; end: number },
): number {
  type Block = { c: number; i: number; n: number };
  const col = blocks.column;
  const inRange = `FROM ${blocks.table} WHERE account_id = ? AND tbl = ? AND ${col} >= ? AND ${col} < ?`;
  const p = [accountId, table, start, end];
  const first = sql.statements.get(`SELECT ${col} AS c, id AS i, n ${inRange} ORDER BY ${col}, id LIMIT 1`).get(...p) as
    | Block
    | undefined;
  const rows = (text: string, q: unknown[]) =>
    (
      sql.statements
        .get(`SELECT COUNT(*) AS n FROM ${table} t WHERE t.account_id = ? AND ${text}`)
        .get(accountId, ...q) as {
        n: number;
      }
    ).n;
  if (!first) return rows(`t.${col} >= ? AND t.${col} < ?`, [start, end]);
  const last = sql.statements
    .get(`SELECT ${col} AS c, id AS i, n ${inRange} ORDER BY ${col} DESC, id DESC LIMIT 1`)
    .get(...p) as Block;
  const whole =
    (sql.statements.get(`SELECT COALESCE(SUM(n), 0) AS n ${inRange}`).get(...p) as { n: number }).n - last.n;
  return (
    whole +
    rows(`t.${col} >= ? AND (t.${col}, t.id) < (?, ?)`, [start, first.c, first.i]) +
    rows(`(t.${col}, t.id) >= (?, ?) AND t.${col} < ?`, [last.c, last.i, end])
  );
}

/**
 * Whether a list may be driven by the trigram index (when one of its fuzzy filters is in it):
 * not when a fuzzy filter stands beside another filter on fewer records than `scanBelow` (the
 * rows the other filter leaves, tested, cost less there). `kept` (the account's records in the
 * table) is read only when that matters.
 */
export function mayUseIndex(
  conditions: readonly Pick<Condition, 'kind'>[],
  kept: () => number,
  scanBelow: number,
): boolean {
  const fuzzy = conditions.some((c) => c.kind === 'fuzzy');
  const other = conditions.some((c) => c.kind !== 'fuzzy');
  return !(fuzzy && other && kept() < scanBelow);
}

/**
 * How a page's rows are read, in the order to try them (only `block` may find nothing):
 * - `none`: the page is past the end.
 * - `matches`: the index's matches, sorted: when they are so sparse in the order index that
 *   walking it to the page would test more than WALK_PER_MATCH rows per match.
 * - `block`: an unfiltered deep page, from the order block it falls in (schema.ts).
 * - `window`: a list filtered by an update-time range alone, whose matches are dense: the order
 *   index walked from the list's start (or where the page before ended) for at most as many rows
 *   as there are matches, each tested; nothing when the page is not whole within them. SQLite
 *   would otherwise read the range on its own index and sort every match into list order (40,000
 *   for two fifths of 100,000 properties: 8 ms), and where the matches lie (recent records
 *   updated recently, say) cannot be told from their number: the walk is bounded so that it
 *   costs at most about what that sort does.
 * - `after`: from where the page before ended, when it was this list's and nothing was written since.
 * - `ids`: the page's ids first, walking the order index alone, then their rows.
 */
type PageWay = 'none' | 'matches' | 'block' | 'window' | 'after' | 'ids';

export interface PageShape {
  /** The rows before the page, the page's size, and the list's total. */
  readonly offset: number;
  readonly perPage: number;
  readonly total: number;
  /** The account's records in the table (read only for a list the index drives). */
  readonly kept: () => number;
  /** The trigram index drives the list. */
  readonly indexed: boolean;
  readonly unfiltered: boolean;
  /** The list is filtered by an update-time range alone. */
  readonly ranged?: boolean;
  /** The page before this one was this list's, and nothing of the account's was written since. */
  readonly fresh: boolean;
}

export function pageWays(s: PageShape): readonly PageWay[] {
  if (s.offset >= s.total) return ['none'];
  if (s.indexed && ((s.offset + s.perPage) * s.kept()) / Math.max(s.total, 1) > WALK_PER_MATCH * s.total)
    return ['matches'];
  const next: PageWay = s.fresh ? 'after' : 'ids';
  if (s.ranged && ((s.offset + s.perPage) * s.kept()) / s.total <= s.total) return ['window', next];
  return s.unfiltered && s.offset >= 2 * ORDER_BLOCK ? ['block', next] : [next];
}

/**
 * A page of a list and its total, by one of three plans: driven by the trigram index (the
 * total from the index's matches), unfiltered (the total kept by triggers, a deep page from its
 * order block), or filtered (a count of the filtered rows). `mayUseIndex` and `pageWays` decide.
 */
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
  // A fuzzy filter the trigram index answers gives the count from the index (the account's keys
  // alone when it is the only filter; else its matches' rows, tested for the rest): the matches'
  // number sets the cost, not the table's. With few candidates (TUNING), from those, tested.
  const driver = mayUseIndex(q.conditions, kept, sql.tuning.scanBelow)
    ? q.conditions.map((c) => ({ c, m: trigramMatch(sql.trigram, r, c, accountId) })).find((x) => x.m)
    : undefined;
  let total: number;
  /** The range of a list filtered by a creation-time or update-time range alone. */
  let range: ReturnType<typeof blockRange>;
  /** The index's matches, sorted: set for a list the index drives. */
  let matches: (() => Row[]) | undefined;
  if (driver?.m) {
    const [first, last] = trigramKeys(accountId);
    // pm_budget() is asked of the rows the index gives (budgetGate), as of the rows tested.
    const match = `f."${driver.m.column}" MATCH ? AND f.rowid BETWEEN ? AND ? AND ${budgetGate('f.rowid')} = 0`;
    const few = sql.tuning.fewCandidates;
    const probe = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${r.table}_fts f WHERE ${match} LIMIT ${few + 1})`;
    // A short value's phrase (`exact`: three keys at most) costs about what its ends do: no probe.
    const candidates = few && !driver.m.exact ? one(probe, [driver.m.ends, first, last]) : few + 1;
    // Few candidates, or candidates that may not match (a long value, a long field: dialect.ts):
    // the value is tested on their rows, as any other condition.
    const tested = candidates <= few || !driver.m.exact;
    const rest = tested ? q.conditions : q.conditions.filter((c) => c !== driver.c);
    const p: unknown[] = [first, candidates <= few ? driver.m.ends : driver.m.match, first, last, accountId];
    const w = [match, 't.account_id = ?', ...whereSql(sql.dialect, r, 't', rest, accountId, p)].join(' AND ');
    // The index first, then each match's row (CROSS JOIN keeps that order): with a range or an
    // IN on the order index beside it, SQLite would otherwise walk those rows and ask the index
    // its whole MATCH again for each one (seconds for a page of `postcode=ls1` within a day).
    const from = `${r.table}_fts f CROSS JOIN ${r.table} t ON t.id = f.rowid - ?`;
    total = rest.length
      ? one(`SELECT COUNT(*) AS n FROM ${from} WHERE ${w}`, p)
      : one(`SELECT COUNT(*) AS n FROM ${r.table}_fts f WHERE ${match}`, [driver.m.match, first, last]);
    matches = () => all(`${select} FROM ${from} WHERE ${w} ${order}`, [...p, offset]);
  } else if (!q.conditions.length) total = kept();
  else {
    range = blockRange(q.conditions);
    total = range
      ? rangeCount(sql, accountId, r.table, range)
      : one(`SELECT COUNT(*) AS n FROM ${r.table} t WHERE ${where}`, params);
  }
  // Page N+1 right after page N of the same list, with nothing of the account's written in between
  // (what other accounts write does not matter, and cannot be told from how long a page takes).
  const shape = `${r.table}\u0000${where}\u0000${JSON.stringify(params)}\u0000${q.perPage}`;
  const hint = sql.pageEnds.get(shape);
  const fresh = hint !== undefined && hint.page === q.page - 1 && hint.writes === writes;
  const ways = pageWays({
    offset,
    perPage: q.perPage,
    total,
    kept,
    indexed: matches !== undefined,
    unfiltered: !q.conditions.length,
    ranged: range?.blocks === UPDATE_BLOCKS,
    fresh,
  });
  // A walk of the order index for a list the trigram index drives may test many rows (a few per
  // match): pm_budget() is asked on every 64th.
  const walked = driver?.m ? ` AND ${budgetGate('t.id')} = 0` : '';
  // An update-time range's page that no window gave: its matches, read on their own index and
  // sorted (the order index would be walked to wherever they lie, maybe its end).
  const sorted = range?.blocks === UPDATE_BLOCKS ? ` INDEXED BY ${r.table}_updated` : '';
  const read: Record<PageWay, () => Row[] | undefined> = {
    none: () => [],
    matches: () => matches?.(),
    // The block sizes before the page's block are added up, and only the records of that block
    // before the page are walked.
    block: () => {
      const block = sql.statements
        .get(
          `SELECT created_at AS c, id AS i, before FROM (
             SELECT created_at, id, SUM(n) OVER (ORDER BY created_at, id) - n AS before
             FROM order_blocks WHERE account_id = ? AND tbl = ?
           ) WHERE before <= ? ORDER BY created_at DESC, id DESC LIMIT 1`,
        )
        .get(accountId, r.table, offset) as { c: number; i: number; before: number } | undefined;
      return block
        ? all(
            `${select} FROM ${r.table} t WHERE t.id IN (SELECT t.id FROM ${r.table} t WHERE t.account_id = ? AND (t.created_at, t.id) >= (?, ?) ${order}) ORDER BY t.created_at, t.id`,
            [accountId, block.c, block.i, offset - block.before],
          )
        : undefined;
    },
    // The walk's rows come out of the window in its order, and stop at the page's end (no ORDER
    // BY over the window, which would sort all of it).
    window: () => {
      if (!range) return undefined;
      const from = fresh && hint ? ' AND (created_at, id) > (?, ?)' : '';
      const got = all(
        `${select} FROM ${r.table} t WHERE t.id IN (SELECT w.id FROM (
           SELECT id, updated_at FROM ${r.table} INDEXED BY ${r.table}_order
           WHERE account_id = ?${from} ORDER BY created_at, id LIMIT ${total}
         ) w WHERE w.updated_at >= ? AND w.updated_at < ? ${limit} OFFSET ?) ORDER BY t.created_at, t.id`,
        [accountId, ...(from && hint ? [hint.createdAt, hint.id] : []), range.start, range.end, from ? 0 : offset],
      );
      return got.length === Math.min(q.perPage, total - offset) ? got : undefined;
    },
    after: () =>
      hint &&
      all(
        `${select} FROM ${r.table} t${sorted} WHERE ${where} AND (t.created_at, t.id) > (?, ?) ORDER BY t.created_at, t.id ${limit}`,
        [...params, hint.createdAt, hint.id],
      ),
    ids: () =>
      all(
        `${select} FROM ${r.table} t WHERE t.id IN (SELECT t.id FROM ${r.table} t${sorted} WHERE ${where}${walked} ${order}) ORDER BY t.created_at, t.id`,
        [...params, offset],
      ),
  };
  let rows: Row[] = [];
  for (const way of ways) {
    const got = read[way]();
    if (got) {
      rows = got;
      break;
    }
  }
  const last = rows[rows.length - 1];
  if (last && !driver?.m) sql.pageEnds.set(shape, { page: q.page, createdAt: last.created_at, id: last._id, writes });
  const records = rows.map((row) => toRecord(r, row));
  sql.run(embed(sql.dialect, accountId, r, q.embed, rows, records));
  return { records, total };
}
