/**
 * SQLite's dialect for the code shared with PostgreSQL (../sql/steps.ts). Writers run one at a
 * time (BEGIN IMMEDIATE), so unique keys are looked up before a write and nothing is locked.
 */
import type { Condition } from '../../core/query.js';
import { RESOURCES } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { fold, foldColumnOf } from '../columns.js';
import { TRIGRAM_ACCOUNT_SPAN } from '../schema.js';
import { searchKeysOf } from '../search-keys.js';
import type { Dialect, Query } from '../sql/steps.js';
import type { StatementCache } from './statements.js';

/**
 * The most trigrams of a fuzzy value a phrase in the index reads. A phrase costs (its trigrams) x
 * (their positions in each candidate row), and no row comes out of the index until one matches,
 * so nothing can stop it half-way: a longer value's phrase is its first trigrams alone, and the
 * whole value is tested on the candidates' rows, where pm_budget() is asked.
 */
const PHRASE_TRIGRAMS = 3;

/**
 * The longest text (characters) whose trigram positions a phrase reads: a field that may be longer
 * (a note's content: 65,535) can hold a trigram tens of thousands of times a row, and a phrase over
 * it costs seconds; its candidates are found by trigrams alone (no positions compared) and tested.
 */
const PHRASE_TEXT = 255;

/** The most distinct trigrams of a value that find a long field's candidates. */
const CANDIDATE_TRIGRAMS = 4;

/**
 * A fuzzy condition the account's search index can answer: the fold column, and MATCH values over
 * the account's search keys (../search-keys.ts): `match` finds the matches (`exact`: exactly
 * them; else candidates, on whose rows the value must be tested), `ends` its first and last
 * trigrams' keys (every match, and maybe more). Undefined below three characters, or without an
 * index. A phrase of keys matches consecutive trigrams: the value as a substring.
 */
export function trigramMatch(
  trigram: Pick<ReadonlySet<string>, 'has'>,
  r: ResourceDef,
  c: Condition,
  accountId: number,
): { column: string; match: string; ends: string; exact: boolean } | undefined {
  if (c.kind !== 'fuzzy') return undefined;
  const column = foldColumnOf(c.field) as string;
  const keys = searchKeysOf(accountId, fold(c.value, c.field.filter));
  const n = keys.length;
  if (!n || !trigram.has(`${r.table}.${column}`)) return undefined;
  // A key is letters and digits alone: a phrase is the keys in double quotes.
  const phrase = (from: number, to: number) => `"${keys.slice(from, to + 1).join(' ')}"`;
  const all = (at: number[]) => [...new Set(at.map((i) => keys[i]))].map((k) => `"${k}"`).join(' AND ');
  const ends = all([0, n - 1]);
  if ((c.field.max ?? PHRASE_TEXT) > PHRASE_TEXT) {
    // Up to CANDIDATE_TRIGRAMS, spread from the first to the last.
    const k = Math.min(n, CANDIDATE_TRIGRAMS);
    const spread = Array.from({ length: k }, (_, i) => (k === 1 ? 0 : Math.round((i * (n - 1)) / (k - 1))));
    return { column, match: all(spread), ends, exact: n === 1 };
  }
  if (n <= PHRASE_TRIGRAMS) return { column, match: phrase(0, n - 1), ends, exact: true };
  return { column, match: `${phrase(0, PHRASE_TRIGRAMS - 1)} AND ${all([n - 1])}`, ends, exact: false };
}

/**
 * SQL that asks pm_budget() (index.ts: it throws OverBudget once the list's budget is spent) of
 * some rows: every 64th by `key` (a rowid), and, given `text`, every one whose text is long, where
 * a substring test may take a while. 0 when asked. It costs some 40 ns a row, as much as testing a
 * short text itself.
 */
export function budgetGate(key: string, text?: string): string {
  return `iif(${key} % 64 = 0${text ? ` OR octet_length(${text}) > 1024` : ''}, pm_budget(), 0)`;
}

