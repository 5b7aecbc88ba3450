/**
 * SQLite's dialect for the code shared with PostgreSQL (../sql/steps.ts). Writers run one at a
 * time (BEGIN IMMEDIATE), so unique keys are looked up before a write and nothing is locked.
 */
import type { Condition } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { fold, foldColumnOf } from '../columns.js';
import { TRIGRAM_ACCOUNT_SPAN } from '../schema.js';
import type { Dialect, Query } from '../sql/steps.js';
import type { StatementCache } from './statements.js';

/**
 * A fuzzy condition the trigram index can answer: the fold column, and MATCH values: `match` the
 * folded text as one quoted phrase (a substring: exactly the matches), `ends` its first and last
 * trigrams (every match, and maybe more). Undefined below three characters, or without an index.
 */
export function trigramMatch(
  trigram: ReadonlySet<string>,
  r: ResourceDef,
  c: Condition,
): { column: string; match: string; ends: string } | undefined {
  if (c.kind !== 'fuzzy') return undefined;
  const column = foldColumnOf(c.field) as string;
  const needle = fold(c.value, c.field.filter);
  const chars = [...needle];
  if (chars.length < 3 || !trigram.has(`${r.table}.${column}`)) return undefined;
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const ends = [...new Set([chars.slice(0, 3).join(''), chars.slice(-3).join('')])].map(quote).join(' AND ');
  return { column, match: quote(needle), ends };
}

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
export function sqliteDialect(trigram: ReadonlySet<string>, now: () => number): Dialect {
  return {
    contains(column, folded, params) {
      params.push(folded);
      return `instr(${column}, ?) > 0`;
    },
    indexed(r, alias, c, accountId, params) {
      const indexed = trigramMatch(trigram, r, c);
      if (!indexed) return undefined;
      const [first, last] = trigramKeys(accountId);
      params.push(first, indexed.match, first, last);
      return `${alias}.id IN (SELECT rowid - ? FROM ${r.table}_fts WHERE "${indexed.column}" MATCH ? AND rowid BETWEEN ? AND ?)`;
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
