/**
 * Prepared statements, kept by SQL text in a bounded cache: the least recently used is dropped
 * (and finalised by better-sqlite3 once unreferenced) when a new one would exceed the bound. The
 * SQL of a list depends on the shape of its filters (which fields, how many values), so an
 * unbounded cache would keep every shape a client ever sent.
 */
import type { Statement } from 'better-sqlite3';
import type { DB } from '../db.js';
import type { Dialect, Steps } from '../sql/steps.js';

const STATEMENT_CACHE_SIZE = 200;

/** How a store plans its lists (records.ts has the defaults); tests set it to take each path on small data. */
export interface SqliteTuning {
  /** Below this many records of a table, a fuzzy filter beside another is tested on the rows. */
  readonly scanBelow?: number;
  /** At most this many candidates from two of a fuzzy value's trigrams: they are tested on the rows. */
  readonly fewCandidates?: number;
}

/** What the SQLite modules are handed: the connection's statements, and what its schema has. */
export interface Sql {
  readonly statements: StatementCache;
  readonly dialect: Dialect;
  /** Runs an operation of ../sql/, its statements through the cache. */
  run<T>(steps: Steps<T>): T;
  /** Runs `fn` in a write transaction taken up front, so that concurrent writers queue cleanly. */
  write<T>(fn: () => T): T;
  /** The fold columns with a trigram index, as "table.column" (schema.ts, migration 3). */
  readonly trigram: Pick<ReadonlySet<string>, 'has'>;
  readonly tuning: Required<SqliteTuning>;
  /** Where the last page served of a list ended, by the list's shape (bounded; records.ts). */
  readonly pageEnds: Bounded<PageEnd>;
  /**
   * The budget of the list running on this connection (one at a time: SQLite answers at once),
   * which pm_budget() in its SQL checks (dialect.ts); none outside a list.
   */
  budget: SqliteBudget | undefined;
}

/** A list's budget on a connection: when it is spent, and where another thread says to stop it now. */
export interface SqliteBudget {
  /** performance.now() of this thread; none: no time limit. */
  readonly deadline?: number | undefined;
  /** The list must stop once `cells[slot]` holds its `id` (the pool answered it: readers.ts). */
  readonly stop?: { readonly cells: Int32Array; readonly slot: number; readonly id: number } | undefined;
}

/** Where a page ended: its number, and the order key of its last row. */
export interface PageEnd {
  readonly page: number;
  readonly createdAt: unknown;
  readonly id: unknown;
  /** The account's writes counted when the page was read (records.ts). */
  readonly writes: number;
}

/** A Map of at most `max` entries: the one set longest ago is dropped (a Map keeps insertion order). */
export class Bounded<V> extends Map<string, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: string, value: V): this {
    this.delete(key);
    if (this.size >= this.max) this.delete(this.keys().next().value as string);
    return super.set(key, value);
  }
}

/** The fold columns a data file has a trigram index of: the columns of its `<table>_fts` tables. */
export function trigramColumns(db: DB): Set<string> {
  const out = new Set<string>();
  const ftsTables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5%'`);
  for (const name of (ftsTables.pluck().all() as string[]).filter((t) => t.endsWith('_fts')))
    for (const c of db.pragma(`table_info(${name})`) as { name: string }[])
      out.add(`${name.slice(0, -'_fts'.length)}.${c.name}`);
  return out;
}

export class StatementCache extends Bounded<Statement<unknown[]>> {
  constructor(
    private readonly db: DB,
    max: number = STATEMENT_CACHE_SIZE,
  ) {
    super(max);
  }

  /** The statement for `sql`, prepared on first use, and set again as the most recently used. */
  override get(sql: string): Statement<unknown[]> {
    const s = super.get(sql) ?? this.db.prepare<unknown[]>(sql);
    this.set(sql, s);
    return s;
  }
}