/**
 * The fold columns of fields no longer than PHRASE_TEXT in every description that has them: a
 * substring test of one costs at most a few microseconds, so a list that tests them needs no
 * pm_budget() beside each (a list driven by the trigram index asks it of the rows the index
 * gives; one that is not tests fewer than TUNING.scanBelow rows, or a value under three
 * characters). Any other column (a note's content, a custom field's value) is asked on every row.
 */
const SHORT_COLUMNS: ReadonlySet<string> = (() => {
  const fields = RESOURCES.flatMap((r) => r.fields).filter((f) => foldColumnOf(f));
  const long = new Set(fields.filter((f) => (f.max ?? PHRASE_TEXT) > PHRASE_TEXT).map((f) => foldColumnOf(f)));
  return new Set(fields.map((f) => foldColumnOf(f) as string).filter((c) => !long.has(c)));
})();

/** The keys of one account's rows in a trigram index (schema.ts): the first, and the last. */
export function trigramKeys(accountId: number): [number, number] {
  const base = accountId * TRIGRAM_ACCOUNT_SPAN;
  return [base, base + TRIGRAM_ACCOUNT_SPAN - 1];
}

/**
 * The dialect of a connection whose trigram indexes are `trigram`. A fuzzy condition reads the
 * row's fold column (the row is read anyway, and listRecords drives a list from the trigram index
 * itself); within a relational subquery, which selects every matching record, three characters
 * or more are looked up in the trigram index.
 */
/** A version 4 uuid from 16 random bytes (RFC 9562: the version and variant bits set). */
function uuidV4(bytes: Uint8Array): string {
  const b = Buffer.from(bytes);
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * `random`: 16 random bytes, from SQLite's own generator (seeded by the system's), so that a
 * create on the embedded default needs no node:crypto, whose loading costs a run milliseconds.
 */
export function sqliteDialect(
  trigram: Pick<ReadonlySet<string>, 'has'>,
  now: () => number,
  random?: () => Uint8Array,
): Dialect {
  // A long text is tested with pm_budget() asked beside it (budgetGate), so that a list that tests
  // many such rows stops when its budget is spent.
  const contains: Dialect['contains'] = (column, folded, params) => {
    params.push(folded);
    const [alias, name] = column.replace(/"/g, '').split('.') as [string, string];
    return `instr(${column}, ?) > ${SHORT_COLUMNS.has(name) ? '0' : budgetGate(`${alias}.rowid`, column)}`;
  };
  return {
    contains,
    ...(random ? { uuid: () => uuidV4(random()) } : {}),
    // The list's own records: listRecords drives the list from the index itself (records.ts).
    indexed(r, alias, c, accountId, params, depth) {
      if (c.kind !== 'fuzzy' || depth === 0) return undefined;
      const indexed = trigramMatch(trigram, r, c, accountId);
      if (!indexed) return undefined;
      const [first, last] = trigramKeys(accountId);
      params.push(first, indexed.match, first, last);
      const ids = `${alias}.id IN (SELECT rowid - ? FROM ${r.table}_fts WHERE "${indexed.column}" MATCH ? AND rowid BETWEEN ? AND ? AND ${budgetGate('rowid')} = 0)`;
      if (indexed.exact) return ids;
      return `${ids} AND ${contains(`${alias}."${indexed.column}"`, fold(c.value, c.field.filter), params)}`;
    },
    inIds: (column) => `${column} IN (SELECT value FROM json_each(?))`,
    ids: (ids) => JSON.stringify(ids),
    equalsNoCase: (column) => `${column} = ? COLLATE NOCASE`,
    forUpdate: '',
    now,
  };
}

export function execute(statements: StatementCache, q: Query): unknown {
  const s = statements.get(q.sql);
  switch (q.op) {
    case 'rows':
      return s.all(...q.params);
    case 'get':
      return s.get(...q.params);
    case 'run':
      return s.run(...q.params).changes;
    case 'insert':
      return Number(s.run(...q.params).lastInsertRowid);
  }
}
