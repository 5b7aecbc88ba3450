/**
 * What differs between the stores, for the code they share: a store's dialect, and how it runs
 * the statements the shared generators yield (docs/architecture.md, sql/).
 */
import type { Condition } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';

export type Row = Record<string, unknown>;

/** A statement to run: its rows, its first row, the number of rows it changed, or the id it inserted. */
export interface Query {
  readonly op: 'rows' | 'get' | 'run' | 'insert';
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** An operation of a store, yielding its statements. */
export type Steps<T> = Generator<Query, T, unknown>;

export interface Dialect {
  /** A fold column containing a folded value, the value pushed onto `params`. */
  contains(column: string, folded: string, params: unknown[]): string;
  /**
   * Adds to a write's columns what the store keeps beside its fold columns (`cols` holds those
   * being written): PostgreSQL's search keys. SQLite's index computes its own (a trigger).
   */
  withSearchKeys?(accountId: number, cols: Row): void;
  /**
   * A fuzzy condition answered by the account's search index, at `depth` (0: the list's own
   * records; more: within a relational subquery); undefined where none can.
   */
  indexed?(
    r: ResourceDef,
    alias: string,
    c: Extract<Condition, { kind: 'fuzzy' }>,
    accountId: number,
    params: unknown[],
    depth: number,
  ): string | undefined;
  /** `column` among a list of ids bound as one value (made by `ids`). */
  inIds(column: string): string;
  ids(ids: readonly number[]): unknown;
  /** A text column equal to a bound value, ASCII letters alone folded (SQLite's NOCASE). */
  equalsNoCase(column: string): string;
  /** What a row read to be written is read with: a lock, where writers run at once. */
  readonly forUpdate: string;
  /**
   * How a clash with a unique key is found: looked up before the write (writers run one at a
   * time), or by the key's constraint as the row is written (`uniqueViolated` names the constraint
   * or unique index an error is a violation of, undefined for any other error).
   */
  uniqueViolated?(e: unknown): string | undefined;
  /** Taken before a custom field's name is chosen or written, where writers run at once. */
  lockNames?(accountId: number): Query;
  readonly now: () => number;
  /** A new record's uuid (version 4); without it, node:crypto's. */
  readonly uuid?: () => string;
}

/** Statements, each yielded as it is (`(yield get(...)) as Row | undefined`): its answer is said by its op. */
export const rows = (sql: string, params: readonly unknown[] = []): Query => ({ op: 'rows', sql, params });
export const get = (sql: string, params: readonly unknown[] = []): Query => ({ op: 'get', sql, params });
export const run = (sql: string, params: readonly unknown[] = []): Query => ({ op: 'run', sql, params });
export const insert = (sql: string, params: readonly unknown[] = []): Query => ({ op: 'insert', sql, params });

/**
 * Runs an operation, each statement's answer given back to it (a statement's error thrown into it):
 * at once while its statements answer at once (SQLite), with a promise from the first statement
 * that answers with one (PostgreSQL). `next` is where it stands: its first statement to begin with.
 */
export function runSteps<T>(exec: (q: Query) => unknown, steps: Steps<T>, next = steps.next()): T | Promise<T> {
  while (!next.done) {
    let answer: unknown;
    try {
      answer = exec(next.value);
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    if (answer instanceof Promise)
      return answer.then(
        (a) => runSteps(exec, steps, steps.next(a)),
        (e) => runSteps(exec, steps, steps.throw(e)),
      );
    next = steps.next(answer);
  }
  return next.value;
}
